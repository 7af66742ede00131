/**
 * The host side of the sandbox: finding programs, the read-only skeleton that becomes the sandbox's root (unshare
 * mechanism), the per-user state directory, and the unprivileged identity a workspace is handed to.
 *
 * Identity (when hsearch runs as root): each workspace gets its own uid/gid, derived from its path, in
 * 2000000–2999999. A uid of its own makes RLIMIT_NPROC (counted per uid) a per-episode limit: a fork bomb in one
 * episode cannot starve the processes of another. The workspace is chowned to that identity (`handWorkspaceTo`),
 * and the sandbox sees an /etc/passwd naming it `sandbox`, with home /tmp.
 * Without root, a user namespace maps the invoking user instead and nothing is chowned.
 */
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { lchown, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HsearchError } from "../../core";
import { DEV_LINKS, DEVICES, type HostEntry, SHIMS, SYSTEM_ENTRIES, VAR_TMP_LINK } from "./sandbox-plan";
import { SANDBOX_PATHS, type SandboxUser } from "./sandbox-types";

const SEARCH_DIRS = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/** The absolute path of a program on PATH or in the usual system directories, or undefined. */
export function findTool(name: string, path: string = process.env.PATH ?? ""): string | undefined {
  const dirs = [...path.split(":").filter((dir) => dir.startsWith("/")), ...SEARCH_DIRS];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      if (lstatSync(candidate).isFile() || lstatSync(candidate).isSymbolicLink()) return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The host's top-level system entries the sandbox shows (directories bound read-only, symlinks copied). */
export function hostEntries(): HostEntry[] {
  const entries: HostEntry[] = [];
  for (const name of SYSTEM_ENTRIES) {
    const path = `/${name}`;
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) entries.push({ name, kind: "symlink", target: readlinkSync(path) });
    else if (stat.isDirectory()) entries.push({ name, kind: "dir" });
  }
  return entries;
}

const UID_BASE = 2_000_000;
const UID_SPAN = 1_000_000;

/** The identity a workspace runs as when hsearch is root: stable for a path, distinct between workspaces. */
export function sandboxUserFor(workspace: string): SandboxUser {
  const digest = createHash("sha256").update(workspace).digest();
  const id = UID_BASE + (digest.readUInt32BE(0) % UID_SPAN);
  return { uid: id, gid: id };
}

/** Give a workspace (recursively, never following symlinks) to the sandbox identity so it can write there. */
export async function handWorkspaceTo(dir: string, user: SandboxUser): Promise<void> {
  await lchown(dir, user.uid, user.gid);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await handWorkspaceTo(path, user);
    else await lchown(path, user.uid, user.gid);
  }
}

/**
 * Sandbox state under the system temp dir, one directory per host uid (`hsearch-sandbox-<uid>`, mode 0700, checked
 * to be ours and private before use), shared by every hsearch process of that user and never removed, so that a
 * killed process leaves nothing behind: the skeleton root is named by its content and built atomically; fstab and
 * identity files live for one command and carry the writer's pid, and those of dead processes are swept on start. Only empty directories and small files live here; every mount happens inside a private mount
 * namespace, so nothing is ever mounted on the host.
 */
class SandboxState {
  readonly dir: string;
  private readonly skeletons = new Map<string, string>();
  private counter = 0;

