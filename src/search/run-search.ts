import { existsSync } from "node:fs";
import { join } from "node:path";
import type { SearchConfig } from "../config/search-config-schema";
import { hashJson } from "../core/canonical-json";
import { HsearchError } from "../core/errors";
import { rolloutKey } from "../core/ids";
import { createRng } from "../core/rng";
import type { Split, Task } from "../domain/task";
import { evaluateJobs, planRollouts, type RolloutJob } from "../eval/evaluate";
import { commitProposal, initHarnessRepo, moveIncumbent, readTree, tagSelected, treeHash } from "../git";
import { type Harness, parseHarness } from "../harness/load";
import type { Trajectory } from "../harness/trajectory";
import type { PriceTable } from "../models/prices";
import type { ChatModel } from "../models/types";
import { type EpisodeScore, type Judge, objectiveScore, summarize } from "../scoring";
import type { RunStore } from "../store";
import {
  decideGreater,
  type EvaluatedProposal,
  type PairedStep,
  type ProposalVerdict,
  pairedStep,
  pairedTest,
  screenStep,
  type Verdict,
} from "./acceptance";
import { BudgetExhausted, BudgetGate, type BudgetLimit, type BudgetUsage } from "./budget";
import { buildDigest, type Digest } from "./digest";
import { proposeByLlm } from "./llm-proposer";
import { proposeByOperators } from "./operators";
import { applyProposal, assertProposalPaths, type Proposal } from "./proposal";

/**
 * The outer loop (DESIGN §7). Every step is idempotent and keyed, so `--resume` re-enters it from the top: stored
 * rollouts are skipped, commits are deterministic, finished rounds are read back, and the run ends where an
 * uninterrupted one would.
 */
export interface SearchDeps {
  config: SearchConfig;
  runId: string;
  runDir: string;
  store: RunStore;
  /** The seed harness directory (new runs); resumed runs read the seed from the run's git repository. */
  seedHarnessDir: string;
  tasks: { search: Task[]; heldout: () => Task[]; independent: () => Task[] };
  model: ChatModel;
  metaModel: ChatModel | null;
  judge: Judge;
  customerModel?: ChatModel;
  prices?: PriceTable;
  events?: SearchEvents;
  /** Set by runSearch: every rollout of the run passes it before starting. */
  gate?: BudgetGate;
  /** Tests capture what the proposer receives. */
  onProposerInput?: (input: { harness: Record<string, string>; digest: Digest; rejected: unknown }) => void;
}

export interface SearchEvents {
  phase?(message: string): void;
  rollouts?(done: number, total: number, label: string): void;
  candidate?(info: {
    round: number;
    proposal: number;
    commit: string;
    score: number | null;
    state: string;
    reason?: string;
  }): void;
  round?(info: { round: number; incumbent: string; score: number; accepted: string | null }): void;
}

const STORE_BATCH = 25;

export interface SearchOutcome {
  /** The selected harness; when a budget stopped the run, the incumbent so far. */
  selected: string;
  /** Null when a budget stopped the run before the seed was scored. */
  score: number | null;
  stoppedBy: "rounds" | "early_stop" | "budget";
  /** Which limit stopped the run, and the usage then. */
  budget?: { limit: BudgetLimit; usage: BudgetUsage; message: string };
}

/**
 * A budget limit stops the run where it is: in-flight rollouts finish and are stored, nothing new starts, and the
 * run is left `budget_exhausted` for `--resume` with a larger budget (which then ends where an uninterrupted run would).
 */
export async function runSearch(deps: SearchDeps): Promise<SearchOutcome> {
  const { store } = deps;
  store.setRunState("running");
  const gate = new BudgetGate(deps.config.budget, {
    countRollouts: () => store.countRollouts(),
    totalUsd: () => store.totalUsd(),
    activeMs: () => store.activeMs(),
    setActiveMs: (ms) => store.setActiveMs(ms),
  });
  const progress = { incumbent: "" };
  try {
    return await search({ ...deps, gate }, progress);
  } catch (error) {
    if (!(error instanceof BudgetExhausted)) throw error;
    store.setRunState("budget_exhausted", error.message);
    store.logEvent("budget_exhausted", {
      limit: error.limit,
      ...error.usage,
      incumbent: progress.incumbent,
    });
    const score = store.getCandidate(progress.incumbent)?.score ?? null;
    return {
      selected: progress.incumbent,
      score,
      stoppedBy: "budget",
      budget: { limit: error.limit, usage: error.usage, message: error.message },
    };
  } finally {
    gate.persistActiveTime(true);
  }
}

