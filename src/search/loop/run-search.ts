import { existsSync } from "node:fs";
import { join } from "node:path";
import { initHarnessRepo, moveIncumbent, readTree, tagSelected } from "../../git";
import { harnessLimitsOf, parseHarness } from "../../harness";
import { Semaphore } from "../../models";
import { acceptanceRound, acceptanceScreen, paretoRound, recordVerdict } from "../acceptance";
import { type Admitted, admitProposal } from "../acceptance/admit-proposal";
import { groupByParent, paretoParents } from "../acceptance/pareto-round";
import { mergeProposal } from "../pareto/pareto-merge";
import { BudgetExhausted, BudgetGate } from "../plan/budget";
import { proposerOf } from "../proposers";
import { propose } from "../proposers/propose";
import { evaluateCandidate } from "./candidate-rollouts";
import { diagnostic, finalEvaluations } from "./final-evaluation";
import type { SearchDeps } from "./search-deps";
import type { SearchOutcome } from "./search-events";

/**
 * A budget limit stops the run where it is: in-flight rollouts finish and are stored, nothing new starts, and the
 * run is left `budget_exhausted` for `--resume` with a larger budget (which then ends where an uninterrupted run would).
 */
export async function runSearch(deps: SearchDeps): Promise<SearchOutcome> {
  const { store } = deps;
  store.setRunState("running");
  // This session's usage is its own rows (role, model); earlier sessions' spend is read once.
  const session = store.beginUsageSession();
  const earlierUsd = store.totalUsd(session);
  const usageRows = () => deps.usage?.() ?? [];
  const sessionUsd = () => usageRows().reduce((sum, row) => sum + (row.usd ?? 0), 0);
  const gate = new BudgetGate(
    deps.config.budget,
    {
      countRollouts: () => store.countRollouts() - store.countCachedRollouts(),
      totalUsd: () => earlierUsd + sessionUsd(),
      activeMs: () => store.activeMs(),
      setActiveMs: (ms) => store.setActiveMs(ms),
      persistUsage: () => {
        if (deps.usage) store.putSessionUsage(session, usageRows());
      },
    },
    Date.now,
    deps.signal,
  );
  const progress = { incumbent: "" };
  try {
    return await search(
      {
        ...deps,
        gate,
        slots: new Semaphore(deps.config.concurrency),
      },
      progress,
    );
  } catch (error) {
    if (!(error instanceof BudgetExhausted)) throw error;
    store.setRunState("budget_exhausted", error.message);
    store.logEvent({
      kind: "budget_exhausted",
      data: {
        limit: error.limit,
        ...error.usage,
        incumbent: progress.incumbent,
      },
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

/**
 * The outer loop (docs/DESIGN.md §7). Every step is idempotent and keyed, so `--resume` re-enters it from the top: stored
 * rollouts are skipped, commits are deterministic, finished rounds are read back, and the run ends where an
 * uninterrupted one would.
 */
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
  let stoppedBy: "rounds" | "early_stop" | "exhausted" = "rounds";
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
      store.logEvent({ kind: "early_stop", data: { round, patience: config.early_stop.patience } });
      break;
    }
    // A proposer that found nothing and reads nothing new (the operators under greedy) would find nothing again.
    if (proposerOf(config).ranDry?.(deps, round - 1)) {
      stoppedBy = "exhausted";
      store.logEvent({ kind: "exhausted_stop", data: { round, incumbent } });
      break;
    }
    // A spent budget stops before the proposer is asked (an LLM proposer costs too).
    deps.gate?.check();
    // Greedy proposes from the incumbent; pareto draws each proposal's parent from the front by a seeded rule
    // (src/search/pareto/pareto.ts), and asks the proposer once per parent drawn.
    // Under pareto the last slot merges another front member's edits into its parent when that is new (GEPA's merge).
    const slots = config.strategy === "pareto" ? paretoParents(deps, round) : [];
    store.startRound(round, incumbent);
    events.phase?.(`round ${round}: proposing`);
    const mergeInto = slots.length > 1 ? slots.at(-1) : undefined;
    const merge = mergeInto ? await mergeProposal(deps, repo, round, mergeInto) : null;
    const parents =
      config.strategy === "pareto"
        ? groupByParent(merge ? slots.slice(0, -1) : slots)
        : [{ parent: incumbent, count: config.proposals_per_round }];
    // Commits and checks one after the other (the duplicate check reads earlier ones); then every admitted
    // proposal is evaluated at once on the run's shared slots. Results stay in proposal order, so acceptance does
    // not depend on which evaluation finished first. Each parent's proposals take its slots (a short answer leaves
    // a gap), so a proposal's number does not depend on how many another parent's proposer returned.
    const admitted: Array<Admitted & { parent: string }> = [];
    let firstSlot = 1;
    for (const [group, { parent, count }] of parents.entries()) {
      const avoid = merge ? [merge.harness] : [];
      const proposals = await propose(deps, repo, parent, round, { count, group, firstSlot, avoid });
      for (const [offset, proposal] of proposals.slice(0, count).entries()) {
        const result = await admitProposal(deps, repo, parent, round, firstSlot + offset, proposal);
        if (result) admitted.push({ ...result, parent });
      }
      firstSlot += count;
    }
    if (merge && mergeInto) {
      const result = await admitProposal(deps, repo, mergeInto, round, firstSlot, merge.proposal);
      if (result) admitted.push({ ...result, parent: mergeInto });
    }
    // The rule evaluates and decides the round (racing, early rejection, a paired test …: src/search/acceptance);
    // under pareto the front decides, and the incumbent is the front's best by the objective.
    const context = { deps, repo, round, incumbent, incumbentScore, admitted };
    const pareto = config.strategy === "pareto" ? await paretoRound(context, acceptanceScreen(config)) : null;
    const { decision } = pareto ?? (await acceptanceRound(context));
    for (const verdict of decision.verdicts) recordVerdict(deps, round, verdict);
    const next = pareto ? pareto.best : decision.accepted;
    if (next && next !== incumbent) {
      incumbent = next;
      progress.incumbent = incumbent;
      incumbentScore = store.getCandidate(incumbent)?.score ?? incumbentScore;
      await moveIncumbent(repo, incumbent);
    }
    if (decision.accepted) idleRounds = 0;
    else idleRounds++;
    store.finishRound(round, {
      incumbent_after: incumbent,
      accepted_commit: decision.accepted,
      decision: {
        rule: pareto ? "pareto" : config.acceptance.rule,
        verdicts: decision.verdicts,
      },
    });
    store.logEvent({
      kind: "round",
      data: { round, incumbent, score: incumbentScore, accepted: decision.accepted },
    });
    if (config.heldout.per_round) await diagnostic(deps, repo, incumbent, round);
    events.round?.({ round, incumbent, score: incumbentScore, accepted: decision.accepted });
  }

  await tagSelected(repo, incumbent);
  if (config.heldout.final) await finalEvaluations(deps, repo, incumbent, seed);
  store.setRunState("finished");
  store.logEvent({
    kind: "finished",
    data: { selected: incumbent, score: incumbentScore, stopped_by: stoppedBy },
  });
  return { selected: incumbent, score: incumbentScore, stoppedBy };
}

async function initSeed(deps: SearchDeps, repo: string): Promise<string> {
  const { store } = deps;
  const existing = store.listCandidates({ round: 0 })[0];
  if (existing && existsSync(join(repo, ".git"))) return existing.commit;
  const init = await initHarnessRepo(repo, deps.seedHarnessDir, { runId: deps.runId });
  const files = await readTree(repo, init.seed);
  const harness = parseHarness(files, deps.seedHarnessDir, harnessLimitsOf(deps.config.limits));
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
