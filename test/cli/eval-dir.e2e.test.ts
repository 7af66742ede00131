/**
 * `hsearch eval` keeps its episodes in an evaluation directory (run.db of kind `eval`, the harness committed,
 * trajectories), which status, report and view open; `eval --resume DIR` after SIGKILL ends with the same result as
 * an uninterrupted evaluation; bad directories are exit 2 naming the path.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { createRunDir, openRunStore } from "../../src/store";
import { runCli } from "../helpers/cli";
import { compiledCli } from "../helpers/compiled-package";
import { finished } from "../helpers/run-summary";
import { signalAtRollouts, withSignalPreload } from "../helpers/signal-at-rollouts";
import { retailSubset } from "../helpers/task-subset";

/** The compiled CLI (test/helpers/compiled-package.ts), which this file starts as a child process. */
let cli: string[];
beforeAll(async () => {
  cli = await compiledCli();
}, 300_000);

const HARNESS = join(PACKAGE_ROOT, "harnesses", "abandon");
let work: string;
let tasks: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "hsearch-eval-dir-"));
  // 2 blocked tasks per family with their feasible counterparts, and 2 independent ones: 14 episodes.
  tasks = retailSubset({ perFamily: 2, heldoutPerFamily: 0, independent: 2 }).dir;
});

/** The report without usage: a resumed evaluation makes more model calls (the episodes in flight), same result. */
function outcome(report: { summary: Record<string, unknown> }) {
  const { usage: _usage, ...summary } = report.summary;
  return { ...report, summary };
}

function hsearch(args: string[], env?: NodeJS.ProcessEnv): ChildProcess {
  const node = env ? withSignalPreload(cli) : cli;
  return spawn(process.execPath, [...node, ...args], {
    cwd: work,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
}

describe("hsearch eval --out", () => {
  it("keeps every episode in the directory; --json is the report as before; status and report open it", async () => {
    const dir = join(work, "kept");
    const result = await runCli(["eval", "--harness", HARNESS, "--tasks", tasks, "--out", dir, "--json"], {
      cwd: work,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`evaluation directory ${dir}`);
    const report = JSON.parse(result.stdout);
    expect(Object.keys(report).sort()).toEqual(
      ["by_suite", "harness", "infra_error_details", "model", "repeats", "seed", "summary", "tasks"].sort(),
    );
    expect(report.summary.n_total).toBe(14);

    const store = openRunStore(dir, { readonly: true });
    try {
      const run = store.getRun();
      expect(run).toMatchObject({ kind: "eval", objective: null, state: "finished" });
      const config = run?.config as {
        harness: { hash: string; commit: string; label: string };
        models: Record<string, string>;
        repeats: number;
      };
      expect(config.harness.label).toBe(HARNESS);
      expect(config.models).toEqual({ agent: "sim:default", judge: "rules", customer: "auto" });
      const candidates = store.listCandidates();
      expect(candidates.map((c) => c.commit)).toEqual([config.harness.commit]);
      const rollouts = store.listRollouts(config.harness.commit);
      expect(rollouts).toHaveLength(14);
      // Each episode under its task's split; every trajectory records the evaluated harness's content hash.
      expect(new Set(rollouts.map((r) => `${r.purpose}=${r.split}`))).toEqual(
        new Set(["search=search", "independent=independent"]),
      );
      for (const rollout of rollouts) expect(store.readTrajectory(rollout).harness).toBe(config.harness.hash);
    } finally {
      store.close();
    }
    expect(readFileSync(join(dir, "harness", "system.md"), "utf8")).toBe(
      readFileSync(join(HARNESS, "system.md"), "utf8"),
    );

    const status = await runCli(["status", dir, "--json"], { cwd: work });
    expect(status.code, status.stderr).toBe(0);
    const parsed = JSON.parse(status.stdout);
    expect(parsed.evaluation).toMatchObject({ state: "finished", episodes_planned: 14, episodes_stored: 14 });
    expect(outcome(parsed)).toMatchObject(outcome(report));
    const text = await runCli(["status", dir], { cwd: work });
    expect(text.stdout).toMatch(/^evaluation kept · finished · 14\/14 episodes stored/);
    expect(text.stdout).toMatch(/feasible\s+n\s+solve/);

    const html = await runCli(["report", dir], { cwd: work });
    expect(html.code, html.stderr).toBe(0);
    const page = readFileSync(join(dir, "report.html"), "utf8");
    expect(page).toContain("Evaluation kept");
    expect(page.match(/<tr data-outcome=/g)).toHaveLength(14);
  });

  it("goes to runs/<id> under the working directory without --out, and says where", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "hsearch-eval-default-"));
    const result = await runCli(
      ["eval", "--harness", HARNESS, "--tasks", tasks, "--kind", "blocked", "--family", "trap"],
      { cwd },
    );
    expect(result.code, result.stderr).toBe(0);
    const made = readdirSync(join(cwd, "runs"));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(/^\d{8}-\d{4}-eval-abandon-[0-9a-f]{4}$/);
    expect(result.stderr).toContain(`evaluation directory ${join(cwd, "runs", made[0] as string)}`);
  });
});