async function search(deps: SearchDeps, progress: { incumbent: string }): Promise<SearchOutcome> {
  const { config, store } = deps;
  const repo = join(deps.runDir, "harness");
  const events = deps.events ?? {};

  // R0: the seed harness on the search split.
  const seed = await initSeed(deps, repo);
  progress.incumbent = seed;
  store.startRound(0, seed);
  const seedScore = await evaluateCandidate(deps, repo, seed, 0, 0);
  if (!store.getRound(0)?.ended_at)
    store.finishRound(0, {
      incumbent_after: seed,
      accepted_commit: seed,
      decision: { rule: "seed", score: seedScore },
    });
  events.round?.({ round: 0, incumbent: seed, score: seedScore, accepted: seed });

  let incumbent = seed;
  let incumbentScore = seedScore;
  let idleRounds = 0;
  let stoppedBy: "rounds" | "early_stop" = "rounds";
  for (let round = 1; round <= config.rounds; round++) {
    const stored = store.getRound(round);
    if (stored?.ended_at && stored.incumbent_after) {
      incumbent = stored.incumbent_after;
      progress.incumbent = incumbent;
      incumbentScore = store.getCandidate(incumbent)?.score ?? incumbentScore;
      idleRounds = stored.accepted_commit ? 0 : idleRounds + 1;
      continue;
    }
    if (config.early_stop.patience !== null && idleRounds >= config.early_stop.patience) {
      stoppedBy = "early_stop";
      store.logEvent("early_stop", { round, patience: config.early_stop.patience });
      break;
    }
    // A spent budget stops before the proposer is asked (an LLM proposer costs too).
    deps.gate?.check();
    store.startRound(round, incumbent);
    events.phase?.(`round ${round}: proposing`);
    const proposals = await propose(deps, repo, incumbent, round);
    const evaluated: EvaluatedProposal[] = [];
    for (const [index, proposal] of proposals.entries()) {
      const result = await admitProposal(deps, repo, incumbent, round, index + 1, proposal);
      if (result) evaluated.push(result);
    }
    const decision = await decide(deps, incumbent, incumbentScore, evaluated);
    for (const verdict of decision.verdicts) recordVerdict(deps, round, verdict);
    if (decision.accepted) {
      incumbent = decision.accepted;
      progress.incumbent = incumbent;
      incumbentScore = store.getCandidate(incumbent)?.score ?? incumbentScore;
      await moveIncumbent(repo, incumbent);
      idleRounds = 0;
    } else idleRounds++;
    store.finishRound(round, {
      incumbent_after: incumbent,
      accepted_commit: decision.accepted,
      decision: {
        rule: config.acceptance.rule,
        verdicts: decision.verdicts as unknown as Record<string, unknown>[],
      },
    });
    store.logEvent("round", { round, incumbent, score: incumbentScore, accepted: decision.accepted });
    if (config.heldout.per_round) await diagnostic(deps, repo, incumbent, round);
    events.round?.({ round, incumbent, score: incumbentScore, accepted: decision.accepted });
  }

  await tagSelected(repo, incumbent);
  if (config.heldout.final) await finalEvaluations(deps, repo, incumbent, seed);
  store.setRunState("finished");
  store.logEvent("finished", { selected: incumbent, score: incumbentScore, stopped_by: stoppedBy });
  return { selected: incumbent, score: incumbentScore, stoppedBy };
}

async function initSeed(deps: SearchDeps, repo: string): Promise<string> {
  const { store } = deps;
  const existing = store.listCandidates({ round: 0 })[0];
  if (existing && existsSync(join(repo, ".git"))) return existing.commit;
  const init = await initHarnessRepo(repo, deps.seedHarnessDir, { runId: deps.runId });
  const files = await readTree(repo, init.seed);
  const harness = parseHarness(files, deps.seedHarnessDir);
  store.addCandidate({
    commit: init.seed,
    round: 0,
    proposal: 0,
    parent: null,
    branch: "main",
    proposer: "seed",
    rationale: `seed: ${harness.config.name}`,
    tree_hash: init.tree,
  });
  return init.seed;
}

async function loadCandidate(repo: string, commit: string): Promise<Harness> {
  return parseHarness(await readTree(repo, commit), commit.slice(0, 12));
}

