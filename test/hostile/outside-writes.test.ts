import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveInside } from "../../src/core/contained-path";
import { isHsearchError } from "../../src/core/errors";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { exportHarness, initHarnessRepo } from "../../src/git";
import { startViewer } from "../../src/report/viewer/server";
import { loadSearchConfig } from "../../src/search/config/load-config";
import { createRunDir, openRunStore } from "../../src/store";
import { seedHarness, tempDir } from "../git/fixtures";
import { runCli } from "../helpers/cli";
import { hsearchFailureOf } from "../helpers/errors";

const RUN = "20261201-0700-hostile-abcd";

function git(repo: string, args: string[], input?: string): string {
  return execFileSync("git", args, { cwd: repo, input, encoding: "utf8" }).trim();
}

/**
 * A commit whose tree holds a `..` entry (a tree named `..` with `evil.txt` in it) next to an ordinary file, built
 * with git plumbing as an attacker would; `git ls-tree -r` lists it as `../evil.txt`.
 */
function craftedCommit(repo: string, parent: string): string {
  const blob = git(repo, ["hash-object", "-w", "--stdin"], "written outside\n");
  const inner = git(repo, ["mktree"], `100644 blob ${blob}\tevil.txt\n`);
  const top = git(repo, ["mktree"], `040000 tree ${inner}\t..\n100644 blob ${blob}\tsystem.md\n`);
  expect(git(repo, ["ls-tree", "-r", "--name-only", top])).toContain("../evil.txt");
  return git(repo, ["commit-tree", top, "-p", parent, "-m", "crafted"]);
}

/** Every file under `dir`, relative, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

describe("nothing is written outside the destination", () => {
  it("exportHarness refuses a tree with a '..' entry before writing anything", async () => {
    const repo = join(await tempDir(), "harness");
    const { seed } = await initHarnessRepo(repo, await seedHarness(), { runId: RUN });
    const crafted = craftedCommit(repo, seed);
    const work = await tempDir();
    const out = join(work, "exports", "out");
    mkdirSync(join(work, "exports"));
    const error = await hsearchFailureOf(exportHarness(repo, crafted, out));
    expect(error.code).toBe("bad_input");
    expect(error.message).toContain("'../evil.txt'");
    expect(filesUnder(work)).toEqual([]);
  });

  it("hsearch export of a run holding the crafted candidate exits 2 and leaves no file outside --out", async () => {
    const work = await tempDir();
    const paths = createRunDir(work, RUN);
    const { seed } = await initHarnessRepo(paths.harness, await seedHarness(), { runId: RUN });
    const crafted = craftedCommit(paths.harness, seed);
    const store = openRunStore(paths.dir);
    const config = loadSearchConfig(join(PACKAGE_ROOT, "search-configs", "demo.yaml"));
    store.initRun({ id: RUN, name: "hostile", config, seed: 1, objective: "joint" });
    const treeOf = (commit: string) => git(paths.harness, ["rev-parse", `${commit}^{tree}`]);
    store.addCandidate({
      commit: seed,
      round: 0,
      proposal: 0,
      parent: null,
      branch: "main",
      proposer: "seed",
      rationale: "seed",
      tree_hash: treeOf(seed),
    });
    store.addCandidate({
      commit: crafted,
      round: 1,
      proposal: 1,
      parent: seed,
      branch: "round-1/p1",
      proposer: "operators",
      rationale: "crafted",
      tree_hash: treeOf(crafted),
    });
    store.close();
    const before = filesUnder(work);
    const outParent = join(work, "dest");
    mkdirSync(outParent);
    const result = await runCli(
      ["export", paths.dir, "--candidate", crafted, "--out", join(outParent, "out")],
      {
        cwd: work,
      },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unsafe path '../evil.txt'");
    expect(existsSync(join(outParent, "evil.txt"))).toBe(false);
    expect(filesUnder(work).filter((f) => !before.includes(f))).toEqual([]);
    // The viewer's file pages read the same tree through the same check: the crafted file is never served.
    const viewer = await startViewer({ runDir: paths.dir, port: 0 });
    try {
      const base = `http://127.0.0.1:${viewer.port}`;
      const first = await fetch(`${base}/?token=${viewer.token}`, { redirect: "manual" });
      const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      for (const page of [`/candidates/${crafted}/files`, `/candidates/${crafted}/files/..%2Fevil.txt`]) {
        const response = await fetch(`${base}${page}`, { headers: { cookie }, redirect: "manual" });
        expect(response.status, page).not.toBe(200);
        expect(await response.text()).not.toContain("written outside");
      }
    } finally {
      await viewer.close();
    }
  });

  it("resolves a stored relative path only below its root, with no symlink on the way", async () => {
    const root = await tempDir();
    const outside = await tempDir();
    symlinkSync(outside, join(root, "link"));
    expect(resolveInside(root, "a/b.txt")).toBe(join(root, "a", "b.txt"));
    for (const [path, why] of [
      ["../x", "leaves or aliases"],
      ["a/../../x", "leaves or aliases"],
      ["/etc/passwd", "absolute"],
      [".git/config", ".git"],
      ["link/x", "symlink"],
      ["a\0b", "NUL"],
    ] as const) {
      expect(() => resolveInside(root, path), path).toThrow(why);
    }
  });

  it("a trajectory file named in run.db outside the run is refused, not read (the viewer's trajectory pages)", async () => {
    const work = await tempDir();
    const paths = createRunDir(work, RUN);
    const store = openRunStore(paths.dir);
    const error = (() => {
      try {
        store.readTrajectory({
          trajectory_file: "../../etc/passwd",
          key: "k",
          trajectory_offset: 0,
          trajectory_length: 10,
          trajectory_sha256: "0",
        } as Parameters<typeof store.readTrajectory>[0]);
      } catch (caught) {
        return caught;
      } finally {
        store.close();
      }
    })();
    expect(isHsearchError(error, "bad_input")).toBe(true);
    expect((error as Error).message).toContain("trajectory file '../../etc/passwd' refused");
  });
});
