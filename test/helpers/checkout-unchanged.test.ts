import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkoutChanges, checkoutStatus } from "./checkout-unchanged";

describe("the suite's check that it left the checkout as it found it", () => {
  const repo = mkdtempSync(join(tmpdir(), "hsearch-checkout-"));
  afterAll(() => rmSync(repo, { recursive: true, force: true }));
  execFileSync("git", ["init", "--quiet", repo]);
  writeFileSync(join(repo, ".gitignore"), "runs/*\n!runs/.gitkeep\nnode_modules/\ndist/\n.dist-test-*/\n");
  mkdirSync(join(repo, "runs"));
  writeFileSync(join(repo, "runs", ".gitkeep"), "");
  writeFileSync(join(repo, "kept.txt"), "a\n");
  execFileSync("git", ["add", "."], { cwd: repo });
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "i"], {
    cwd: repo,
  });

  it("names an evaluation left in runs/, a new file and a deleted one; not the build's own folders", () => {
    const before = checkoutStatus(repo);
    expect(before).toEqual([]);
    for (const dir of ["node_modules", "dist", ".dist-test-abc"]) mkdirSync(join(repo, dir));
    writeFileSync(join(repo, "dist", "x.js"), "");
    expect(checkoutChanges(before, checkoutStatus(repo))).toEqual([]);
    mkdirSync(join(repo, "runs", "2026-eval-bare-1"));
    writeFileSync(join(repo, "runs", "2026-eval-bare-1", "run.db"), "");
    writeFileSync(join(repo, "stray.txt"), "");
    rmSync(join(repo, "kept.txt"));
    expect(checkoutChanges(before, checkoutStatus(repo))).toEqual([
      "new:  D kept.txt",
      "new: ?? stray.txt",
      "new: !! runs/2026-eval-bare-1/",
    ]);
  });

  it("names an entry that was there before and is gone after", () => {
    expect(checkoutChanges(["?? mine.txt"], [])).toEqual(["gone: ?? mine.txt"]);
  });
});
