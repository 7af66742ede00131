// Search quality (issue 11.5): the shipped retail and terminal joint configs with `sim:default` and the offline
// `operators` proposer, over 5 seeds per strategy (greedy, pareto): per setting, the selected harness's held-out strict
// SA, held-out joint score and independent solve (mean ± SD over seeds), and the search rollouts spent. Both strategies
// evaluate the same number of candidates per round, so they spend (nearly) the same rollouts.
// `nice npx tsx bench/search-quality.ts [--seeds N|A-B] [--suites retail,terminal] [--strategies greedy,pareto]
// [--rounds R] [--headroom] [--settings full,race-m0.1,…]` runs the searches (`--settings`, issue 22: acceptance
// settings against the full protocol, with rollouts and a non-inferiority test on held-out joint) (`--headroom` also evaluates every candidate a search scored on the
// held-out split); `--combine FILE...` reads the per-seed lines earlier runs printed on stderr instead (to join a
// benchmark split over processes). With both strategies, it prints pareto − greedy on held-out joint, seed for seed,
// with a paired bootstrap interval and a one-sided sign-flip test. (Retail ≈ 1 min a search
// on an idle 2-core machine; terminal runs real sandboxed commands and takes several minutes a search).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { stringify } from "yaml";
import { exportHarness, startRun } from "../src/api";
import type { CliIO } from "../src/cli/io";
import { main } from "../src/cli/main";
import { reportError } from "../src/cli/report-error";
import { PACKAGE_ROOT } from "../src/core/paths";
import { createRng } from "../src/core/rng";
import { type EvalSummary, objectiveScore } from "../src/scoring";
import { pairedBootstrapMeanDifference } from "../src/scoring/pairing";
import type { RaceConfig } from "../src/search/acceptance/race";
import type { SearchConfig } from "../src/search/config/config-schema";
import { loadSearchConfig } from "../src/search/config/load-config";
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
const SUITES = arg("suites", "retail,terminal").split(",");
const ROUNDS = arg("rounds", "");
const STRATEGIES = arg("strategies", "greedy,pareto").split(",");
/**
 * Issue 22: `--settings full,paired,…` compares acceptance settings (all greedy) with the full protocol (`full`:
 * acceptance greater, every proposal on every search task) — the search rollouts each spends and its selection's
 * held-out joint, paired over seeds. A setting is one of these names; strategies (`greedy`, `pareto`) keep the
 * config's acceptance.
 */
type RaceAcceptance = RaceConfig;
function race(margin: number, extra: Partial<RaceAcceptance> = {}): RaceAcceptance {
  const base: RaceAcceptance = {
    rule: "race",
    alpha: 0.2,
    margin,
    batch: 8,
    min_tasks: 32,
    order: "seeded",
    informative_weight: 4,
  };
  return { ...base, ...extra };
}
const SETTINGS: Record<string, Partial<SearchConfig>> = {
  greedy: { strategy: "greedy" },
  pareto: { strategy: "pareto" },
  full: { strategy: "greedy", acceptance: { rule: "greater", early_reject: false } },
  // greater's decisions, each proposal stopped once it can no longer beat the incumbent.
  "early-reject": { strategy: "greedy", acceptance: { rule: "greater", early_reject: true } },
  // ... and once it can no longer beat the round's leader (the same round decisions; donors may differ).
  "early-reject-leader": { strategy: "greedy", acceptance: { rule: "greater", early_reject: "leader" } },
  paired: { strategy: "greedy", acceptance: { rule: "paired", alpha: 0.1, max_extra_repeats: 2 } },
  "paired-screen": {
    strategy: "greedy",
    acceptance: {
      rule: "paired",
      alpha: 0.1,
      max_extra_repeats: 2,
      screen: { fraction: 0.25, reject_below: 0.1 },
    },
  },
  ...Object.fromEntries(
    [0.05, 0.07, 0.1].map((margin) => [
      `race-m${margin}`,
      { strategy: "greedy", acceptance: race(margin) } satisfies Partial<SearchConfig>,
    ]),
  ),
  // Racing at margin 0.05 with informative task order, successive halving within a round, or both.
  "race-informative": { strategy: "greedy", acceptance: race(0.05, { order: "informative" }) },
  "race-halving": { strategy: "greedy", acceptance: race(0.05, { halving: { keep: 0.5, first: 16 } }) },
  "race-informative-halving": {
    strategy: "greedy",
    acceptance: race(0.05, { order: "informative", halving: { keep: 0.5, first: 16 } }),
  },
};
const SETTING_NAMES = process.argv.includes("--settings") ? arg("settings", "full").split(",") : STRATEGIES;
for (const name of SETTING_NAMES)
  if (!SETTINGS[name]) throw new Error(`unknown setting ${name}: one of ${Object.keys(SETTINGS).join(", ")}`);
