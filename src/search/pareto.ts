import type { Rng } from "../core/rng";
import type { EpisodeScore } from "../scoring";
import { type ObjectiveName as Objective, objectiveOf } from "../scoring/objective";

/**
 * `strategy: pareto` (issue 11.4, after GEPA): instead of one incumbent, keep every candidate that is best on at
 * least one search task and not dominated, pick the parent of each round from that front by a seeded rule, and admit a
 * new candidate into the front when no member dominates it. Pure: the loop hands in per-task outcomes read from the
 * search view, and gets commits back; selection at the end stays by the objective on the search split.
 */
export interface FrontCandidate {
  commit: string;
  round: number;
  proposal: number;
  /** The objective on the search split. */
  score: number;
  /** Per search task: its outcome under the objective (strict SA on blocked, solve on feasible), mean over repeats. */
  outcomes: ReadonlyMap<string, number>;
}

/** Per-task outcomes of a candidate's search-split episode scores, under the objective. */
export function taskOutcomes(scores: readonly EpisodeScore[], objective: Objective): Map<string, number> {
  const sums = new Map<string, { total: number; n: number }>();
  const { episodeValue } = objectiveOf(objective);
  for (const score of scores) {
    const value = episodeValue(score);
    if (value === null) continue;
    const entry = sums.get(score.task_id) ?? { total: 0, n: 0 };
    entry.total += value;
    entry.n++;
    sums.set(score.task_id, entry);
  }
  return new Map([...sums].map(([task, { total, n }]) => [task, total / n]));
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
 * any member reaches (its weight as a parent). Members with the same outcomes on every task count once (the oldest).
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
  const tasks = new Set(kept.flatMap((c) => [...c.outcomes.keys()]));
  return kept.map((candidate) => {
    let wins = 0;
    for (const task of tasks) {
      const best = Math.max(...kept.map((c) => c.outcomes.get(task) ?? 0));
      if ((candidate.outcomes.get(task) ?? 0) === best) wins++;
    }
    return { candidate, wins };
  });
}

/** GEPA's parent rule: a member of the front, drawn with probability proportional to the tasks it is best on. */
export function pickParent(members: readonly FrontCandidate[], rng: Rng): FrontCandidate {
  const front = paretoFront(members);
  const total = front.reduce((sum, entry) => sum + entry.wins, 0);
  let draw = rng.next() * total;
  for (const entry of front) {
    draw -= entry.wins;
    if (draw < 0) return entry.candidate;
  }
  const last = front.at(-1);
  if (!last) throw new Error("pickParent: the front is empty");
  return last.candidate;
}

/** Admit into the front when no member dominates the candidate and none has exactly its outcomes. */
export function admitToFront(
  candidate: FrontCandidate,
  members: readonly FrontCandidate[],
): { admitted: boolean; reason: string } {
  const front = paretoFront(members).map((entry) => entry.candidate);
  const dominator = front.find((member) => dominates(member, candidate));
  if (dominator)
    return { admitted: false, reason: `dominated by ${dominator.commit.slice(0, 12)} on the search tasks` };
  const twin = front.find((member) => sameOutcomes(member, candidate));
  if (twin) return { admitted: false, reason: `same outcomes on every task as ${twin.commit.slice(0, 12)}` };
  const beaten = front.filter((member) => dominates(candidate, member)).length;
  return {
    admitted: true,
    reason: `not dominated: joins the front${beaten > 0 ? `, dominating ${beaten} member${beaten > 1 ? "s" : ""}` : ""}`,
  };
}

/** The selection: the front member best by the objective on the search split; the oldest on a tie. */
export function bestByObjective(members: readonly FrontCandidate[]): FrontCandidate {
  const sorted = [...members].sort((a, b) => b.score - a.score || byAge(a, b));
  const best = sorted[0];
  if (!best) throw new Error("bestByObjective: no candidate");
  return best;
}

function sameOutcomes(a: FrontCandidate, b: FrontCandidate): boolean {
  if (a.outcomes.size !== b.outcomes.size) return false;
  for (const [task, value] of a.outcomes) if (b.outcomes.get(task) !== value) return false;
  return true;
}
