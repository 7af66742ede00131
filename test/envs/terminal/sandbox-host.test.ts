import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  identityTexts,
  sandboxState,
  sandboxUserFor,
  sweepDeadWriters,
} from "../../../src/envs/terminal/sandbox-host";

/** Above any pid_max Linux allows (2^22), so never a live process. */
const DEAD_PID = 4_194_305;

describe("sandbox host state", () => {
  it("sweeps the one-command files and drafts of dead processes only", async () => {
    const dir = await mkdtemp(join(tmpdir(), "hsearch-sweep-"));
    try {
      for (const name of [
        `fstab-${DEAD_PID}-1`,
        `passwd-${DEAD_PID}-2`,
        `fstab-${process.pid}-3`,
        "root-abc",
      ])
        writeFileSync(join(dir, name), "");
      mkdirSync(join(dir, `root-def.draft-${DEAD_PID}`));
      sweepDeadWriters(dir);
      expect((await readdir(dir)).sort()).toEqual([`fstab-${process.pid}-3`, "root-abc"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps one private directory per user with one shared skeleton, and one-command files it removes", () => {
    const state = sandboxState();
    expect(state.dir).toBe(join(tmpdir(), `hsearch-sandbox-${process.getuid?.()}`));
    const path = state.oneShotFile("fstab", "text");
    expect(path).toMatch(new RegExp(`fstab-${process.pid}-\\d+$`));
    state.removeFile(path);
    expect(existsSync(path)).toBe(false);
    const entries = [{ name: "usr", kind: "dir" as const }];
    const root = state.skeleton(entries);
    expect(state.skeleton(entries)).toBe(root);
    for (const path of ["usr", "workspace", "app", "tmp", "proc", "dev/null", "dev/shm", "var/tmp"])
      expect(existsSync(join(root, path))).toBe(true);
  });

  it("names a uid the host does not know, and gives each workspace its own", () => {
    const user = sandboxUserFor("/tmp/some-workspace");
    expect(user.uid).toBeGreaterThanOrEqual(2_000_000);
    expect(user.uid).toBeLessThan(3_000_000);
    expect(sandboxUserFor("/tmp/some-workspace")).toEqual(user);
    expect(sandboxUserFor("/tmp/other-workspace")).not.toEqual(user);
    const texts = identityTexts(user);
    expect(texts?.passwd).toContain(`\nsandbox:x:${user.uid}:${user.gid}:hsearch sandbox:/tmp:/bin/bash\n`);
    expect(texts?.group).toContain(`\nsandbox:x:${user.gid}:\n`);
    expect(identityTexts({ uid: 0, gid: 0 })).toBeUndefined();
  });
});