/** Non-inferiority margin of issue 22: a setting's held-out joint no worse than the full protocol's by this much. */
const NON_INFERIORITY = 0.01;
// `--headroom`: after each search, evaluate every candidate it scored on the held-out split too (the benchmark's
// analysis only: the search never sees these figures) — how far the selection is from the best harness the search
// produced, and how well the search objective ranks candidates by their held-out score.
const HEADROOM = process.argv.includes("--headroom");
const SHIPPED: Record<string, string> = {
  retail: "search-configs/retail-joint.yaml",
  terminal: "search-configs/terminal-joint.yaml",
};
// `--config FILE` runs your own search config instead of the shipped ones (e.g. with a real `task_model`, or the `llm`
// proposer): paths in it mean what they mean to `hsearch run` from this directory; its rounds, proposals, repeats and
// models are kept, the seed and strategy set per search. Its name labels the rows.
const USER_CONFIG = arg("config", "");

/** Where a labelled setting's config comes from, and how its relative paths resolve. */
interface ConfigSource {
  file: string;
  /** Relative seed_harness and tasks paths resolve here (the package for the shipped configs). */
  cwd: string;
}

function configSources(): Map<string, ConfigSource> {
  if (!USER_CONFIG)
    return new Map(
      SUITES.map((suite) => [suite, { file: join(PACKAGE_ROOT, SHIPPED[suite] ?? ""), cwd: PACKAGE_ROOT }]),
    );
  const file = resolve(USER_CONFIG);
  const config = loadSearchConfig(file);
  if (config.objective !== "joint")
    throw new Error(
      `${file}: objective ${config.objective}; this benchmark compares the held-out joint objective`,
    );
  return new Map([[config.name.replace(/\s+/g, "-"), { file, cwd: process.cwd() }]]);
}

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
  /** `operators` or the proposer model's spec (absent in lines of older runs: operators). */
  proposer?: string;
  /** The selected harness's objective on the search split (what the strategies optimise). */
  searchScore: number;
  heldoutSA: number;
  heldoutJoint: number;
  /** The seed harness's held-out joint (absent in lines of older runs). */
  seedHeldoutJoint?: number;
  independentSolve: number;
  rollouts: number;
  /** How the search used its candidates (pareto's front, parents and merges; greedy's accepted chain). */
  search?: SearchShape;
  headroom?: Headroom;
}

/** With `--headroom`: the held-out joint of the search's best harnesses, besides the selected one. */
interface Headroom {
  /** Candidates the search scored (the seed included). */
  scored: number;
  /** The best held-out joint of a candidate the search accepted (greedy's chain; pareto's front, past and present). */
  bestAccepted: number;
  /** The best held-out joint of any candidate the search scored. */
  bestScored: number;
  /** Spearman's rank correlation of search objective and held-out joint over the scored candidates (NaN, or null
   * when read back from JSON, where every candidate scored the same). */
  rankCorrelation: number | null;
}

interface SearchShape {
  /** The seed and every accepted candidate (greedy: the chain; pareto: every member the front admitted). */
  accepted: number;
  /** Rounds whose proposer proposals came from more than one parent. */
  roundsWithTwoParents: number;
  rounds: number;
  merges: number;
  mergesAccepted: number;
  /** The selected harness came from pareto's merge step. */
  selectedMerge: boolean;
}