  constructor() {
    const uid = process.getuid?.() ?? 0;
    this.dir = join(tmpdir(), `hsearch-sandbox-${uid}`);
    try {
      mkdirSync(this.dir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const stat = lstatSync(this.dir);
    if (!stat.isDirectory() || stat.uid !== uid || (stat.mode & 0o077) !== 0)
      throw new HsearchError(
        "sandbox",
        `${this.dir} must be a directory of uid ${uid} with mode 0700 (someone else made it?); remove it`,
      );
    sweepDeadWriters(this.dir);
  }

  /** An empty tree of mount points: the sandbox's root under the unshare mechanism. */
  skeleton(entries: readonly HostEntry[]): string {
    // The mount points are part of the name: a skeleton made before a mount point was added is never reused.
    const key = createHash("sha256")
      .update(JSON.stringify([entries, SANDBOX_PATHS]))
      .digest("hex")
      .slice(0, 16);
    const known = this.skeletons.get(key);
    if (known) return known;
    const root = join(this.dir, `root-${key}`);
    if (!existsSync(root)) {
      // Built aside and renamed into place, so a concurrent process never sees half a skeleton.
      const draft = `${root}.draft-${process.pid}`;
      rmSync(draft, { recursive: true, force: true });
      buildSkeleton(draft, entries);
      try {
        renameSync(draft, root);
      } catch {
        rmSync(draft, { recursive: true, force: true });
        if (!existsSync(root)) throw new HsearchError("sandbox", `cannot create the sandbox root ${root}`);
      }
    }
    this.skeletons.set(key, root);
    return root;
  }

  /**
   * The directory shown at SANDBOX_PATHS.shims, last on the sandbox's PATH: `python` → python3, for tasks that call
   * bare `python` on machines that only have `python3` (where `python` exists, it comes first on PATH).
   */
  shims(): string {
    const links = Object.entries(SHIMS);
    const key = createHash("sha256").update(JSON.stringify(links)).digest("hex").slice(0, 16);
    const dir = join(this.dir, `shims-${key}`);
    if (!existsSync(dir)) {
      const draft = `${dir}.draft-${process.pid}`;
      rmSync(draft, { recursive: true, force: true });
      mkdirSync(draft, { mode: 0o755 });
      for (const [name, target] of links) symlinkSync(target, join(draft, name));
      try {
        renameSync(draft, dir);
      } catch {
        rmSync(draft, { recursive: true, force: true });
        if (!existsSync(dir)) throw new HsearchError("sandbox", `cannot create the sandbox shims ${dir}`);
      }
    }
    return dir;
  }

  /** Write `text` under a fresh name for one command; the caller removes it (`removeFile`) afterwards. */
  oneShotFile(prefix: string, text: string): string {
    this.counter += 1;
    const path = join(this.dir, `${prefix}-${process.pid}-${this.counter}`);
    writeFileSync(path, text, { mode: 0o644 });
    return path;
  }

  removeFile(path: string): void {
    rmSync(path, { force: true });
  }
}

/** Remove the one-command files and drafts in `dir` written by processes that no longer exist. */
export function sweepDeadWriters(dir: string): void {
  for (const name of readdirSync(dir)) {
    const writer = /^(?:fstab|passwd|group)-(\d+)-\d+$/.exec(name)?.[1] ?? /\.draft-(\d+)$/.exec(name)?.[1];
    if (writer !== undefined && !existsSync(`/proc/${writer}`))
      rmSync(join(dir, name), { recursive: true, force: true });
  }
}

function buildSkeleton(root: string, entries: readonly HostEntry[]): void {
  mkdirSync(root, { mode: 0o755 });
  for (const entry of entries) {
    if (entry.kind === "dir") mkdirSync(join(root, entry.name), { mode: 0o755 });
    else symlinkSync(entry.target, join(root, entry.name));
  }
  for (const path of Object.values(SANDBOX_PATHS))
    mkdirSync(join(root, path), { recursive: true, mode: 0o755 });
  mkdirSync(join(root, "proc"), { mode: 0o555 });
  mkdirSync(join(root, "dev", "shm"), { recursive: true, mode: 0o755 });
  for (const device of DEVICES) writeFileSync(join(root, "dev", device), "", { mode: 0o644 });
  for (const [name, target] of Object.entries(DEV_LINKS)) symlinkSync(target, join(root, "dev", name));
  mkdirSync(join(root, "var"), { mode: 0o755 });
  symlinkSync(VAR_TMP_LINK.target, join(root, VAR_TMP_LINK.path));
}

let state: SandboxState | undefined;

export function sandboxState(): SandboxState {
  state ??= new SandboxState();
  return state;
}

/**
 * The texts of /etc/passwd and /etc/group for the sandbox when the host's do not name `user` (tools such as git and
 * Python's getpass look the uid up); undefined when the host already names it.
 */
export function identityTexts(user: SandboxUser): { passwd: string; group: string } | undefined {
  const passwd = readFileSync("/etc/passwd", "utf8");
  const group = readFileSync("/etc/group", "utf8");
  const hasUser = passwd.split("\n").some((line) => line.split(":")[2] === String(user.uid));
  const hasGroup = group.split("\n").some((line) => line.split(":")[2] === String(user.gid));
  if (hasUser && hasGroup) return undefined;
  const withNewline = (text: string) => (text.endsWith("\n") || text === "" ? text : `${text}\n`);
  const home = SANDBOX_PATHS.tmp;
  return {
    passwd: hasUser
      ? passwd
      : `${withNewline(passwd)}sandbox:x:${user.uid}:${user.gid}:hsearch sandbox:${home}:/bin/bash\n`,
    group: hasGroup ? group : `${withNewline(group)}sandbox:x:${user.gid}:\n`,
  };
}

export function isDirectory(path: string): boolean {
  return existsSync(path) && lstatSync(path).isDirectory();
}
