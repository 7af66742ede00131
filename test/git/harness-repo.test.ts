import { execFileSync } from "node:child_process";
import { readdir, readFile, rename, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isHsearchError } from "../../src/core/errors";
import {
  branchCommit,
  commitInfo,
  commitProposal,
  diff,
  exportHarness,
  initHarnessRepo,
  listProposalBranches,
  materialize,
  moveIncumbent,
  readTree,
  resolveCommit,
  tagSelected,
  treeHash,
} from "../../src/git";
import { SEED_FILES, seedHarness, tempDir, writeFiles } from "./fixtures";

const RUN = "20261129-2301-demo-abcd";

function rawGit(repo: string, args: string[], input?: string): string {
  return execFileSync("git", args, { cwd: repo, input, encoding: "utf8" }).trim();
}

async function newRepo(): Promise<{ repo: string; seed: string }> {
  const repo = join(await tempDir(), "harness");
  const { seed } = await initHarnessRepo(repo, await seedHarness(), { runId: RUN });
  return { repo, seed };
}

async function expectCode(promise: Promise<unknown>, code: string, mentions: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isHsearchError(error), `expected an HsearchError, got ${String(error)}`).toBe(true);
  expect((error as { code: string }).code).toBe(code);
  expect((error as Error).message).toContain(mentions);
}

const proposal = (
  parent: string,
  files: Record<string, string | null>,
  extra: Partial<{ round: number }> = {},
) => ({
  parent,
  round: extra.round ?? 1,
  proposal: 0,
  files,
  rationale: "Distil a stopping rule from the order-owner mismatch.",
  trailers: { run: RUN, proposer: "operators" },
});

describe("initHarnessRepo", () => {
  it("commits the seed on main with trailers, checks it out, and starts incumbent there", async () => {
    const { repo, seed } = await newRepo();
    expect(rawGit(repo, ["rev-parse", "main"])).toBe(seed);
    expect(await branchCommit(repo, "incumbent")).toBe(seed);
    expect(await readTree(repo, seed)).toEqual(SEED_FILES);
    expect(await readFile(join(repo, "system.md"), "utf8")).toBe(SEED_FILES["system.md"]);
    expect(rawGit(repo, ["status", "--porcelain"])).toBe("");
    expect(rawGit(repo, ["config", "user.email"])).toBe("hsearch@localhost");
    const info = await commitInfo(repo, seed);
    expect(info.rationale).toBe("seed: abandon");
    expect(info.parents).toEqual([]);
    expect(info.trailers).toEqual({
      "Hsearch-Run": RUN,
      "Hsearch-Round": "0",
      "Hsearch-Proposal": "0",
      "Hsearch-Proposer": "seed",
    });
    expect(rawGit(repo, ["log", "-1", "--format=%an <%ae>|%cn"])).toBe("hsearch <hsearch@localhost>|hsearch");
  });

  it("is idempotent for a resumed run and leaves a moved incumbent alone", async () => {
    const { repo, seed } = await newRepo();
    const { commit } = await commitProposal(repo, proposal(seed, { "playbook.yaml": "rules: [a]\n" }));
    await moveIncumbent(repo, commit);
    const again = await initHarnessRepo(repo, await seedHarness(), { runId: RUN });
    expect(again).toMatchObject({ seed, created: false });
    expect(await branchCommit(repo, "incumbent")).toBe(commit);
  });

  it("refuses to resume a repository of another run or over a different seed", async () => {
    const { repo } = await newRepo();
    await expectCode(
      initHarnessRepo(repo, await seedHarness(), { runId: "other-run" }),
      "conflict",
      "other-run",
    );
    const changed = await seedHarness({ ...SEED_FILES, "system.md": "changed\n" });
    await expectCode(
      initHarnessRepo(repo, changed, { runId: RUN }),
      "conflict",
      "branch main already exists",
    );
  });

  it("refuses a seed harness holding a symlink that points outside", async () => {
    const seedDir = await seedHarness();
    await symlink("/etc", join(seedDir, "outside"));
    const repo = join(await tempDir(), "harness");
    await expectCode(initHarnessRepo(repo, seedDir, { runId: RUN }), "bad_input", "'outside' is a symlink");
  });

  it("reports a missing seed directory as not_found", async () => {
    const repo = join(await tempDir(), "harness");
    await expectCode(initHarnessRepo(repo, join(repo, "nope"), { runId: RUN }), "not_found", "nope");
  });
});

