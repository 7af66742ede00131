import { chmod, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  diffSnapshots,
  hasChanges,
  snapshotWorkspace,
  type WorkspaceSnapshot,
} from "../../../src/envs/terminal/workspace-snapshot";

describe("workspace snapshots", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "hsearch-snapshot-"));
    await writeFile(join(root, "a.txt"), "alpha");
    await mkdir(join(root, "dir"));
    await writeFile(join(root, "dir", "b.txt"), "beta");
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const changesAfter = async (edit: () => Promise<void>) => {
    const before = await snapshotWorkspace(root);
    await edit();
    return diffSnapshots(before, await snapshotWorkspace(root, before));
  };

  it("sees nothing when nothing changed", async () => {
    const changes = await changesAfter(async () => {});
    expect(changes).toEqual({ created: [], modified: [], deleted: [] });
    expect(hasChanges(changes)).toBe(false);
  });

  it("reports created, modified and deleted files and directories", async () => {
    const changes = await changesAfter(async () => {
      await writeFile(join(root, "a.txt"), "ALPHA");
      await rm(join(root, "dir"), { recursive: true });
      await mkdir(join(root, "new"));
      await writeFile(join(root, "new", "c.txt"), "gamma");
      await symlink("/etc/passwd", join(root, "link"));
    });
    expect(changes).toEqual({
      created: ["link", "new/", "new/c.txt"],
      modified: ["a.txt"],
      deleted: ["dir/", "dir/b.txt"],
    });
  });

  it("counts a permission change but not a rewrite with the same bytes or a touch", async () => {
    const changes = await changesAfter(async () => {
      await writeFile(join(root, "a.txt"), "alpha");
      await utimes(join(root, "dir", "b.txt"), new Date(2000, 0, 1), new Date(2000, 0, 1));
    });
    expect(changes.modified).toEqual([]);
    const chmodded = await changesAfter(() => chmod(join(root, "a.txt"), 0o755));
    expect(chmodded.modified).toEqual(["a.txt"]);
  });

  it("sees a same-size edit whose mtime was put back", async () => {
    const changes = await changesAfter(async () => {
      await writeFile(join(root, "a.txt"), "ALPHA");
      await utimes(join(root, "a.txt"), new Date(2000, 0, 1), new Date(2000, 0, 1));
    });
    expect(changes.modified).toEqual(["a.txt"]);
  });

  it("reuses the hashes of unchanged files", async () => {
    const first = await snapshotWorkspace(root);
    const forged: WorkspaceSnapshot = new Map(
      [...first].map(([path, entry]) => [
        path,
        entry.kind === "file" ? { ...entry, hash: `kept:${path}` } : entry,
      ]),
    );
    const second = await snapshotWorkspace(root, forged);
    expect(second.get("a.txt")?.hash).toBe("kept:a.txt");
    await writeFile(join(root, "a.txt"), "changed");
    const third = await snapshotWorkspace(root, forged);
    expect(third.get("a.txt")?.hash).not.toBe("kept:a.txt");
  });
});
