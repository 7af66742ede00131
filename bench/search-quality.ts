// Search quality (issue 11.5): the shipped retail and terminal joint configs with `sim:default` and the offline
// `operators` proposer, over 5 seeds per strategy (greedy, pareto): per setting, the selected harness's held-out strict
// SA, held-out joint score and independent solve (mean ± SD over seeds), and the search rollouts spent. Both strategies
// evaluate the same number of candidates per round, so they spend (nearly) the same rollouts.
// `nice npx tsx bench/search-quality.ts [--seeds N|A-B] [--suites retail,terminal] [--strategies greedy,pareto] [--rounds R]` (retail ≈ 1 min a search
// on an idle 2-core machine; terminal runs real sandboxed commands and takes several minutes a search).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import type { CliIO } from "../src/cli/io";
import { main } from "../src/cli/main";
import { PACKAGE_ROOT } from "../src/core/paths";
import { openRunStore } from "../src/store";
import { runStatus } from "../src/store/run-status";

const arg = (name: string, fallback: string): string => {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
};
// `--seeds 5` runs seeds 1–5; `--seeds 4-5` runs seeds 4 and 5 (to split a long benchmark over processes).
const [FIRST_SEED, LAST_SEED] = ((range: string) => {
  const [from, to] = range.includes("-") ? range.split("-").map(Number) : [1, Number(range)];
  return [from ?? 1, to ?? 1];
})(arg("seeds", "5"));
const SEEDS = LAST_SEED - FIRST_SEED + 1;
const SUITES = arg("suites", "retail,terminal").split(",");
const ROUNDS = arg("rounds", "");
const STRATEGIES = arg("strategies", "greedy,pareto").split(",");
const CONFIGS: Record<string, string> = {
  retail: "search-configs/retail-joint.yaml",
  terminal: "search-configs/terminal-joint.yaml",
};

const quiet: CliIO = {
  out: () => {},
  // Errors only (progress goes through errInline): a failed search says why.
  err: (text) => process.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
  errInline: () => {},
  isTTY: false,
  cwd: PACKAGE_ROOT,
  env: process.env,
};

/** The parts of `hsearch status`'s held-out block this benchmark reads. */
interface SelectedEvaluations {
  heldout?: { objective?: number; blocked?: { strict_sa?: number } };
  independent?: { feasible?: { solve?: number } };
}

interface Outcome {
  /** The selected harness's objective on the search split (what the strategies optimise). */
  searchScore: number;
  heldoutSA: number;
  heldoutJoint: number;
  independentSolve: number;
  rollouts: number;
}

async function search(suite: string, strategy: string, seed: number): Promise<Outcome> {
  const work = mkdtempSync(join(tmpdir(), "hsearch-quality-"));
  try {
    const config = parse(readFileSync(join(PACKAGE_ROOT, CONFIGS[suite] ?? ""), "utf8")) as Record<
      string,
      unknown
    >;
    Object.assign(config, { seed, strategy, seed_harness: join(PACKAGE_ROOT, String(config.seed_harness)) });
    if (ROUNDS) config.rounds = Number(ROUNDS);
    const file = join(work, "search.yaml");
    writeFileSync(file, stringify(config));
    const runDir = join(work, "run");
    const code = await main(["run", file, "--out", runDir], quiet);
    if (code !== 0) throw new Error(`${suite} ${strategy} seed ${seed}: hsearch run exited ${code}`);
    const store = openRunStore(runDir, { readonly: true });
    try {
      const status = runStatus(store);
      const selected = status.heldout.selected as SelectedEvaluations | undefined;
      const heldout = selected?.heldout;
      const independent = selected?.independent;
      const selectedCommit = store.listRounds().at(-1)?.incumbent_after ?? "";
      return {
        searchScore: store.getCandidate(selectedCommit)?.score ?? Number.NaN,
        heldoutSA: heldout?.blocked?.strict_sa ?? Number.NaN,
        heldoutJoint: heldout?.objective ?? Number.NaN,
        independentSolve: independent?.feasible?.solve ?? Number.NaN,
        rollouts: store.countRollouts("search"),
      };
    } finally {
      store.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const meanSd = (values: number[], digits = 3): string => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, values.length - 1));
  return `${mean.toFixed(digits)} ± ${sd.toFixed(digits)}`;
};

console.log(
  `| suite | proposer + strategy | search objective | held-out strict SA | held-out joint | independent solve | search rollouts | seeds |`,
);
console.log(`| --- | --- | --- | --- | --- | --- | --- | --- |`);
for (const suite of SUITES)
  for (const strategy of STRATEGIES) {
    const outcomes: Outcome[] = [];
    for (let seed = FIRST_SEED; seed <= LAST_SEED; seed++) {
      const started = Date.now();
      outcomes.push(await search(suite, strategy, seed));
      process.stderr.write(
        `${suite} ${strategy} seed ${seed}: ${JSON.stringify(outcomes.at(-1))} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
      );
    }
    console.log(
      `| ${suite} | operators + ${strategy} | ${meanSd(outcomes.map((o) => o.searchScore))} | ${meanSd(outcomes.map((o) => o.heldoutSA))} | ${meanSd(outcomes.map((o) => o.heldoutJoint))} | ${meanSd(outcomes.map((o) => o.independentSolve))} | ${meanSd(
        outcomes.map((o) => o.rollouts),
        0,
      )} | ${SEEDS} |`,
    );
  }