describe("commitProposal", () => {
  it("commits on round-<r>/p<k> with the incumbent as parent and the rationale plus trailers as message", async () => {
    const { repo, seed } = await newRepo();
    const result = await commitProposal(repo, {
      ...proposal(seed, { "playbook.yaml": "rules:\n  - id: owner\n", "prompts/self-check.md": null }),
      round: 2,
      proposal: 1,
      trailers: { run: RUN, proposer: "operators", extra: { "Hsearch-Operator": "distil-rule" } },
    });
    expect(result.branch).toBe("round-2/p1");
    expect(result.parent).toBe(seed);
    expect(await branchCommit(repo, "round-2/p1")).toBe(result.commit);
    const info = await commitInfo(repo, result.commit);
    expect(info.parents).toEqual([seed]);
    expect(info.message).toBe(
      "Distil a stopping rule from the order-owner mismatch.\n\n" +
        `Hsearch-Run: ${RUN}\nHsearch-Round: 2\nHsearch-Proposal: 1\nHsearch-Proposer: operators\n` +
        "Hsearch-Operator: distil-rule",
    );
    expect(
      rawGit(repo, ["log", "-1", "--format=%(trailers:key=Hsearch-Round,valueonly)", result.commit]),
    ).toBe("2");
    const files = await readTree(repo, result.commit);
    expect(files["playbook.yaml"]).toBe("rules:\n  - id: owner\n");
    expect(files).not.toHaveProperty("prompts/self-check.md");
    expect(files["system.md"]).toBe(SEED_FILES["system.md"]);
    // The repository's own index and working tree are untouched.
    expect(rawGit(repo, ["status", "--porcelain"])).toBe("");
    expect(rawGit(repo, ["rev-parse", "HEAD"])).toBe(seed);
  });

  it.each([
    ["../x", "leaves or aliases"],
    ["/etc/x", "absolute path"],
    [".git/config", "inside .git"],
    ["prompts/../../x", "leaves or aliases"],
    ["prompts//x", "empty path segment"],
    ["system.md/x", "'system.md' is a file"],
    ["missing.md", "does not exist"],
  ])("refuses the path %s with bad_input naming it", async (path, why) => {
    const { repo, seed } = await newRepo();
    const files: Record<string, string | null> = { [path]: path === "missing.md" ? null : "x" };
    await expectCode(commitProposal(repo, proposal(seed, files)), "bad_input", why);
    await expectCode(commitProposal(repo, proposal(seed, files)), "bad_input", `'${path}'`);
    expect(await listProposalBranches(repo)).toEqual([]);
  });

  it("refuses a path through a symlink in the working directory that points outside", async () => {
    const { repo, seed } = await newRepo();
    const outside = await tempDir("hsearch-outside-");
    await symlink(outside, join(repo, "evil"));
    await expectCode(
      commitProposal(repo, proposal(seed, { "evil/x.md": "x" })),
      "bad_input",
      "'evil' is a symlink",
    );
    expect(await readdir(outside)).toEqual([]);
  });

  it("refuses a path through a symlink committed in the parent tree", async () => {
    const { repo, seed } = await newRepo();
    // A hand-tampered repository: a commit whose tree holds `link -> /etc`.
    const blob = rawGit(repo, ["hash-object", "-w", "--stdin"], "/etc");
    rawGit(repo, ["update-index", "--add", "--cacheinfo", `120000,${blob},link`]);
    const tree = rawGit(repo, ["write-tree"]);
    const tampered = rawGit(repo, ["commit-tree", tree, "-p", seed, "-m", "tamper"]);
    await expectCode(
      commitProposal(repo, proposal(tampered, { "link/passwd": "x" })),
      "bad_input",
      "symlink",
    );
    await expectCode(readTree(repo, tampered), "bad_input", "symlink at 'link'");
  });

  it("refuses an empty rationale and a multi-line trailer", async () => {
    const { repo, seed } = await newRepo();
    await expectCode(
      commitProposal(repo, { ...proposal(seed, { "a.md": "a" }), rationale: "  \n" }),
      "bad_input",
      "rationale",
    );
    await expectCode(
      commitProposal(repo, {
        ...proposal(seed, { "a.md": "a" }),
        trailers: { run: RUN, proposer: "llm\nx" },
      }),
      "bad_input",
      "Hsearch-Proposer",
    );
  });

  it("refuses a proposal whose run trailer names another run", async () => {
    const { repo, seed } = await newRepo();
    const other = {
      ...proposal(seed, { "a.md": "a" }),
      trailers: { run: "other-run", proposer: "operators" },
    };
    await expectCode(commitProposal(repo, other), "conflict", "other-run");
  });

  it("reports an unknown parent as not_found", async () => {
    const { repo } = await newRepo();
    await expectCode(commitProposal(repo, proposal("deadbeef", { "a.md": "a" })), "not_found", "deadbeef");
  });

  it("is idempotent: the same proposal gives the same sha and accepts its existing branch", async () => {
    const { repo, seed } = await newRepo();
    const first = await commitProposal(repo, proposal(seed, { "playbook.yaml": "rules: [a]\n" }));
    const second = await commitProposal(repo, proposal(seed, { "playbook.yaml": "rules: [a]\n" }));
    expect(second).toEqual(first);
    await expectCode(
      commitProposal(repo, proposal(seed, { "playbook.yaml": "rules: [b]\n" })),
      "conflict",
      "round-1/p0 already exists",
    );
  });

  it("gives the same SHAs in two fresh repositories of the same run", async () => {
    const shas = [];
    for (let i = 0; i < 2; i++) {
      const { repo, seed } = await newRepo();
      const { commit } = await commitProposal(repo, proposal(seed, { "playbook.yaml": "rules: [a]\n" }));
      shas.push({ seed, commit });
    }
    expect(shas[1]).toEqual(shas[0]);
    expect(shas[0]?.seed).toMatch(/^[0-9a-f]{40}$/);
  });

  it("gives a different commit date, hence SHAs, when the run sets one", async () => {
    const repo = join(await tempDir(), "harness");
    const { seed } = await initHarnessRepo(repo, await seedHarness(), {
      runId: RUN,
      commitDate: "2026-11-29T23:01:00Z",
    });
    expect(seed).not.toBe((await newRepo()).seed);
    expect(rawGit(repo, ["log", "-1", "--format=%aI|%cI"])).toBe(
      "2026-11-29T23:01:00+00:00|2026-11-29T23:01:00+00:00",
    );
  });
});

