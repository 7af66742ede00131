/** The episode's root as a directory tree on the host: the namespaces' / and a container backend's base image. */
import { chown, mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SandboxUser } from "./sandbox-types";
import { type episodeRootLayout, WRITABLE_ROOT_DIRS } from "./session-plan";

/** Lay out the episode's root; the sandbox user owns its writable directories. */
export async function buildEpisodeRoot(
  root: string,
  entries: ReturnType<typeof episodeRootLayout>,
  user: SandboxUser | undefined,
  writable: readonly string[] = WRITABLE_ROOT_DIRS,
): Promise<void> {
  await mkdir(root, { mode: 0o755 });
  for (const entry of entries) {
    const path = join(root, entry.name);
    if (entry.kind === "symlink") await symlink(entry.target, path);
    else if (entry.kind === "dir") await mkdir(path, { recursive: true, mode: 0o755 });
    else await writeFile(path, "", { mode: 0o644 });
  }
  if (!user || process.geteuid?.() !== 0) return;
  for (const name of writable) await chown(join(root, name), user.uid, user.gid);
}