async function search(suite: string, source: ConfigSource, setting: string, seed: number): Promise<Outcome> {
  const work = mkdtempSync(join(tmpdir(), "hsearch-quality-"));
  try {
    // The validated config (a models file read in, the cache directory absolute), written again with absolute paths:
    // the copy lives in a temporary directory.
    const config: SearchConfig = {
      ...loadSearchConfig(source.file),
      seed,
      ...SETTINGS[setting],
    };
    config.seed_harness = resolve(source.cwd, config.seed_harness);
    if (config.tasks) config.tasks = resolve(source.cwd, config.tasks);
    if (ROUNDS) config.rounds = Number(ROUNDS);
    const file = join(work, "search.yaml");
    writeFileSync(file, stringify(config));
    const runDir = join(work, "run");
    await startRun(file, { cwd: source.cwd, out: runDir }).result.catch((error: unknown) => {
      throw new Error(`${suite} ${setting} seed ${seed}: the run failed: ${(error as Error).message}`);
    });
    const store = openRunStore(runDir, { readonly: true });
    try {
      const status = runStatus(store);
      const selected = status.heldout.selected as SelectedEvaluations | undefined;
      const heldout = selected?.heldout;
      const independent = selected?.independent;
      const selectedCommit = store.listRounds().at(-1)?.incumbent_after ?? "";
      return {
        proposer: config.models?.proposer?.spec ?? config.meta_model,
        searchScore: store.getCandidate(selectedCommit)?.score ?? Number.NaN,
        heldoutSA: heldout?.blocked?.strict_sa ?? Number.NaN,
        heldoutJoint: heldout?.objective ?? Number.NaN,
        seedHeldoutJoint:
          (status.heldout.seed as SelectedEvaluations | undefined)?.heldout?.objective ??
          // A search that selects its seed evaluates it once, as the selection.
          heldout?.objective ??
          Number.NaN,
        independentSolve: independent?.feasible?.solve ?? Number.NaN,
        // Paid search rollouts: those the request cache answered whole cost nothing (none with sim:default).
        rollouts: store.countRollouts("search") - store.countCachedRollouts("search"),
        search: searchShape(store.listCandidates(), selectedCommit),
        ...(HEADROOM
          ? {
              headroom: await headroom(
                runDir,
                config,
                work,
                store.listCandidates(),
                selectedCommit,
                heldout?.objective ?? Number.NaN,
              ),
            }
          : {}),
      };
    } finally {
      store.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The seed, or a candidate the search accepted (greedy: its chain; pareto: a front member, past or present). */
const acceptedOrSeed = (c: { parent: string | null; verdict: string | null }) =>
  c.parent === null || c.verdict === "accepted";

function searchShape(
  candidates: ReturnType<ReturnType<typeof openRunStore>["listCandidates"]>,
  selected: string,
): SearchShape {
  const rounds = [...new Set(candidates.map((c) => c.round))].filter((round) => round > 0);
  const merges = candidates.filter((c) => c.proposer === "pareto-merge");
  return {
    accepted: candidates.filter(acceptedOrSeed).length,
    roundsWithTwoParents: rounds.filter(
      (round) =>
        new Set(
          candidates.filter((c) => c.round === round && c.proposer !== "pareto-merge").map((c) => c.parent),
        ).size > 1,
    ).length,
    rounds: rounds.length,
    merges: merges.length,
    mergesAccepted: merges.filter((c) => c.verdict === "accepted").length,
    selectedMerge: merges.some((c) => c.commit === selected),
  };
}

/**
 * Every scored candidate of a finished search exported (the library's exportHarness) and evaluated on the held-out
 * split by `hsearch eval` (same task model, seed and repeats: the rollout seeds depend on the run seed, task and
 * repeat only, so the selected harness gets exactly its final held-out figure again, which is checked).
 */
async function headroom(
  runDir: string,
  config: SearchConfig,
  work: string,
  candidates: ReturnType<ReturnType<typeof openRunStore>["listCandidates"]>,
  selected: string,
  selectedJoint: number,
): Promise<Headroom> {
  const scored = candidates.filter((c) => c.score !== null);
  const joints = new Map<string, number>();
  const evalArgs = heldoutEvalArgs(config, runDir, work);
  for (const candidate of scored) {
    const dir = mkdtempSync(join(tmpdir(), "hsearch-quality-candidate-"));
    try {
      await exportHarness(runDir, candidate.commit, dir);
      // Through the CLI: the library's evaluate takes no models file, request cache or model-call limit, which
      // reproduce the run's own held-out evaluation.
      const printed: string[] = [];
      const code = await main(["eval", "--harness", dir, ...evalArgs], {
        ...quiet,
        out: (text) => printed.push(text),
      });
      if (code !== 0) throw new Error(`hsearch eval ${candidate.commit} exited ${code}`);
      const summary = (JSON.parse(printed.join("")) as { summary: EvalSummary }).summary;
      joints.set(candidate.commit, objectiveScore(summary, config.objective));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const again = joints.get(selected);
  if (again === undefined || Math.abs(again - selectedJoint) > 1e-9)
    throw new Error(
      `headroom: hsearch eval gives the selected harness ${again}, its final held-out was ${selectedJoint}`,
    );
  const accepted = scored.filter(acceptedOrSeed);
  const best = (list: typeof scored) => Math.max(...list.map((c) => joints.get(c.commit) ?? Number.NaN));
  return {
    scored: scored.length,
    bestAccepted: best(accepted),
    bestScored: best(scored),
    rankCorrelation: spearman(
      scored.map((c) => c.score as number),
      scored.map((c) => joints.get(c.commit) as number),
    ),
  };
}

/**
 * `hsearch eval` flags that evaluate as the run's final held-out evaluation did: the config's models (a models block
 * written to a file; a top-level spec only where the block names none, as `hsearch run` reads them), judge, customer,
 * seed, repeats, concurrency, suites or task directory, and the run's request cache.
 */
function heldoutEvalArgs(config: SearchConfig, runDir: string, work: string): string[] {
  const blocks = config.models;
  const args = [
    "--split",
    "heldout",
    "--seed",
    String(config.seed),
    "--repeats",
    String(config.repeats),
    // One process holds one concurrency limit per provider endpoint: the search's.
    "--concurrency",
    String(config.concurrency),
    "--json",
  ];
  if (blocks) {
    const modelsFile = join(work, "models.yaml");
    writeFileSync(modelsFile, stringify(blocks));
    args.push("--models", modelsFile);
  }
  if (!blocks?.agent?.spec) args.push("--model", config.task_model);
  if (!blocks?.judge?.spec) args.push("--judge", config.judge);
  if (!blocks?.customer?.spec) args.push("--customer", config.customer);
  if (config.tasks) args.push("--tasks", config.tasks);
  else if (config.suites.length === 1) args.push("--suite", config.suites[0] ?? "");
  args.push("--cache", config.cache.dir === "run" ? runDir : config.cache.dir);
  if (config.limits?.model_call_seconds)
    args.push("--model-call-seconds", String(config.limits.model_call_seconds));
  return args;
}

/** Spearman's rho with average ranks for ties (NaN when either side is constant). */
function spearman(xs: number[], ys: number[]): number {
  const ranks = (values: number[]) => {
    const order = values.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value);
    const result = new Array<number>(values.length);
    for (let start = 0; start < order.length; ) {
      let end = start;
      while (end + 1 < order.length && order[end + 1]?.value === order[start]?.value) end++;
      for (let k = start; k <= end; k++) result[order[k]?.index ?? 0] = (start + end) / 2;
      start = end + 1;
    }
    return result;
  };
  const [rx, ry] = [ranks(xs), ranks(ys)];
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const [mx, my] = [mean(rx), mean(ry)];
  let [sxy, sxx, syy] = [0, 0, 0];
  for (let i = 0; i < rx.length; i++) {
    const [dx, dy] = [(rx[i] ?? 0) - mx, (ry[i] ?? 0) - my];
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxy / Math.sqrt(sxx * syy);
}

const meanSd = (values: number[], digits = 3): string => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, values.length - 1));
  return `${mean.toFixed(digits)} ± ${sd.toFixed(digits)}`;
};

/**
 * One-sided paired sign-flip (randomisation) test of mean(differences) > 0: under H0 each seed's difference is as
 * likely to have either sign, so p = the share of sign assignments whose mean reaches the observed one. Exact up to
 * 20 seeds; beyond, 200,000 seeded random assignments. No normality assumption (five to thirty seeds of bounded,
 * tied differences are far from normal).
 */
function signFlipP(differences: number[]): number {
  const n = differences.length;
  const observed = differences.reduce((a, b) => a + b, 0);
  const eps = 1e-12;
  let reach = 0;
  let total = 0;
  if (n <= 20) {
    for (let mask = 0; mask < 2 ** n; mask++) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += (mask >> i) & 1 ? -(differences[i] ?? 0) : (differences[i] ?? 0);
      if (sum >= observed - eps) reach++;
      total++;
    }
    return reach / total;
  }
  const rng = createRng(1, "search-quality", "sign-flip");
  for (total = 0; total < 200_000; total++) {
    let sum = 0;
    for (const d of differences) sum += rng.next() < 0.5 ? -d : d;
    if (sum >= observed - eps) reach++;
  }
  return (reach + 1) / (total + 1);
}

/** `<suite> <strategy> seed <n>: {outcome}` lines of earlier runs of this benchmark (its stderr), for --combine. */
function readResults(files: string[]): Map<string, Map<number, Outcome>> {
  const results = new Map<string, Map<number, Outcome>>();
  for (const file of files)
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const match = /^(\S+) (\S+) seed (\d+): (\{.*\})/.exec(line);
      if (!match) continue;
      const key = `${match[1]} ${match[2]}`;
      const bySeed = results.get(key) ?? new Map<number, Outcome>();
      bySeed.set(Number(match[3]), JSON.parse(match[4] ?? "{}") as Outcome);
      results.set(key, bySeed);
    }
  return results;
}

