import { chmod, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HsearchError } from "../../../src/core";
import { snapshotWatched } from "../../../src/envs/terminal/watched-places";
import {
  diffSnapshots,
  hasChanges,
  snapshotPlaces,
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

describe("snapshots of a container's places, keyed by absolute path", () => {
  let root: string;
  let outside: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "hsearch-places-"));
    outside = await mkdtemp(join(tmpdir(), "hsearch-places-host-"));
    await mkdir(join(root, "etc", "nginx"), { recursive: true });
    await writeFile(join(root, "etc", "nginx", "nginx.conf"), "events {}\n");
    await writeFile(join(root, "etc", "passwd"), "root:x:0:0::/root:/bin/bash\n");
    await mkdir(join(root, "proc"));
    await writeFile(join(root, "proc", "noise"), "1");
    await mkdir(join(root, "app"));
    await writeFile(join(root, "app", "work.txt"), "w");
    await writeFile(join(outside, "secret"), "host file");
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  const skip = (path: string) =>
    ["/proc", "/app"].some((place) => path === place || path.startsWith(`${place}/`));

  it("gives a place's entries by absolute path, a file place itself, and nothing of a place that is not there", async () => {
    const snapshot = await snapshotPlaces(root, ["/etc/nginx", "/etc/passwd", "/git/server"], skip);
    expect([...snapshot.keys()].sort()).toEqual(["/etc/nginx", "/etc/nginx/nginx.conf", "/etc/passwd"]);
  });

  it("walks the whole file system for /, leaving out the skipped places with all below them", async () => {
    const snapshot = await snapshotPlaces(root, ["/"], skip);
    expect([...snapshot.keys()].sort()).toEqual([
      "/etc",
      "/etc/nginx",
      "/etc/nginx/nginx.conf",
      "/etc/passwd",
    ]);
  });

  it("sees a place created, changed and removed as the workspace's changes are seen", async () => {
    const places = ["/etc/passwd", "/git"];
    const before = await snapshotPlaces(root, places, skip);
    await writeFile(
      join(root, "etc", "passwd"),
      "root:x:0:0::/root:/bin/bash\ngit:x:1000:1000::/home/git:/bin/sh\n",
    );
    await mkdir(join(root, "git", "server"), { recursive: true });
    const after = await snapshotPlaces(root, places, skip, before);
    expect(diffSnapshots(before, after)).toEqual({
      created: ["/git/", "/git/server/"],
      modified: ["/etc/passwd"],
      deleted: [],
    });
  });

  it("never follows a link the episode made: a place below it is not there, the link is an entry", async () => {
    await symlink(outside, join(root, "git"));
    const snapshot = await snapshotPlaces(root, ["/git", "/git/secret", "/"], skip);
    expect(snapshot.get("/git")?.kind).toBe("symlink");
    expect(snapshot.has("/git/secret")).toBe(false);
    expect([...snapshot.keys()].some((path) => path.includes("secret"))).toBe(false);
  });
});

describe("the watched places of an episode", () => {
  it("stop the episode with a sandbox error naming env.watch where the host cannot read the container's root", async () => {
    const refused = await snapshotWatched(undefined, ["/git"], "/app").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HsearchError);
    expect((refused as HsearchError).code).toBe("sandbox");
    expect((refused as HsearchError).location.field).toBe("env.watch");
    expect((refused as HsearchError).message).toContain("/git");
  });

  it("leave out the workspace and the kernel's and the sandbox's places, even under /", async () => {
    const root = await mkdtemp(join(tmpdir(), "hsearch-watched-"));
    try {
      for (const dir of [
        "proc/1",
        "tmp/x",
        "var/log",
        "var/lib/app",
        "home/user",
        "logs/verifier",
        ".hsearch",
      ])
        await mkdir(join(root, dir), { recursive: true });
      const snapshot = await snapshotWatched(root, ["/"], "/home/user");
      expect([...snapshot.keys()].sort()).toEqual(["/home", "/var", "/var/lib", "/var/lib/app"]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
