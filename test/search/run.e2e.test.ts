import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { startViewer } from "../../src/report/viewer/server";
import { openRunStore } from "../../src/store";
import type { RunStatus } from "../../src/store/run-status";
import { runCli } from "../helpers/cli";
import { type SearchConfigFile, searchConfig, writeSearchConfig } from "../helpers/search-config";
import { retailSubset } from "../helpers/task-subset";

let tasksDir: string;
let work: string;

/** The search every test here starts from: two rounds of two proposals on a small retail slice. */
function writeConfig(dir: string, overrides: Partial<SearchConfigFile> = {}, name = "search.yaml"): string {
  return writeSearchConfig(
    join(dir, name),
    searchConfig({ name: "e2e", tasks: tasksDir, rounds: 2, proposals_per_round: 2, seed: 3, ...overrides }),
  );
}

const git = (repo: string, ...args: string[]) =>
  execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" }).trim();

beforeAll(() => {
  tasksDir = retailSubset({ perFamily: 3 }).dir;
  work = mkdtempSync(join(tmpdir(), "hsearch-run-"));
});

describe("hsearch run, end to end", () => {
  let status: RunStatus;
  let runDir: string;

  beforeAll(async () => {
    const config = writeConfig(work);
    runDir = join(work, "a", "run1");
    const result = await runCli(["run", config, "--out", runDir, "--json"], { cwd: work });
    expect(result.stderr).toContain("round 2/2");
    expect(result.code).toBe(0);
    status = JSON.parse(result.stdout);
  });

  it("records rounds, proposals, the incumbent, the selection and held-out results", () => {
    expect(status.run).toBe("run1");
    expect(status.state).toBe("finished");
    expect(status.objective).toBe("joint");
    expect(status.rounds.map((r) => r.round)).toEqual([0, 1, 2]);
    expect(status.rounds[0]?.proposals[0]).toMatchObject({ id: "seed", accepted: true });
    for (const round of status.rounds.slice(1))
      for (const p of round.proposals) {
        expect(p).toHaveProperty("commit");
        expect(p).toHaveProperty("rejected_reason");
        if (p.state === "evaluated" || p.state === "rejected") expect(typeof p.score).toBe("number");
      }
    expect(status.selected?.commit).toBe(status.incumbent?.commit);
    const selected = status.heldout.selected as Record<string, { feasible: { n: number } }>;
    expect(selected.heldout).toBeDefined();
    expect(selected.independent?.feasible.n).toBe(2);
    expect(status.usage.rollouts).toBeGreaterThan(0);
  });

  it("makes each proposal a commit on its branch, with the incumbent as parent and trailers", () => {
    const repo = join(runDir, "harness");
    const proposal = status.rounds[1]?.proposals[0];
    expect(proposal).toBeDefined();
    expect(git(repo, "rev-parse", "round-1/p1")).toBe(proposal?.commit);
    expect(git(repo, "rev-parse", "round-1/p1^")).toBe(status.rounds[0]?.proposals[0]?.commit);
    const message = git(repo, "log", "-1", "--format=%B", "round-1/p1");
    expect(message).toContain("Hsearch-Run: run1");
    expect(message).toContain("Hsearch-Round: 1");
    expect(message).toContain("Hsearch-Proposer: operators");
    expect(git(repo, "rev-parse", "selected^{commit}")).toBe(status.selected?.commit);
    expect(git(repo, "rev-parse", "incumbent")).toBe(status.selected?.commit);
  });

  it("status prints the same object, and a table", async () => {
    const json = await runCli(["status", runDir, "--json"], { cwd: work });
    expect(JSON.parse(json.stdout)).toEqual(status);
    const table = await runCli(["status", runDir], { cwd: work });
    expect(table.stdout).toMatch(/round\s+proposal\s+parent\s+commit\s+score\s+verdict/);
    // Each proposal names its parent: round 1 proposes from the seed.
    expect(table.stdout).toMatch(/\n\s+1\s+r1p1\s+seed\s+[0-9a-f]{10}/);
  });

  it("diff shows the change of a proposal against its parent", async () => {
    const result = await runCli(["diff", runDir, "--round", "1", "--proposal", "1"], { cwd: work });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("diff --git");
    expect(result.stdout).toContain("# round 1 proposal 1");
    const missing = await runCli(["diff", runDir, "--round", "9"], { cwd: work });
    expect(missing.code).toBe(2);
    for (const [flag, value] of [
      ["--round", "abc"],
      ["--proposal", "1.5"],
    ] as const) {
      const args = flag === "--round" ? [flag, value] : ["--round", "1", flag, value];
      const bad = await runCli(["diff", runDir, ...args], { cwd: work });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(`${flag} must be a whole number ≥ 0, got '${value}'`);
    }
  });

  it("export writes a harness that eval accepts", async () => {
    const out = join(work, "exported");
    const exported = await runCli(["export", runDir, "--out", out], { cwd: work });
    expect(exported.code).toBe(0);
    const provenance = JSON.parse(readFileSync(join(out, "provenance.json"), "utf8"));
    expect(provenance).toMatchObject({ run: "run1", commit: status.selected?.commit });
    expect(provenance.scores.search.score).toBe(status.selected?.score);
    const evaluated = await runCli(["eval", "--harness", out, "--tasks", tasksDir, "--json"], { cwd: work });
    expect(evaluated.code).toBe(0);
    expect(JSON.parse(evaluated.stdout).summary.blocked.n).toBeGreaterThan(0);
  });

  it("the same config and seed give the same run", async () => {
    const again = await runCli(["run", writeConfig(work), "--out", join(work, "b", "run1"), "--json"], {
      cwd: work,
    });
    expect(again.code).toBe(0);
    const other = JSON.parse(again.stdout) as RunStatus;
    const strip = (s: RunStatus) => s.rounds.map((r) => r.proposals.map((p) => [p.commit, p.score, p.state]));
    expect(strip(other)).toEqual(strip(status));
    const a = openRunStore(runDir, { readonly: true });
    const b = openRunStore(join(work, "b", "run1"), { readonly: true });
    expect(b.contentHash()).toBe(a.contentHash());
    a.close();
    b.close();
  }, 240_000);

  it("refuses to start over an existing run directory, and resumes a finished one as a no-op", async () => {
    const clash = await runCli(["run", writeConfig(work), "--out", runDir], { cwd: work });
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/already exists/);
    const resumed = await runCli(["run", "--resume", runDir, "--json"], { cwd: work });
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout).selected).toEqual(status.selected);
  });
});