describe("trees, refs, diff, materialize and export", () => {
  it("gives equal tree hashes to identical trees and different ones otherwise", async () => {
    const { repo, seed } = await newRepo();
    const a = await commitProposal(repo, proposal(seed, { "playbook.yaml": "rules: [a]\n" }));
    const b = await commitProposal(repo, {
      ...proposal(seed, { "playbook.yaml": "rules: [a]\n" }),
      proposal: 1,
    });
    const c = await commitProposal(repo, {
      ...proposal(seed, { "playbook.yaml": "rules: [c]\n" }),
      proposal: 2,
    });
    expect(a.commit).not.toBe(b.commit);
    expect(await treeHash(repo, a.commit)).toBe(await treeHash(repo, b.commit));
    expect(await treeHash(repo, c.commit)).not.toBe(await treeHash(repo, a.commit));
    const unchanged = await commitProposal(repo, {
      ...proposal(seed, { "system.md": SEED_FILES["system.md"] ?? "" }),
      proposal: 3,
    });
    expect(await treeHash(repo, unchanged.commit)).toBe(await treeHash(repo, seed));
    expect((await listProposalBranches(repo)).map((branch) => [branch.branch, branch.commit])).toEqual([
      ["round-1/p0", a.commit],
      ["round-1/p1", b.commit],
      ["round-1/p2", c.commit],
      ["round-1/p3", unchanged.commit],
    ]);
  });

  it("moves incumbent and tags the selected harness once", async () => {
    const { repo, seed } = await newRepo();
    const { commit } = await commitProposal(repo, proposal(seed, { "playbook.yaml": "rules: [a]\n" }));
    await moveIncumbent(repo, commit);
    expect(await branchCommit(repo, "incumbent")).toBe(commit);
    expect(await tagSelected(repo, commit)).toBe(commit);
    expect(await tagSelected(repo, commit)).toBe(commit);
    expect(await resolveCommit(repo, "selected")).toBe(commit);
    await expectCode(tagSelected(repo, seed), "conflict", "already marks");
  });

  it("diffs a proposal against its parent", async () => {
    const { repo, seed } = await newRepo();
    const { commit } = await commitProposal(
      repo,
      proposal(seed, { "playbook.yaml": "rules:\n  - id: owner-mismatch\n", "prompts/self-check.md": null }),
    );
    const text = await diff(repo, commit);
    expect(text).toContain("diff --git a/playbook.yaml b/playbook.yaml");
    expect(text).toContain("-rules: []");
    expect(text).toContain("+  - id: owner-mismatch");
    expect(text).toContain("deleted file mode 100644");
    expect(await diff(repo, commit, seed)).toBe(text);
    expect(await diff(repo, seed)).toContain("new file mode 100644");
  });

  it("materializes a commit into an empty directory without touching the repository", async () => {
    const { repo, seed } = await newRepo();
    const { commit } = await commitProposal(repo, proposal(seed, { "prompts/report.md": "Report.\n" }));
    const dest = join(await tempDir(), "candidate");
    const paths = await materialize(repo, commit, dest);
    expect(paths.sort()).toEqual([...Object.keys(SEED_FILES), "prompts/report.md"].sort());
    expect(await readFile(join(dest, "prompts/report.md"), "utf8")).toBe("Report.\n");
    expect(rawGit(repo, ["status", "--porcelain"])).toBe("");
    await expectCode(materialize(repo, commit, dest), "conflict", "not empty");
  });

  it("exports a self-contained harness with provenance", async () => {
    const { repo, seed } = await newRepo();
    const { commit } = await commitProposal(repo, proposal(seed, { "playbook.yaml": "rules: [a]\n" }));
    const out = join(await tempDir(), "export");
    await exportHarness(repo, commit, out, { score: 0.62, round: 1 });
    expect(await readFile(join(out, "playbook.yaml"), "utf8")).toBe("rules: [a]\n");
    expect(await readFile(join(out, "system.md"), "utf8")).toBe(SEED_FILES["system.md"]);
    const provenance = JSON.parse(await readFile(join(out, "provenance.json"), "utf8"));
    expect(provenance).toMatchObject({ run: RUN, commit, score: 0.62, round: 1 });
    expect(provenance.tree).toBe(await treeHash(repo, commit));
    expect(provenance.trailers["Hsearch-Proposer"]).toBe("operators");
  });

  it("keeps an earlier provenance.json when exporting a harness that was seeded from an export", async () => {
    const repo = join(await tempDir(), "harness");
    const seedDir = await seedHarness();
    await writeFiles(seedDir, { "provenance.json": '{"run":"earlier"}\n' });
    const { seed } = await initHarnessRepo(repo, seedDir, { runId: RUN });
    const out = join(await tempDir(), "export");
    await exportHarness(repo, seed, out);
    const provenance = JSON.parse(await readFile(join(out, "provenance.json"), "utf8"));
    expect(provenance).toMatchObject({ run: RUN, commit: seed, previous_provenance: { run: "earlier" } });
  });
});

