import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { openRunStore } from "../../src/store";
import { SOURCE_CLI } from "../helpers/cli";
import { retailSubset } from "../helpers/task-subset";

let work: string;
const configs: Record<"greedy" | "pareto", string> = { greedy: "", pareto: "" };
function hsearch(args: string[]): ChildProcess {
  return spawn(process.execPath, [...SOURCE_CLI, ...args], { cwd: work, stdio: ["ignore", "pipe", "pipe"] });
}

function finished(
  child: ChildProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, stderr })));
}

function storedRollouts(runDir: string): number {
  const file = join(runDir, "run.db");
  if (!existsSync(file)) return 0;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare("SELECT COUNT(*) AS n FROM rollouts").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0; // the schema may not exist yet
  }
}

function summary(runDir: string) {
  const store = openRunStore(runDir, { readonly: true });
  try {
    const keys = store
      .listCandidates()
      .flatMap((c) =>
        (["search", "heldout", "independent"] as const).flatMap((p) =>
          store.listRollouts(c.commit, p).map((r) => `${p}:${r.key}`),
        ),
      );
    return {
      hash: store.contentHash(),
      selected: store.listRounds().at(-1)?.incumbent_after,
      scores: store.listCandidates().map((c) => [c.commit, c.state, c.score]),
      keys: keys.sort(),
      total: store.countRollouts(),
      state: store.getRun()?.state,
    };
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "hsearch-resume-"));
  const tasks = retailSubset({ perFamily: 8, heldoutPerFamily: 3, independent: 4 }).dir;
  for (const strategy of ["greedy", "pareto"] as const) {
    configs[strategy] = join(work, `search-${strategy}.yaml`);
    writeFileSync(
      configs[strategy],
      `name: resume\nsuites: [retail]\ntasks: ${tasks}\nobjective: joint\nseed_harness: harnesses/bare\nrounds: 3\nproposals_per_round: 2\ntask_model: sim:default\nseed: 5\nconcurrency: 4\nstrategy: ${strategy}\n`,
    );
  }
});

// Kill points spread over the search: during R0, mid-search, and in the last rounds (the final evaluation is ~12%
// of the rollouts and over in a blink, too short to land a kill in reliably). Pareto's parent draw and front are
// read back from earlier rounds, so it resumes to the same selection too.
const KILL_POINTS = { greedy: [0.1, 0.45, 0.7, 0.8], pareto: [0.45, 0.8] } as const;

for (const strategy of ["greedy", "pareto"] as const)
  describe(`hsearch run --resume after SIGKILL (strategy ${strategy})`, () => {
    const config = () => configs[strategy];
    let reference: ReturnType<typeof summary>;

    beforeAll(async () => {
      const run = await finished(hsearch(["run", config(), "--out", join(work, strategy, "clean", "run")]));
      expect(run.code, run.stderr).toBe(0);
      reference = summary(join(work, strategy, "clean", "run"));
    });

    for (const fraction of KILL_POINTS[strategy]) {
      it(`ends where an uninterrupted run ends when killed at ${Math.round(fraction * 100)}% of its rollouts`, async () => {
        const runDir = join(work, strategy, `killed-${fraction}`, "run");
        const child = hsearch(["run", config(), "--out", runDir]);
        const exit = finished(child);
        const target = Math.max(1, Math.floor(reference.total * fraction));
        while (child.exitCode === null && storedRollouts(runDir) < target)
          await new Promise((r) => setTimeout(r, 10));
        child.kill("SIGKILL");
        const killed = await exit;
        expect(killed.signal).toBe("SIGKILL");
        const partial = summary(runDir);
        expect(partial.state).toBe("running");
        expect(partial.total).toBeLessThan(reference.total);

        const resumed = await finished(hsearch(["run", "--resume", runDir]));
        expect(resumed.code, resumed.stderr).toBe(0);
        const after = summary(runDir);
        expect(after.state).toBe("finished");
        expect(after.selected).toBe(reference.selected);
        expect(after.scores).toEqual(reference.scores);
        // No rollout lost or stored twice.
        expect(after.keys).toEqual(reference.keys);
        expect(new Set(after.keys).size).toBe(after.keys.length);
        expect(after.hash).toBe(reference.hash);
      });
    }
  });

describe("a run in use", () => {
  it("a second process cannot work on a run that is in use", async () => {
    const runDir = join(work, "locked", "run");
    const child = hsearch(["run", configs.greedy, "--out", runDir]);
    const exit = finished(child);
    while (child.exitCode === null && storedRollouts(runDir) < 5) await new Promise((r) => setTimeout(r, 10));
    const second = await finished(hsearch(["run", "--resume", runDir]));
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/in use by process/);
    expect((await exit).code).toBe(0);
  });
});
