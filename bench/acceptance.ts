// The acceptance study (DESIGN §7) with the simulated model on the retail search split (64 blocked + 64 feasible):
// (a) A/A — proposals that behave exactly like the incumbent (the `bare` harness, independent rollout seeds): how
//     often does each rule accept one? (b) a proposal with a known +10 pp joint gain (measured first with 100
//     repeats): how often does each rule accept it? Rules: `greater` and `paired` (α 0.10, 0.05) from
//     src/search/acceptance/verdicts.ts, paired with the loop's extra repeats for close calls (`pairedStep`), and two
//     references: paired with Bonferroni α/k, and an exact sign-flip randomisation test.
// The gain proposal is `bare` run by a profile variant whose only change is conversion.base 0.50 → 0.77 (recognition
// turns into a certified deferral more often, as the abandon protocol does: 0.50 → 0.72); the simulator's draws do
// not depend on the profile, so on common seeds it pairs with the incumbent exactly as a harness change would.
// `npx tsx bench/acceptance.ts [--rounds N] [--seed S] [--repeats R]` (default 200 rounds, 1 repeat; a few minutes).
import { join } from "node:path";
import { createModel } from "../src/api/create-model";
import { PACKAGE_ROOT } from "../src/core/paths";
import { createRng } from "../src/core/rng";
import { evaluateJobs, planRollouts } from "../src/eval/evaluate";
import { type Harness, loadHarness } from "../src/harness/load";
import type { ChatModel } from "../src/models/types";
import { type EpisodeScore, objectiveScore, pairedOutcomeValues, rulesJudge } from "../src/scoring";
import type { ObjectiveName as Objective } from "../src/scoring/objective";
import { decideGreater, type EvaluatedProposal, pairedStep, pairedTest } from "../src/search/acceptance";
import { SimChatModel } from "../src/sim";
import { loadSimProfile, simProfileSchema } from "../src/sim/profile";
import { loadTaskDir } from "../src/tasks/loading/load";