describe("concurrent proposals", () => {
  it("commits a round's proposals in parallel with the same SHAs as one by one", async () => {
    const files = (k: number) => ({
      "playbook.yaml": `rules: [${k}]\n`,
      [`prompts/p${k}.md`]: `proposal ${k}\n`,
    });
    const parallel = await newRepo();
    const together = await Promise.all(
      [0, 1, 2, 3].map((k) =>
        commitProposal(parallel.repo, { ...proposal(parallel.seed, files(k)), proposal: k }),
      ),
    );
    const serial = await newRepo();
    const oneByOne = [];
    for (const k of [0, 1, 2, 3]) {
      oneByOne.push(await commitProposal(serial.repo, { ...proposal(serial.seed, files(k)), proposal: k }));
    }
    expect(together).toEqual(oneByOne);
    expect((await listProposalBranches(parallel.repo)).map((branch) => branch.commit)).toEqual(
      oneByOne.map((result) => result.commit),
    );
  });
});

describe("answers about full commit ids", () => {
  it("are read from git once: they stand when the object store is gone, refs do not, and callers get copies", async () => {
    const { repo, seed } = await newRepo();
    const { commit } = await commitProposal(
      repo,
      proposal(seed, { "playbook.yaml": "rules:\n  - id: owner\n" }),
    );
    const files = await readTree(repo, commit);
    const tree = await treeHash(repo, commit);
    const change = await diff(repo, commit);
    const info = await commitInfo(repo, commit);
    expect(change).toContain("+  - id: owner");

    await rename(join(repo, ".git", "objects"), join(repo, ".git", "objects-gone"));
    const again = await readTree(repo, commit);
    expect(again).toEqual(files);
    expect(await treeHash(repo, commit)).toBe(tree);
    expect(await diff(repo, commit)).toBe(change);
    expect(await commitInfo(repo, commit)).toEqual(info);
    // A ref can move, so it is asked of git every time (and git now fails).
    await expect(resolveCommit(repo, "incumbent")).rejects.toThrow(/incumbent/);

    again["playbook.yaml"] = "changed by a caller";
    info.parents.push("changed by a caller");
    expect((await readTree(repo, commit))["playbook.yaml"]).toBe(files["playbook.yaml"]);
    expect((await commitInfo(repo, commit)).parents).toEqual([seed]);
  });
});