describe("hsearch eval --resume", () => {
  it("after SIGKILL ends with the same summary as an uninterrupted evaluation, reusing the stored episodes", async () => {
    const reference = await runCli(
      ["eval", "--harness", HARNESS, "--tasks", tasks, "--out", join(work, "whole"), "--json"],
      { cwd: work },
    );
    expect(reference.code, reference.stderr).toBe(0);

    const dir = join(work, "killed");
    const killed = await finished(
      hsearch(
        ["eval", "--harness", HARNESS, "--tasks", tasks, "--out", dir, "--concurrency", "2"],
        signalAtRollouts(5),
      ),
    );
    expect(killed.signal, killed.stderr).toBe("SIGKILL");
    const partial = await runCli(["status", dir, "--json"], { cwd: work });
    const before = JSON.parse(partial.stdout).evaluation;
    expect(before).toMatchObject({ state: "running", episodes_planned: 14 });
    expect(before.episodes_stored).toBeGreaterThanOrEqual(5);
    expect(before.episodes_stored).toBeLessThan(14);
    const text = await runCli(["status", dir], { cwd: work });
    expect(text.stdout).toContain(`continue it with: hsearch eval --resume ${dir}`);

    const resumed = await runCli(["eval", "--resume", dir, "--json"], { cwd: work });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `${before.episodes_stored} of 14 episodes are stored and read back from the directory; running the other ${14 - before.episodes_stored}`,
    );
    expect(outcome(JSON.parse(resumed.stdout))).toEqual(outcome(JSON.parse(reference.stdout)));
    const after = JSON.parse((await runCli(["status", dir, "--json"], { cwd: work })).stdout);
    expect(after.evaluation).toMatchObject({ state: "finished", episodes_stored: 14 });

    // Finished: a second resume runs nothing and prints the same report.
    const again = await runCli(["eval", "--resume", dir, "--json"], { cwd: work });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("already finished");
    expect(outcome(JSON.parse(again.stdout))).toEqual(outcome(JSON.parse(reference.stdout)));
  }, 240_000);
});

describe("bad evaluation directories", () => {
  it("--resume of a directory that is not an evaluation is exit 2 naming it", async () => {
    const empty = join(work, "empty");
    mkdirSync(empty);
    const none = await runCli(["eval", "--resume", empty], { cwd: work });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(join(empty, "run.db"));

    const search = createRunDir(work, "a-search").dir;
    const store = openRunStore(search);
    store.initRun({ id: "a-search", name: "s", config: {}, seed: 1, objective: "joint" });
    store.close();
    const notEval = await runCli(["eval", "--resume", search], { cwd: work });
    expect(notEval.code).toBe(2);
    expect(notEval.stderr).toContain(
      `${search}: ${search} holds a search run (hsearch run), not an evaluation`,
    );

    const withHarness = await runCli(["eval", "--resume", search, "--harness", HARNESS], { cwd: work });
    expect(withHarness.code).toBe(2);
    expect(withHarness.stderr).toContain(
      "--resume takes the evaluation from its directory; give no --harness",
    );
  });

  it("--out onto an existing non-empty run is exit 2 naming it, and leaves it as it was", async () => {
    const taken = createRunDir(work, "taken").dir;
    writeFileSync(join(taken, "notes.txt"), "mine\n");
    const result = await runCli(["eval", "--harness", HARNESS, "--tasks", tasks, "--out", taken], {
      cwd: work,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${taken}: run directory ${taken} already exists`);
    expect(readdirSync(taken).sort()).toEqual(["notes.txt", "trajectories"]);
    // An existing empty directory is taken (`--out "$(mktemp -d)"`).
    const empty = join(work, "made-empty");
    mkdirSync(empty);
    const into = await runCli(
      ["eval", "--harness", HARNESS, "--tasks", tasks, "--kind", "feasible", "--out", empty],
      { cwd: work },
    );
    expect(into.code, into.stderr).toBe(0);
    expect(existsSync(join(empty, "run.db"))).toBe(true);
  });

  it("bad input found before the directory is made leaves none", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "hsearch-eval-refused-"));
    const result = await runCli(["eval", "--harness", HARNESS, "--tasks", tasks, "--model", "gpt"], { cwd });
    expect(result.code).toBe(2);
    expect(existsSync(join(cwd, "runs"))).toBe(false);
  });
});