const flag = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number ≥ 1`);
  return value;
};
const ROUNDS = flag("rounds", 200);
const SEED = flag("seed", 1);
/** Rollouts per (arm, task) before any test (the search config's `repeats`). */
const REPEATS = flag("repeats", 1);
const TRUE_REPEATS = 100;
const PROPOSALS = 3;
const RESAMPLES = 2000;

const tasks = loadTaskDir(join(PACKAGE_ROOT, "tasks", "retail", "search")).map((loaded) => loaded.task);
const blocked = tasks.filter((task) => task.kind === "blocked").length;
const model = createModel("sim:default");
const defaults = loadSimProfile("default");
const GAIN_CONVERSION = 0.77;
const gainModel = new SimChatModel(
  "sim:gain",
  simProfileSchema.parse({
    ...defaults,
    name: "gain",
    conversion: { ...defaults.conversion, base: GAIN_CONVERSION },
  }),
);
const bare = loadHarness(join(PACKAGE_ROOT, "harnesses", "bare"));
/** An arm is a harness run by a model; the gain proposal differs from the incumbent in its model profile only. */
interface Candidate {
  name: string;
  harness: Harness;
  model: ChatModel;
}
const incumbentArm: Candidate = { name: "bare", harness: bare, model };
const gainArm: Candidate = { name: "gain", harness: bare, model: gainModel };
const n = tasks.length;
let rollouts = 0;

async function evaluate(arm: Candidate, runSeed: number, repeats = 1): Promise<EpisodeScore[]> {
  const jobs = planRollouts(tasks, repeats, runSeed);
  rollouts += jobs.length;
  const { harness, model } = arm;
  const outcomes = await evaluateJobs({ harness, jobs, model, judge: rulesJudge, concurrency: 8 });
  return outcomes.map((outcome) => outcome.score);
}

/** Repeat `repeat` only of an arm (rollout seeds as planRollouts gives them), for the close-call extension. */
async function evaluateRepeat(arm: Candidate, runSeed: number, repeat: number): Promise<EpisodeScore[]> {
  const jobs = planRollouts(tasks, repeat + 1, runSeed).filter((job) => job.repeat === repeat);
  rollouts += jobs.length;
  const { harness, model } = arm;
  const outcomes = await evaluateJobs({ harness, jobs, model, judge: rulesJudge, concurrency: 8 });
  return outcomes.map((outcome) => outcome.score);
}

const armSeed = (round: number, arm: string) => createRng(SEED, "acceptance", round, arm).int(2 ** 31);

function asProposals(arms: readonly EpisodeScore[][], objective: Objective): EvaluatedProposal[] {
  return arms.map((scores, index) => ({
    commit: `p${index}`,
    proposal: index,
    score: objectiveScore(scores, objective),
    scores,
  }));
}

/** Exact one-sided sign-flip randomisation test of mean(proposal − incumbent) > 0 (a reference for the level). */
function signFlipP(
  incumbent: readonly EpisodeScore[],
  proposal: readonly EpisodeScore[],
  objective: Objective,
  seed: number,
) {
  const d = pairedOutcomeValues(incumbent, proposal, objective).map((pair) => pair.second - pair.first);
  const observed = d.reduce((sum, x) => sum + x, 0);
  if (observed <= 0) return 1;
  const rng = createRng(seed, "sign-flip");
  let atLeast = 0;
  for (let r = 0; r < RESAMPLES; r++) {
    let sum = 0;
    for (const x of d) sum += rng.next() < 0.5 ? -x : x;
    if (sum >= observed) atLeast++;
  }
  return (1 + atLeast) / (1 + RESAMPLES);
}

type Rule = (incumbent: EpisodeScore[], proposals: EpisodeScore[][], objective: Objective) => boolean;

const pairedRule =
  (alpha: (k: number) => number): Rule =>
  (incumbent, proposals, objective) =>
    proposals.some((scores, index) => {
      const test = pairedTest(incumbent, scores, objective, {
        seed: SEED,
        round: 1,
        proposal: index + 1,
        look: 0,
      });
      return test.difference > 0 && test.p_value <= alpha(proposals.length);
    });

const RULES: Array<[string, Rule]> = [
  [
    "greater",
    (incumbent, proposals, objective) =>
      decideGreater(objectiveScore(incumbent, objective), asProposals(proposals, objective)).accepted !==
      null,
  ],
  ["paired α=0.10", pairedRule(() => 0.1)],
  ["paired α=0.05", pairedRule(() => 0.05)],
  ["paired α=0.05/k (Bonferroni)", pairedRule((k) => 0.05 / k)],
  [
    "sign-flip α=0.05 (reference)",
    (incumbent, proposals, objective) =>
      proposals.some((scores, i) => signFlipP(incumbent, scores, objective, SEED + i) <= 0.05),
  ],
];

/** An arm of one round: its harness, its run seed, and its repeats so far (shared by every rule that extends it). */
interface Arm {
  candidate: Candidate;
  seed: number;
  repeats: EpisodeScore[][];
}

async function armThrough(arm: Arm, repeats: number): Promise<EpisodeScore[]> {
  while (arm.repeats.length < repeats)
    arm.repeats.push(await evaluateRepeat(arm.candidate, arm.seed, arm.repeats.length));
  return arm.repeats.slice(0, repeats).flat();
}

/**
 * Paired with extra repeats for close calls, as the loop does it (run-search.ts with `pairedStep`): a proposal ahead
 * with p ≤ 3α earns one more repeat of both arms, up to `max_extra_repeats`, and the test is re-run on all pairs at
 * the same α. That is sequential testing without spending α, so its level is measured here rather than assumed.
 */
async function pairedWithMore(incumbent: Arm, proposal: Arm, objective: Objective, alpha: number) {
  for (let extra = 0; ; extra++) {
    const test = pairedTest(
      await armThrough(incumbent, REPEATS + extra),
      await armThrough(proposal, REPEATS + extra),
      objective,
      { seed: SEED, round: 1, proposal: 1, look: extra },
    );
    const step = pairedStep(test, alpha, extra, MAX_EXTRA);
    if (step !== "more") return { accepted: step === "accepted", rollouts: 2 * n * (REPEATS + extra) };
  }
}

const MAX_EXTRA = 2;
const SEQUENTIAL: Array<[string, number]> = [0.1, 0.05, 0.025].map((alpha) => [
  `paired α=${alpha} +≤${MAX_EXTRA} repeats (loop)`,
  alpha,
]);
const spent = new Map<string, number>();

const OBJECTIVES: Objective[] = ["joint", "sa-only"];
type Tally = Map<string, number>;
const tally = (): Tally => new Map();
const count = (t: Tally, key: string, hit: boolean) => t.set(key, (t.get(key) ?? 0) + (hit ? 1 : 0));
const key = (objective: Objective, rule: string, column: string) => `${objective}|${rule}|${column}`;

const started = Date.now();

// 0. The true gain: both arms with 100 repeats on common seeds, so the paired difference is measured precisely.
const truthSeed = armSeed(-1, "truth");
const truthScores = {
  bare: await evaluate(incumbentArm, truthSeed, TRUE_REPEATS),
  gain: await evaluate(gainArm, truthSeed, TRUE_REPEATS),
};
const gainText = (objective: Objective) => {
  const d = pairedOutcomeValues(truthScores.bare, truthScores.gain, objective).map(
    (pair) => pair.second - pair.first,
  );
  const mean = d.reduce((sum, x) => sum + x, 0) / d.length;
  const se = Math.sqrt(d.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (d.length - 1) / d.length);
  const score = (scores: EpisodeScore[]) => objectiveScore(scores, objective).toFixed(4);
  return `bare ${score(truthScores.bare)}, gain ${score(truthScores.gain)} → ${(mean * 100).toFixed(1)} ± ${(196 * se).toFixed(1)} pp`;
};

// (a) A/A and (b) power, one independent round at a time.
const counts = tally();
const pValues: Array<{ paired: number; signFlip: number }> = [];
for (let round = 0; round < ROUNDS; round++) {
  const incumbentSeed = armSeed(round, "incumbent");
  const arm = async (candidate: Candidate, seed: number): Promise<Arm> => {
    const made: Arm = { candidate, seed, repeats: [] };
    await armThrough(made, REPEATS);
    return made;
  };
  const twinArms: Arm[] = [];
  for (let k = 0; k < PROPOSALS; k++) twinArms.push(await arm(incumbentArm, armSeed(round, `twin-${k}`)));
  const arms = {
    incumbent: await arm(incumbentArm, incumbentSeed),
    twin: twinArms[0] as Arm,
    same: await arm(gainArm, incumbentSeed),
    own: await arm(gainArm, armSeed(round, "gain")),
  };
  const flat = (a: Arm) => a.repeats.slice(0, REPEATS).flat();
  const incumbent = flat(arms.incumbent);
  const twins = twinArms.map(flat);
  const gainSameSeeds = flat(arms.same);
  const gainOwnSeeds = flat(arms.own);
  for (const objective of OBJECTIVES) {
    for (const [column, proposal] of [
      ["aa1", arms.twin],
      ["power-same", arms.same],
      ["power-own", arms.own],
    ] as const) {
      for (const [name, alpha] of SEQUENTIAL) {
        const outcome = await pairedWithMore(arms.incumbent, proposal, objective, alpha);
        count(counts, key(objective, name, column), outcome.accepted);
        const spentKey = key(objective, name, column);
        spent.set(spentKey, (spent.get(spentKey) ?? 0) + outcome.rollouts);
      }
    }
    for (const [name, rule] of RULES) {
      count(counts, key(objective, name, "aa1"), rule(incumbent, twins.slice(0, 1), objective));
      count(counts, key(objective, name, "aa3"), rule(incumbent, twins, objective));
      count(counts, key(objective, name, "power-same"), rule(incumbent, [gainSameSeeds], objective));
      count(counts, key(objective, name, "power-own"), rule(incumbent, [gainOwnSeeds], objective));
    }
  }
  const twin = twins[0] as EpisodeScore[];
  pValues.push({
    paired: pairedTest(incumbent, twin, "joint", { seed: SEED, round: 1, proposal: 1, look: 0 }).p_value,
    signFlip: signFlipP(incumbent, twin, "joint", SEED),
  });
}
const seconds = (Date.now() - started) / 1000;

const rate = (hits: number) => {
  const p = hits / ROUNDS;
  const half = 1.96 * Math.sqrt((p * (1 - p)) / ROUNDS);
  return `${p.toFixed(3)} ± ${half.toFixed(3)}`;
};
const pad = (cells: string[], widths: number[]) =>
  cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ");

console.log(
  `acceptance study · sim:default · retail search split: ${blocked} blocked + ${n - blocked} feasible tasks · ${ROUNDS} rounds · seed ${SEED} · ${REPEATS} repeat(s) per arm`,
);
console.log(
  `true gain of the proposal (conversion.base ${GAIN_CONVERSION}; ${TRUE_REPEATS} repeats on common seeds, ± 1.96·SE):` +
    ` joint ${gainText("joint")}; SA-only ${gainText("sa-only")}`,
);
console.log("rates are acceptances / rounds ± 1.96·SE (binomial)\n");
const widths = [36, 16, 16, 16, 16];
for (const objective of OBJECTIVES) {
  console.log(`objective ${objective}`);
  console.log(
    pad(["rule", "A/A k=1 (FA)", `A/A k=${PROPOSALS} (FA)`, "power same seeds", "power own seeds"], widths),
  );
  for (const [name] of RULES) {
    const cell = (column: string) => rate(counts.get(key(objective, name, column)) ?? 0);
    console.log(pad([name, cell("aa1"), cell("aa3"), cell("power-same"), cell("power-own")], widths));
  }
  for (const [name] of SEQUENTIAL) {
    const cell = (column: string) => rate(counts.get(key(objective, name, column)) ?? 0);
    console.log(pad([name, cell("aa1"), "-", cell("power-same"), cell("power-own")], widths));
  }
  for (const [name] of SEQUENTIAL) {
    const mean = (column: string) => ((spent.get(key(objective, name, column)) ?? 0) / ROUNDS).toFixed(0);
    console.log(
      `  ${name}: mean rollouts per decision A/A ${mean("aa1")}, power same seeds ${mean("power-same")}, own seeds ${mean("power-own")}`,
    );
  }
  console.log("");
}
console.log(
  `rollouts per decision: ${REPEATS * n} proposal + ${REPEATS * n} incumbent = ${2 * REPEATS * n} with one proposal; ${REPEATS * n * (PROPOSALS + 1)} for a round of ${PROPOSALS}` +
    " (each arm evaluated once; the incumbent's evaluation is shared by its round)",
);
console.log("\nlevel check of the one-sided p-values under A/A (joint, k=1): share of rounds with p ≤ α");
console.log(pad(["α", "pairedTest (bootstrap)", "sign-flip (exact)"], [6, 24, 20]));
for (const alpha of [0.01, 0.05, 0.1, 0.2]) {
  const share = (pick: (p: { paired: number; signFlip: number }) => number) =>
    rate(pValues.filter((p) => pick(p) <= alpha).length);
  console.log(pad([String(alpha), share((p) => p.paired), share((p) => p.signFlip)], [6, 24, 20]));
}
console.log(
  `\n${rollouts} rollouts in ${seconds.toFixed(1)} s (${(rollouts / seconds).toFixed(0)} rollouts/s, tests included)`,
);