const combine = process.argv.includes("--combine")
  ? process.argv.slice(process.argv.indexOf("--combine") + 1).filter((a) => !a.startsWith("--"))
  : null;
const results = combine ? readResults(combine) : new Map<string, Map<number, Outcome>>();
let sources = new Map<string, ConfigSource>();
try {
  if (!combine) sources = configSources();
} catch (error) {
  // A bad --config answers as `hsearch run` would: the file, field and line, exit 2.
  process.exit(reportError(error, quiet, false));
}
const suites = combine
  ? [...new Set([...results.keys()].map((k) => k.split(" ")[0] ?? ""))]
  : [...sources.keys()];
const strategies = combine
  ? [...new Set([...results.keys()].map((k) => k.split(" ")[1] ?? ""))]
  : SETTING_NAMES;

console.log(
  `| suite | proposer + strategy | search objective | held-out strict SA | held-out joint | independent solve | search rollouts | seeds |`,
);
console.log(`| --- | --- | --- | --- | --- | --- | --- | --- |`);
for (const suite of suites)
  for (const strategy of strategies) {
    const bySeed = results.get(`${suite} ${strategy}`) ?? new Map<number, Outcome>();
    if (!combine)
      for (let seed = FIRST_SEED; seed <= LAST_SEED; seed++) {
        const started = Date.now();
        bySeed.set(seed, await search(suite, sources.get(suite) as ConfigSource, strategy, seed));
        process.stderr.write(
          `${suite} ${strategy} seed ${seed}: ${JSON.stringify(bySeed.get(seed))} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
        );
      }
    results.set(`${suite} ${strategy}`, bySeed);
    const outcomes = [...bySeed.values()];
    if (outcomes.length === 0) continue;
    const seeds = [...bySeed.keys()].sort((a, b) => a - b);
    console.log(
      `| ${suite} | ${outcomes[0]?.proposer ?? "operators"} + ${strategy} | ${meanSd(outcomes.map((o) => o.searchScore))} | ${meanSd(outcomes.map((o) => o.heldoutSA))} | ${meanSd(outcomes.map((o) => o.heldoutJoint))} | ${meanSd(outcomes.map((o) => o.independentSolve))} | ${meanSd(
        outcomes.map((o) => o.rollouts),
        0,
      )} | ${seeds.length === seeds.at(-1)! - seeds[0]! + 1 ? `${seeds[0]}–${seeds.at(-1)}` : seeds.join(",")} |`,
    );
  }

const signed = (value: number) => `${value >= 0 ? "+" : ""}${value.toFixed(3)}`;

// How each setting used its searches (read from the stored candidates; absent in lines of older runs).
for (const [key, bySeed] of results) {
  const shapes = [...bySeed.values()].flatMap((o) => (o.search ? [o.search] : []));
  if (shapes.length === 0) continue;
  const sum = (pick: (s: SearchShape) => number) => shapes.reduce((total, shape) => total + pick(shape), 0);
  const accepted = shapes.map((s) => s.accepted);
  console.log(
    `${key} (${shapes.length} searches): ${Math.min(...accepted)}–${Math.max(...accepted)} accepted candidates a search (seed included); ${sum((s) => s.roundsWithTwoParents)} of ${sum((s) => s.rounds)} rounds proposed from two parents or more; ${sum((s) => s.merges)} merges, ${sum((s) => s.mergesAccepted)} admitted, ${sum((s) => (s.selectedMerge ? 1 : 0))} selected`,
  );
}

/** Spearman's rho over searches; undefined in a search whose candidates all scored the same on either side. */
const rhos = (values: number[]) => {
  const defined = values.filter((rho) => !Number.isNaN(rho));
  return defined.length > 0
    ? `${meanSd(defined)}${defined.length < values.length ? ` (undefined in ${values.length - defined.length}: every candidate scored the same)` : ""}`
    : "undefined (every candidate scored the same)";
};

// With --headroom: how far each setting's selection is from the best harness its searches produced on held-out tasks.
for (const [key, bySeed] of results) {
  const rows = [...bySeed.values()].flatMap((o) =>
    o.headroom ? [{ outcome: o, headroom: o.headroom }] : [],
  );
  if (rows.length === 0) continue;
  console.log(
    `${key} (${rows.length} searches, held-out joint): seed harness ${meanSd(rows.map((r) => r.outcome.seedHeldoutJoint ?? Number.NaN))}; selected ${meanSd(rows.map((r) => r.outcome.heldoutJoint))}; best accepted candidate ${meanSd(rows.map((r) => r.headroom.bestAccepted))}; best scored candidate ${meanSd(rows.map((r) => r.headroom.bestScored))} (of ${meanSd(
      rows.map((r) => r.headroom.scored),
      0,
    )}); the selection is the best scored candidate in ${rows.filter((r) => r.outcome.heldoutJoint >= r.headroom.bestScored - 1e-12).length}; rank correlation of search objective and held-out joint ${rhos(rows.map((r) => r.headroom.rankCorrelation ?? Number.NaN))}`,
  );
}

// The goal of issue 11: pareto ahead of greedy on held-out joint at the same rollouts, seed for seed.
for (const suite of suites) {
  const greedy = results.get(`${suite} greedy`);
  const pareto = results.get(`${suite} pareto`);
  if (!greedy || !pareto) continue;
  const seeds = [...pareto.keys()].filter((seed) => greedy.has(seed)).sort((a, b) => a - b);
  if (seeds.length === 0) continue;
  const diff = (pick: (o: Outcome) => number) =>
    seeds.map((seed) => pick(pareto.get(seed) as Outcome) - pick(greedy.get(seed) as Outcome));
  const joint = diff((o) => o.heldoutJoint);
  const wins = joint.filter((d) => d > 1e-12).length;
  const losses = joint.filter((d) => d < -1e-12).length;
  const boot = pairedBootstrapMeanDifference(
    seeds.map((seed) => (pareto.get(seed) as Outcome).heldoutJoint),
    seeds.map((seed) => (greedy.get(seed) as Outcome).heldoutJoint),
    { resamples: 10_000, seed: 1 },
  );
  console.log(
    `${suite}: pareto − greedy held-out joint over ${seeds.length} seeds: ${meanSd(joint)} (95% CI ${signed(boot.ci[0])} to ${signed(boot.ci[1])}); ahead on ${wins}, tied on ${seeds.length - wins - losses}, behind on ${losses}; one-sided sign-flip p = ${signFlipP(joint).toFixed(3)}; rollouts ${meanSd(
      diff((o) => o.rollouts),
      0,
    )}`,
  );
}

// Issue 22: each setting against the full protocol, seed for seed: rollouts, and held-out joint no worse than the full
// protocol's by more than NON_INFERIORITY (one-sided sign-flip test of mean(setting − full) > −margin).
for (const suite of suites) {
  const full = results.get(`${suite} full`);
  if (!full) continue;
  for (const setting of strategies) {
    const other = results.get(`${suite} ${setting}`);
    if (setting === "full" || !other) continue;
    const seeds = [...other.keys()].filter((seed) => full.has(seed)).sort((a, b) => a - b);
    if (seeds.length === 0) continue;
    const joint = seeds.map(
      (seed) => (other.get(seed) as Outcome).heldoutJoint - (full.get(seed) as Outcome).heldoutJoint,
    );
    const boot = pairedBootstrapMeanDifference(
      seeds.map((seed) => (other.get(seed) as Outcome).heldoutJoint),
      seeds.map((seed) => (full.get(seed) as Outcome).heldoutJoint),
      { resamples: 10_000, seed: 1 },
    );
    const share = seeds.map(
      (seed) => (other.get(seed) as Outcome).rollouts / (full.get(seed) as Outcome).rollouts,
    );
    const p = signFlipP(joint.map((d) => d + NON_INFERIORITY));
    console.log(
      `${suite}: ${setting} − full held-out joint over ${seeds.length} seeds: ${meanSd(joint)} (95% CI ${signed(boot.ci[0])} to ${signed(boot.ci[1])}); non-inferiority at ${NON_INFERIORITY}: one-sided sign-flip p = ${p.toFixed(3)} (${p <= 0.05 ? "passes" : "fails"} at 0.05); search rollouts ${meanSd(
        seeds.map((seed) => (other.get(seed) as Outcome).rollouts),
        0,
      )} against ${meanSd(
        seeds.map((seed) => (full.get(seed) as Outcome).rollouts),
        0,
      )}, ${meanSd(
        share.map((x) => 100 * x),
        1,
      )} % of the full protocol's`,
    );
  }
}
