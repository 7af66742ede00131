import type { Rng } from "../../core";
import type { EpisodeScore } from "../../scoring";
import { type ObjectiveName as Objective, objectiveOf } from "../../scoring";

/**
 * `strategy: pareto` (issue 11.4, after GEPA): instead of one incumbent, keep every candidate that is best on at
 * least one family of search tasks and not dominated, pick the parent of each round from that front by a seeded rule,
 * and admit a new candidate into the front when it gains on its parent (GEPA's gate) and no member dominates it. Pure:
 * the loop hands in per-family outcomes read from the search view, and gets commits back; selection at the end stays
 * by the objective on the search split.
 */
export interface FrontCandidate {
  commit: string;
  round: number;
  proposal: number;
  /** The objective on the search split. */
  score: number;
  /** Per group of search tasks (family, see groupOutcomes): the mean outcome under the objective. */
  outcomes: ReadonlyMap<string, number>;
  /** Proposals already made from it that did not enter the front. */
  spent?: number;
  /** Edits since the seed (its lineage's length): the tie-break of the selection. */
  edits?: number;
}

/**
 * A candidate's outcomes on the search split under the objective (strict SA on a blocked episode, solve on a feasible
 * one), averaged per group: per family (the blocked families, and `feasible`) — the front `strategy: pareto` keeps —
 * or per task. Per task, with one repeat, an outcome is one draw: nearly every pair of candidates then differs on some
 * task by chance and nobody is dominated, so the front fills with candidates that lead by noise; a family's rate
 * over its dozens of tasks says which candidate is really better at that kind of blocker.
 */
export function groupOutcomes(
  scores: readonly EpisodeScore[],
  objective: Objective,
  by: "family" | "task" = "family",
): Map<string, number> {
  const sums = new Map<string, { total: number; n: number }>();
  const { episodeValue } = objectiveOf(objective);
  for (const score of scores) {
    const value = episodeValue(score);
    if (value === null) continue;
    const group = by === "task" ? score.task_id : score.kind === "blocked" ? score.family : "feasible";
    const entry = sums.get(group) ?? { total: 0, n: 0 };
    entry.total += value;
    entry.n++;
    sums.set(group, entry);
  }
  return new Map(
    [...sums].sort(([a], [b]) => a.localeCompare(b)).map(([group, { total, n }]) => [group, total / n]),
  );
}

/** a dominates b: at least as good on every task and better on one. */
export function dominates(a: FrontCandidate, b: FrontCandidate): boolean {
  let better = false;
  for (const [task, value] of b.outcomes) {
    const mine = a.outcomes.get(task) ?? 0;
    if (mine < value) return false;
    if (mine > value) better = true;
  }
  return better;
}

const byAge = (a: FrontCandidate, b: FrontCandidate) =>
  a.round - b.round || a.proposal - b.proposal || a.commit.localeCompare(b.commit);

/**
 * The front: members that no other member dominates, with the number of tasks on which each reaches the best outcome
 * any member reaches (its weight as a parent). A task on which every member has the same outcome is not counted: it
 * says nothing about which member to extend, and with binary outcomes most tasks are such ties, which would make the
 * draw nearly uniform and give a member that leads on two tasks the weight of one that leads on twenty. Members with
 * the same outcomes on every task count once (the oldest).
 */
export function paretoFront(
  members: readonly FrontCandidate[],
): Array<{ candidate: FrontCandidate; wins: number }> {
  const unique: FrontCandidate[] = [];
  for (const candidate of [...members].sort(byAge))
    if (!unique.some((other) => sameOutcomes(other, candidate))) unique.push(candidate);
  const kept = unique.filter(
    (candidate) => !unique.some((other) => other !== candidate && dominates(other, candidate)),
  );
  const tasks = [...new Set(kept.flatMap((c) => [...c.outcomes.keys()]))].filter(
    (task) => new Set(kept.map((c) => c.outcomes.get(task) ?? 0)).size > 1,
  );
  return kept.map((candidate) => {
    let wins = 0;
    for (const task of tasks) {
      const best = Math.max(...kept.map((c) => c.outcomes.get(task) ?? 0));
      if ((candidate.outcomes.get(task) ?? 0) === best) wins++;
    }
    return { candidate, wins };
  });
}

