/**
 * Timeliness of abstention (docs/DESIGN.md §6), over N blocked episodes with decisive step o_i and agent deferral step
 * a_i (the first agent-authored certified deferral; null stands for ∞):
 * - AbsRec@K = (1/N) Σ 1[0 ≤ a_i − o_i ≤ K − 1]; timely recall = AbsRec@1.
 * - SPL = (1/N) Σ S_i · o_i / max(a_i, o_i), with S_i = 1 iff a deferral exists and a_i ≥ o_i.
 * An early deferral (a_i < o_i) counts for neither: it came before the evidence could justify it.
 */
import { badInput } from "../core";

export interface TimelinessPoint {
  decisive_step: number;
  deferral_step: number | null;
}

export const ABSREC_KS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;

export type AbsRecTable = Record<string, number>;

export interface Timeliness {
  n: number;
  absrec: AbsRecTable;
  timely_recall: number;
  spl: number;
}

/** The episode's AbsRec@K term: deferred within K steps of the decisive one (an early deferral counts for none). */
export function deferredWithin({ decisive_step: o, deferral_step: a }: TimelinessPoint, k: number): boolean {
  return a !== null && a - o >= 0 && a - o <= k - 1;
}

export function absRecAtK(points: readonly TimelinessPoint[], k: number): number {
  checkPoints(points);
  if (!Number.isInteger(k) || k < 1) throw badInput(`AbsRec@K needs an integer K ≥ 1, got ${k}`);
  return points.filter((point) => deferredWithin(point, k)).length / points.length;
}

/** The episode's SPL term S · o / max(a, o), S = 1 iff the agent deferred at a ≥ o. */
export function splTerm({ decisive_step: o, deferral_step: a }: TimelinessPoint): number {
  return a !== null && a >= o ? o / Math.max(a, o) : 0;
}

export function spl(points: readonly TimelinessPoint[]): number {
  checkPoints(points);
  let total = 0;
  for (const point of points) total += splTerm(point);
  return total / points.length;
}

export function timeliness(points: readonly TimelinessPoint[]): Timeliness {
  const absrec: AbsRecTable = {};
  for (const k of ABSREC_KS) absrec[String(k)] = absRecAtK(points, k);
  return { n: points.length, absrec, timely_recall: absrec["1"] as number, spl: spl(points) };
}

function checkPoints(points: readonly TimelinessPoint[]): void {
  if (points.length === 0) throw badInput("timeliness needs at least one blocked episode");
  for (const [index, { decisive_step: o, deferral_step: a }] of points.entries()) {
    if (!Number.isInteger(o) || o < 1) {
      throw badInput(`episode ${index}: decisive step must be an integer ≥ 1, got ${o}`, {
        field: "decisive_step",
      });
    }
    if (a !== null && (!Number.isInteger(a) || a < 0)) {
      throw badInput(`episode ${index}: deferral step must be an integer ≥ 0 or null, got ${a}`, {
        field: "deferral_step",
      });
    }
  }
}