/** Evaluate a candidate on the search split (skipping stored rollouts), record its score, return it. */
async function evaluateCandidate(
  deps: SearchDeps,
  repo: string,
  commit: string,
  round: number,
  proposal: number,
): Promise<number> {
  const { store, config } = deps;
  const known = store.getCandidate(commit);
  // Evaluated before (a resumed run may find it already judged and rejected): its score stands.
  if ((known?.state === "evaluated" || known?.state === "rejected") && known.score !== null)
    return known.score;
  const harness = await loadCandidate(repo, commit);
  const scores = await runJobs(
    deps,
    harness,
    commit,
    "search",
    deps.tasks.search,
    `round ${round} p${proposal}`,
  );
  const summary = summarize(scores);
  const score = objectiveScore(scores, config.objective);
  store.setCandidateOutcome(commit, {
    state: "evaluated",
    score,
    summary: summary as unknown as Record<string, unknown>,
  });
  return score;
}

/** Run (or read back) the rollouts of one candidate on a set of tasks; returns every episode score. */
async function runJobs(
  deps: SearchDeps,
  harness: Harness,
  commit: string,
  purpose: "search" | "heldout" | "independent" | "diagnostic",
  tasks: readonly Task[],
  label: string,
  repeats = deps.config.repeats,
): Promise<EpisodeScore[]> {
  const { store, config } = deps;
  const jobs = planRollouts(tasks, repeats, config.seed);
  const keyOf = (job: RolloutJob) =>
    rolloutKey({ candidate: commit, task: job.task.id, seed: job.seed, repeat: job.repeat });
  const stored = new Map(
    store.listRollouts(commit, purpose).map((r) => [r.key, r.scores as unknown as EpisodeScore]),
  );
  const todo = jobs.filter((job) => !stored.has(keyOf(job)));
  let done = jobs.length - todo.length;
  deps.events?.rollouts?.(done, jobs.length, label);
  const pending: Array<{ key: string; split: Split; trajectory: Trajectory; score: EpisodeScore }> = [];
  const flush = () => {
    if (pending.length === 0) return;
    const batch = pending.splice(0);
    store.recordRollouts(
      commit,
      batch.map((p) => ({
        key: p.key,
        purpose,
        split: p.split,
        scores: p.score as unknown as Record<string, unknown>,
        trajectory: p.trajectory,
      })),
    );
    deps.gate?.stored(batch.reduce((sum, p) => sum + p.trajectory.usage.usd, 0));
  };
  let outcomes: Awaited<ReturnType<typeof evaluateJobs>>;
  try {
    outcomes = await evaluateJobs({
      harness,
      jobs: todo,
      model: deps.model,
      judge: deps.judge,
      concurrency: config.concurrency,
      customerModel: deps.customerModel,
      prices: deps.prices,
      beforeRollout: () => deps.gate?.admit(),
      onRollout: (job, trajectory, score) => {
        pending.push({ key: keyOf(job), split: job.task.split, trajectory, score });
        deps.gate?.finished(trajectory.usage.usd);
        if (pending.length >= STORE_BATCH) flush();
        done++;
        deps.events?.rollouts?.(done, jobs.length, label);
      },
    });
  } finally {
    // Rollouts that finished before a failure or a budget stop are kept: a resume does not run them again.
    flush();
  }
  const fresh = new Map(outcomes.map((o) => [keyOf(o.job), o.score]));
  return jobs.map((job) => (stored.get(keyOf(job)) ?? fresh.get(keyOf(job))) as EpisodeScore);
}