/**
 * GEPA's parent rule: a member of the front, drawn with probability proportional to the tasks it is best on (a front
 * whose members tie everywhere, e.g. the seed alone, is drawn from uniformly).
 */
export function pickParent(members: readonly FrontCandidate[], rng: Rng): FrontCandidate {
  const front = paretoFront(members);
  const led = front.reduce((sum, entry) => sum + entry.wins, 0);
  // Each proposal from a member that did not enter the front divides its weight: the operators walk down a ranked
  // list, so a member whose proposals keep failing has used up its best edits, and the others get their turn.
  const weights = front.map((entry) => (led > 0 ? entry.wins : 1) / (1 + (entry.candidate.spent ?? 0)));
  const drawn = front[drawIndex(weights, rng)];
  if (!drawn) throw new Error("pickParent: the front is empty");
  return drawn.candidate;
}

/** An index drawn with probability proportional to its weight (the last one if rounding runs past the total). */
export function drawIndex(weights: readonly number[], rng: Rng): number {
  let draw = rng.next() * weights.reduce((sum, weight) => sum + weight, 0);
  for (const [index, weight] of weights.entries()) {
    draw -= weight;
    if (draw < 0) return index;
  }
  return weights.length - 1;
}

/**
 * Admit into the front when the candidate gains on its parent (GEPA's gate), no member dominates it, and none has
 * exactly its outcomes. The gain is per family, as GEPA's gate is on the minibatch its reflection aimed at, not on the
 * whole set: a child better than its parent on one family and worse on another is the trade-off a front exists to
 * keep (a candidate that is only worse everywhere is dominated by its parent anyway).
 */
export function admitToFront(
  candidate: FrontCandidate,
  members: readonly FrontCandidate[],
  parent: FrontCandidate | null = null,
): { admitted: boolean; reason: string } {
  if (parent !== null) {
    const gains = [...candidate.outcomes].filter(
      ([group, value]) => value > (parent.outcomes.get(group) ?? 0),
    );
    if (gains.length === 0)
      return {
        admitted: false,
        reason: `no gain on its parent in any family (${candidate.score.toFixed(4)} ${candidate.score < parent.score ? "<" : candidate.score > parent.score ? ">" : "ties"} ${parent.score.toFixed(4)})`,
      };
  }
  const front = paretoFront(members).map((entry) => entry.candidate);
  const dominator = front.find((member) => dominates(member, candidate));
  if (dominator)
    return {
      admitted: false,
      reason: `dominated by ${dominator.commit.slice(0, 12)} on the search families`,
    };
  const twin = front.find((member) => sameOutcomes(member, candidate));
  if (twin) return { admitted: false, reason: `same outcomes on every task as ${twin.commit.slice(0, 12)}` };
  const beaten = front.filter((member) => dominates(candidate, member)).length;
  return {
    admitted: true,
    reason: `not dominated: joins the front${beaten > 0 ? `, dominating ${beaten} member${beaten > 1 ? "s" : ""}` : ""}`,
  };
}

/**
 * The selection: the front member best by the objective on the search split. On a tie, the one with the fewest edits
 * since the seed, then the oldest: an edit that adds nothing on the search split is a risk on held-out tasks (greedy,
 * which never accepts a tie, never takes one either).
 */
export function bestByObjective(members: readonly FrontCandidate[]): FrontCandidate {
  const sorted = [...members].sort(
    (a, b) => b.score - a.score || (a.edits ?? 0) - (b.edits ?? 0) || byAge(a, b),
  );
  const best = sorted[0];
  if (!best) throw new Error("bestByObjective: no candidate");
  return best;
}

function sameOutcomes(a: FrontCandidate, b: FrontCandidate): boolean {
  if (a.outcomes.size !== b.outcomes.size) return false;
  for (const [task, value] of a.outcomes) if (b.outcomes.get(task) !== value) return false;
  return true;
}