describe("hsearch run with paired acceptance and a screen", () => {
  it("records accepted, rejected, indecisive and screened-out proposals, and never accepts from the screen", async () => {
    const config = writeConfig(work, {
      acceptance: {
        rule: "paired",
        alpha: 0.1,
        max_extra_repeats: 1,
        screen: { fraction: 0.5, reject_below: 0.05 },
      },
      rounds: 3,
    });
    const runDir = join(work, "paired", "run");
    const result = await runCli(["run", config, "--out", runDir, "--json"], {
      cwd: work,
    });
    expect(result.code, result.stderr).toBe(0);
    const status = JSON.parse(result.stdout) as RunStatus;
    const proposals = status.rounds.slice(1).flatMap((r) => r.proposals);
    expect(proposals.length).toBeGreaterThan(0);
    for (const p of proposals) {
      if (p.verdict === "screened_out") {
        expect(p.accepted).toBe(false);
        expect(p.score).toBeNull();
        expect(p.rejected_reason).toMatch(/^screened out/);
      }
      if (p.accepted) expect(p.verdict).toBe("accepted");
      if (p.verdict === "indecisive") expect(p.rejected_reason).toMatch(/^close call: /);
      if (p.verdict === "rejected") expect(p.rejected_reason).toMatch(/^p = /);
      if (p.state === "evaluated" || p.state === "rejected") expect(p.verdict).not.toBeNull();
    }
    expect(status.state).toBe("finished");
  }, 240_000);

  it("shows an accepted proposal's paired test where it is reviewed: the report's change and its candidate page", async () => {
    // A lenient α so that this small run accepts proposals under the paired rule; the candidate row keeps no reason
    // for an accepted proposal, the round's decision does.
    const config = writeConfig(work, {
      acceptance: { rule: "paired", alpha: 0.9, max_extra_repeats: 0 },
    });
    const runDir = join(work, "paired-lenient", "run");
    const result = await runCli(["run", config, "--out", runDir, "--json"], { cwd: work });
    expect(result.code, result.stderr).toBe(0);
    const status = JSON.parse(result.stdout) as RunStatus;
    const accepted = status.rounds.slice(1).flatMap((r) => r.proposals.filter((p) => p.accepted));
    expect(accepted.length).toBeGreaterThan(0);
    const report = join(work, "paired-lenient", "report.html");
    expect((await runCli(["report", runDir, "--out", report], { cwd: work })).code).toBe(0);
    const html = readFileSync(report, "utf8");
    const viewer = await startViewer({ runDir, port: 0 });
    try {
      for (const p of accepted) {
        const change = html.split('<div class="change">').find((c) => c.includes(` · ${p.id} · `));
        expect(change, p.id).toMatch(/verdict: p = 0\.\d{4} ≤ α = 0\.45/);
        const page = await fetch(
          `http://127.0.0.1:${viewer.port}/candidates/${p.commit}?token=${viewer.token}`,
        );
        expect(await page.text()).toMatch(/accepted: p = 0\.\d{4} ≤ α = 0\.45/);
      }
    } finally {
      await viewer.close();
    }
    // A whole search of 2 rounds, then the report: seconds idle, minutes under load.
  }, 300_000);
});