/** The proposer's inputs: the incumbent's files, its search-split digest, and the memory of rejected proposals. */
async function propose(
  deps: SearchDeps,
  repo: string,
  incumbent: string,
  round: number,
): Promise<Proposal[]> {
  const { store, config } = deps;
  const view = store.searchView();
  const harness = await loadCandidate(repo, incumbent);
  const episodes = view.rollouts(incumbent).map((r) => ({
    trajectory: view.trajectory(incumbent, r.key),
    score: r.scores as unknown as EpisodeScore,
  }));
  const digest = buildDigest(episodes, view.candidate(incumbent)?.score ?? 0);
  // Only earlier rounds: a resumed round must see what the interrupted one saw, or it would propose other edits.
  const rejected = view.rejectedProposals().filter((r) => r.round < round);
  deps.onProposerInput?.({ harness: harness.files, digest, rejected });
  const tried = new Set(
    rejected
      .filter((r) => r.commit === null || view.candidate(r.commit)?.parent === incumbent)
      .map((r) => r.rationale),
  );
  if (!deps.metaModel) {
    const rng = createRng(config.seed, "proposer", round);
    return proposeByOperators({ harness, digest, tried, count: config.proposals_per_round, rng, round });
  }
  const result = await proposeByLlm(
    deps.metaModel,
    {
      files: harness.files,
      digest,
      rejected,
      count: config.proposals_per_round,
      objective: config.objective,
    },
    {
      seed: createRng(config.seed, "meta", round).int(2 ** 31),
      onCall: (usage) =>
        store.recordModelCall({ role: "proposer", model: deps.metaModel?.id ?? "", round, ...usage, usd: 0 }),
    },
  );
  for (const [attempt, reason] of result.failures.entries())
    store.logEvent("proposer_invalid_reply", { round, attempt, reason });
  if (result.proposals.length === 0)
    store.recordProposalFailure({
      round,
      proposal: 0,
      proposer: deps.metaModel.id,
      rationale: "(no valid reply)",
      reason: result.failures.join(" | "),
    });
  return result.proposals;
}

/** Commit, validate and evaluate one proposal; null when it is not evaluated (invalid, duplicate, refused). */
async function admitProposal(
  deps: SearchDeps,
  repo: string,
  incumbent: string,
  round: number,
  index: number,
  proposal: Proposal,
): Promise<EvaluatedProposal | null> {
  const { store } = deps;
  const proposer = deps.metaModel ? deps.metaModel.id : "operators";
  try {
    assertProposalPaths(proposal.files);
  } catch (error) {
    const reason = (error as Error).message;
    store.recordProposalFailure({ round, proposal: index, proposer, rationale: proposal.rationale, reason });
    deps.events?.candidate?.({ round, proposal: index, commit: "", score: null, state: "refused", reason });
    return null;
  }
  let committed: { commit: string };
  try {
    committed = await commitProposal(repo, {
      parent: incumbent,
      round,
      proposal: index,
      files: proposal.files,
      rationale: proposal.rationale,
      trailers: { run: deps.runId, proposer, extra: { "Hsearch-Operator": proposal.operator } },
    });
  } catch (error) {
    if (!(error instanceof HsearchError) || error.code !== "bad_input") throw error;
    store.recordProposalFailure({
      round,
      proposal: index,
      proposer,
      rationale: proposal.rationale,
      reason: error.describe(),
    });
    deps.events?.candidate?.({
      round,
      proposal: index,
      commit: "",
      score: null,
      state: "refused",
      reason: error.describe(),
    });
    return null;
  }
  const commit = committed.commit;
  const tree = await treeHash(repo, commit);
  const duplicateOf = store.listCandidates().find((c) => c.tree_hash === tree && c.commit !== commit);
  store.addCandidate({
    commit,
    round,
    proposal: index,
    parent: incumbent,
    branch: `round-${round}/p${index}`,
    proposer,
    rationale: proposal.rationale,
    tree_hash: tree,
  });
  // A resumed round meets its earlier decisions again: not evaluated then, not evaluated now.
  const known = store.getCandidate(commit);
  if (known?.state === "invalid" || known?.state === "skipped_duplicate" || known?.verdict === "screened_out")
    return null;
  if (duplicateOf) {
    const reason = `same harness as ${duplicateOf.commit.slice(0, 12)} (round ${duplicateOf.round})`;
    store.setCandidateOutcome(commit, {
      state: "skipped_duplicate",
      duplicate_of: duplicateOf.commit,
      rejected_reason: reason,
    });
    deps.events?.candidate?.({
      round,
      proposal: index,
      commit,
      score: null,
      state: "skipped_duplicate",
      reason,
    });
    return null;
  }
  try {
    const files = applyProposal(await readTree(repo, incumbent), proposal);
    parseHarness(files, `round-${round}/p${index}`);
  } catch (error) {
    if (!(error instanceof HsearchError)) throw error;
    store.setCandidateOutcome(commit, { state: "invalid", rejected_reason: error.describe() });
    deps.events?.candidate?.({
      round,
      proposal: index,
      commit,
      score: null,
      state: "invalid",
      reason: error.describe(),
    });
    return null;
  }
  if (await screenedOut(deps, repo, incumbent, commit, round, index)) return null;
  const score = await evaluateCandidate(deps, repo, commit, round, index);
  deps.events?.candidate?.({ round, proposal: index, commit, score, state: "evaluated" });
  const scores = store.listRollouts(commit, "search").map((r) => r.scores as unknown as EpisodeScore);
  return { commit, proposal: index, score, scores };
}

