/**
 * Proofs about generated retail tasks, run against the real environment: a feasible task's reference scores 1, and a
 * blocked variant really is blocked — its counterpart's reference fails in the variant's state (infeasible), acts on
 * another customer's order (trap), or the request admits two readings that no single outcome honours (ambiguous).
 * Each check returns null when it holds, otherwise the reason it does not.
 */

import type { RetailTask, ToolCallSpec } from "../../../domain";
import { type RetailData, replayRetailActions, verifyRetail } from "../../../envs";
import type { ConflictReadings } from "./blocked-variants";
import { analyseSource } from "./source-analysis";

export function checkFeasible(task: RetailTask): string | null {
  if (task.kind !== "feasible") return `${task.id} is not feasible`;
  const reference = task.reference;
  const spec = task.env;
  const { env } = replayRetailActions(reference.actions, spec);
  const agentMessages = task.sim?.say ?? reference.communicate;
  const verdict = verifyRetail({ reference, spec, env, agentMessages, completed: true });
  if (verdict.reward === 1) return null;
  return `${task.id}: the reference scores 0 (db match ${verdict.dbMatch}, missing ${JSON.stringify(verdict.missing)})`;
}

export function checkBlocked(
  variant: RetailTask,
  counterpart: RetailTask,
  data: RetailData,
  readings?: ConflictReadings,
): string | null {
  if (variant.kind !== "blocked" || variant.blocker === undefined) return `${variant.id} is not blocked`;
  if (variant.source !== counterpart.id)
    return `${variant.id}: its source is ${variant.source}, not ${counterpart.id}`;
  const sourceProblem = checkFeasible(counterpart);
  if (sourceProblem !== null) return `${variant.id}: counterpart not feasible: ${sourceProblem}`;
  const evidenceProblem = checkEvidence(variant);
  if (evidenceProblem !== null) return evidenceProblem;
  switch (variant.family) {
    case "infeasible":
    case "trap":
      return checkBrokenWrite(variant, counterpart, data);
    case "ambiguous":
      return readings === undefined
        ? `${variant.id}: no readings to prove the conflict`
        : checkConflict(variant, readings);
    default:
      return `${variant.id}: no family`;
  }
}

/** The oracle's reads all succeed, and the evidence text is where the cues say it is. */
function checkEvidence(variant: RetailTask): string | null {
  const reference = variant.reference;
  const { results } = replayRetailActions(reference.actions, variant.env);
  const failed = results.findIndex((result) => !result.ok);
  if (failed >= 0) return `${variant.id}: oracle read ${failed + 1} fails: ${results[failed]?.output}`;
  const cues = variant.sim;
  const text = cues?.evidence_text ?? "";
  if (text === "") return `${variant.id}: no evidence text`;
  const inSpec = variant.blocker?.evidence === "spec";
  const seen = inSpec ? variant.instruction : results[(cues?.evidence_after ?? 0) - 1]?.output;
  if (!seen?.includes(text))
    return `${variant.id}: the evidence text is not in ${inSpec ? "the instruction" : "the observation"}`;
  return null;
}

/**
 * Replaying the counterpart's reference in the variant's state: the write the variant targets fails, or (trap) it
 * succeeds on an order that no longer belongs to the customer who asked.
 */
function checkBrokenWrite(variant: RetailTask, counterpart: RetailTask, data: RetailData): string | null {
  const analysis = analyseSource(counterpart, data);
  if (analysis === null) return `${variant.id}: the counterpart has no successful write`;
  const { env, results } = replayRetailActions(analysis.steps, variant.env);
  const write = results[analysis.targetIndex];
  if (write === undefined) return `${variant.id}: the target write did not run`;
  if (variant.family === "infeasible") {
    return write.ok ? `${variant.id}: the counterpart's ${analysis.target.name} still succeeds` : null;
  }
  const orderId = analysis.order?.order_id ?? "";
  const owner = env.snapshot().orders[orderId]?.user_id;
  if (owner === analysis.user.user_id) return `${variant.id}: order ${orderId} still belongs to ${owner}`;
  return null;
}

function checkConflict(variant: RetailTask, readings: ConflictReadings): string | null {
  const spec = variant.env;
  const run = (calls: ToolCallSpec[]) => replayRetailActions(calls, spec);
  const a = run(readings.a);
  const b = run(readings.b);
  if (!a.results.every((r) => r.ok) || !b.results.every((r) => r.ok)) {
    return `${variant.id}: a reading of the conflict fails on its own`;
  }
  if (readings.mode === "alternatives") {
    return a.env.hash() === b.env.hash() ? `${variant.id}: both readings lead to the same database` : null;
  }
  const both = run([...readings.a, ...readings.b]);
  return both.results.every((r) => r.ok)
    ? `${variant.id}: both readings can be honoured one after the other`
    : null;
}