describe("hsearch run, bad input", () => {
  it("a config error names the file, field and line, exits 2 and creates no run", async () => {
    const file = join(work, "bad.yaml");
    writeFileSync(
      file,
      "name: bad\nsuites: [retail]\nobjective: maximal\nseed_harness: harnesses/bare\nrounds: 1\nproposals_per_round: 1\ntask_model: sim:default\n",
    );
    const out = join(work, "never");
    const result = await runCli(["run", file, "--out", out], { cwd: work });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:3: field 'objective'`);
    expect(existsSync(out)).toBe(false);
  });

  it("a missing seed harness and an unknown model are bad input, and create no run", async () => {
    const file = writeConfig(work, { task_model: "sim:nope" }, "badmodel.yaml");
    const model = await runCli(["run", file, "--out", join(work, "x2")], { cwd: work });
    expect(model.code).toBe(2);
    expect(model.stderr).toMatch(/unknown sim profile 'nope'/);
    expect(existsSync(join(work, "x2"))).toBe(false);
    const harnessFile = writeConfig(work, { seed_harness: "harnesses/none" }, "badharness.yaml");
    const harness = await runCli(["run", harnessFile, "--out", join(work, "x3")], { cwd: work });
    expect(harness.code).toBe(2);
    expect(harness.stderr).toMatch(/seed_harness/);
    expect(existsSync(join(work, "x3"))).toBe(false);
  });

  it("an alias bomb in a config is bad input naming the file, not an internal error", async () => {
    const file = join(work, "bomb.yaml");
    const levels = ["x0: &x0 [a, a, a, a, a, a, a, a, a]"];
    for (let i = 1; i <= 6; i++)
      levels.push(
        `x${i}: &x${i} [${Array(9)
          .fill(`*x${i - 1}`)
          .join(", ")}]`,
      );
    writeFileSync(file, `${readFileSync(writeConfig(work), "utf8")}\n${levels.join("\n")}\n`);
    const result = await runCli(["run", file, "--out", join(work, "x4")], { cwd: work });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toMatch(/aliases expand past the limit/);
    expect(existsSync(join(work, "x4"))).toBe(false);
  });

  it("an empty tasks directory is reported against the field tasks, not suites", async () => {
    const empty = mkdtempSync(join(tmpdir(), "hsearch-empty-tasks-"));
    const file = writeConfig(work, { tasks: empty }, "empty-tasks.yaml");
    const result = await runCli(["run", file, "--out", join(work, "x5")], { cwd: work });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}: field 'tasks': no task file`);
    expect(existsSync(join(work, "x5"))).toBe(false);
  });

  it("resume of an unknown run is bad input", async () => {
    const result = await runCli(["run", "--resume", join(work, "nope")], { cwd: work });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no run/);
  });
});