/** The paired rule's optional screen: evaluate on a seeded subset first, and reject early if far behind. */
async function screenedOut(
  deps: SearchDeps,
  repo: string,
  incumbent: string,
  commit: string,
  round: number,
  index: number,
): Promise<boolean> {
  const rule = deps.config.acceptance;
  if (rule.rule !== "paired" || !rule.screen) return false;
  const known = deps.store.getCandidate(commit);
  if (known?.state === "evaluated") return false;
  const count = Math.max(1, Math.round(deps.tasks.search.length * rule.screen.fraction));
  const subset = createRng(deps.config.seed, "screen", round).shuffle(deps.tasks.search).slice(0, count);
  const ids = new Set(subset.map((task) => task.id));
  const proposalScores = await runJobs(
    deps,
    await loadCandidate(repo, commit),
    commit,
    "search",
    subset,
    `round ${round} p${index} screen`,
  );
  const incumbentScores = deps.store
    .listRollouts(incumbent, "search")
    .map((r) => r.scores as unknown as EpisodeScore)
    .filter((score) => ids.has(score.task_id) && score.repeat < deps.config.repeats);
  const objective = deps.config.objective;
  const mine = safeObjective(proposalScores, objective);
  const theirs = safeObjective(incumbentScores, objective);
  if (mine === null || theirs === null || screenStep(mine, theirs, rule.screen.reject_below) === "continue")
    return false;
  const reason = `screened out: ${mine.toFixed(4)} on ${count} tasks, incumbent ${theirs.toFixed(4)} (margin ${rule.screen.reject_below})`;
  deps.store.setCandidateOutcome(commit, {
    state: "rejected",
    verdict: "screened_out",
    score: null,
    rejected_reason: reason,
  });
  deps.events?.candidate?.({ round, proposal: index, commit, score: null, state: "rejected", reason });
  return true;
}

async function decide(
  deps: SearchDeps,
  incumbent: string,
  incumbentScore: number,
  proposals: readonly EvaluatedProposal[],
) {
  const rule = deps.config.acceptance;
  if (rule.rule === "greater") return decideGreater(incumbentScore, proposals);
  const verdicts: ProposalVerdict[] = [];
  let accepted: EvaluatedProposal | null = null;
  const repo = join(deps.runDir, "harness");
  // α is spent per round: split over the round's proposals (Bonferroni), and halved per look when close calls may get
  // extra repeats (re-testing at the same α is optional stopping; bench/acceptance.ts measured both effects).
  const roundAlpha = rule.alpha / Math.max(1, proposals.length);
  const lookAlpha = rule.max_extra_repeats > 0 ? roundAlpha / 2 : roundAlpha;
  for (const proposal of proposals) {
    let extra = 0;
    let step: PairedStep = "more";
    let test = pairedTest([], [], deps.config.objective, deps.config.seed);
    while (step === "more") {
      const repeats = deps.config.repeats + extra;
      const [incumbentScores, proposalScores] = await settleAll(
        [incumbent, proposal.commit].map(async (commit) =>
          runJobs(
            deps,
            await loadCandidate(repo, commit),
            commit,
            "search",
            deps.tasks.search,
            `paired test, repeat ${repeats}`,
            repeats,
          ),
        ),
      );
      test = pairedTest(
        incumbentScores as EpisodeScore[],
        proposalScores as EpisodeScore[],
        deps.config.objective,
        deps.config.seed,
      );
      step = pairedStep(test, lookAlpha, extra, rule.max_extra_repeats);
      if (step === "more") extra++;
    }
    const p = test.p_value.toFixed(4);
    const withExtra = extra > 0 ? ` after ${extra} extra repeat${extra > 1 ? "s" : ""}` : "";
    const reason =
      step === "accepted"
        ? `p = ${p} ≤ ${fmtAlpha(lookAlpha)}${withExtra}`
        : step === "indecisive"
          ? `close call: p = ${p} > ${fmtAlpha(lookAlpha)}${withExtra}`
          : `p = ${p} > ${fmtAlpha(lookAlpha)} (difference ${test.difference.toFixed(4)})`;
    verdicts.push({ commit: proposal.commit, verdict: step as Verdict, reason, p_value: test.p_value });
    if (step === "accepted" && (accepted === null || proposal.score > accepted.score)) accepted = proposal;
  }
  // Only one proposal becomes the incumbent: the others that cleared are recorded as rejected in its favour.
  for (const verdict of verdicts)
    if (verdict.verdict === "accepted" && verdict.commit !== accepted?.commit) {
      verdict.verdict = "rejected";
      verdict.reason += `, but ${accepted?.commit.slice(0, 12)} scored higher`;
    }
  return { accepted: accepted?.commit ?? null, verdicts };
}

function fmtAlpha(alpha: number): string {
  return `α = ${Number(alpha.toPrecision(3))}`;
}

function recordVerdict(deps: SearchDeps, round: number, verdict: ProposalVerdict): void {
  const candidate = deps.store.getCandidate(verdict.commit);
  if (!candidate) return;
  // An evaluated proposal keeps its score; "rejected" as a state means "not the incumbent", the verdict says why.
  deps.store.setCandidateOutcome(verdict.commit, {
    state: verdict.verdict === "accepted" ? "evaluated" : "rejected",
    verdict: verdict.verdict,
    score: candidate.score,
    summary: candidate.summary,
    rejected_reason: verdict.verdict === "accepted" ? null : verdict.reason,
  });
  deps.store.logEvent("verdict", { round, ...verdict });
}

/**
 * Optional per-round held-out diagnostic of the incumbent. Stored with purpose `diagnostic`, which the search view
 * (the only store access proposers and acceptance get) cannot read; `hsearch status` shows it per round.
 */
async function diagnostic(deps: SearchDeps, repo: string, incumbent: string, round: number): Promise<void> {
  // The same incumbent on the same tasks and seeds gives the same diagnostic: one row per incumbent, read per round.
  if (deps.store.getEvaluation(incumbent, "diagnostic", "heldout")) return;
  const harness = await loadCandidate(repo, incumbent);
  const scores = await runJobs(
    deps,
    harness,
    incumbent,
    "diagnostic",
    deps.tasks.heldout(),
    `round ${round} diagnostic`,
  );
  deps.store.putEvaluation({
    candidate: incumbent,
    purpose: "diagnostic",
    split: "heldout",
    round,
    summary: {
      ...summarize(scores),
      objective: safeObjective(scores, deps.config.objective),
    } as unknown as Record<string, unknown>,
  });
}

/** After the search: the selected and the seed harness on held-out and independent tasks. */
async function finalEvaluations(
  deps: SearchDeps,
  repo: string,
  selected: string,
  seed: string,
): Promise<void> {
  const plans: Array<{ purpose: "heldout" | "independent"; tasks: Task[] }> = [
    { purpose: "heldout", tasks: deps.tasks.heldout() },
    { purpose: "independent", tasks: deps.tasks.independent() },
  ];
  for (const commit of selected === seed ? [selected] : [selected, seed]) {
    const harness = await loadCandidate(repo, commit);
    for (const { purpose, tasks } of plans) {
      if (tasks.length === 0) continue;
      if (deps.store.getEvaluation(commit, purpose, purpose)) continue;
      const role = commit === selected ? "selected" : "seed";
      deps.events?.phase?.(`final: ${role} harness on ${purpose}`);
      const scores = await runJobs(deps, harness, commit, purpose, tasks, `${role} on ${purpose}`);
      deps.store.putEvaluation({
        candidate: commit,
        purpose,
        split: purpose,
        round: null,
        summary: {
          ...summarize(scores),
          objective: safeObjective(scores, deps.config.objective),
          role,
        } as unknown as Record<string, unknown>,
      });
    }
  }
}

/** The objective where it is defined (SA-only needs blocked tasks; the independent split has none). */
function safeObjective(
  scores: readonly EpisodeScore[],
  objective: SearchDeps["config"]["objective"],
): number | null {
  const hasBlocked = scores.some((score) => score.kind === "blocked");
  return objective === "sa-only" && !hasBlocked ? null : objectiveScore(scores, objective);
}

/** Promise.all that waits for every promise before rethrowing, so no rollout still writes after the run stopped. */
async function settleAll<T>(promises: readonly Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((result) => (result as PromiseFulfilledResult<T>).value);
}

export function configHash(config: SearchConfig): string {
  return hashJson(config);
}
