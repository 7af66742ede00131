/**
 * A rollout's row, taken from its trajectory so that the columns cannot disagree with what is stored in JSONL. Pure.
 */
import { badInput, canonicalJson } from "../core";
import { SPLITS } from "../domain";
import { type NewRollout, PURPOSES } from "./records";
import type { LinePointer } from "./trajectory-log";

/** The split each purpose may run on: search on search only, so the search view cannot meet other data. */
const SPLITS_BY_PURPOSE: Record<string, readonly string[]> = {
  search: ["search"],
  heldout: ["heldout"],
  independent: ["independent"],
  diagnostic: ["heldout", "independent"],
};

/** Throws bad_input unless the rollout can be stored. Checked for a whole batch before anything is written. */
export function assertStorableRollout(rollout: NewRollout): void {
  const where = { field: `rollout ${rollout.key}` };
  if (typeof rollout.key !== "string" || rollout.key.length === 0)
    throw badInput("a rollout needs a key", where);
  if (!(PURPOSES as readonly string[]).includes(rollout.purpose)) {
    throw badInput(`unknown purpose '${rollout.purpose}'`, where);
  }
  if (!(SPLITS as readonly string[]).includes(rollout.split))
    throw badInput(`unknown split '${rollout.split}'`, where);
  if (!SPLITS_BY_PURPOSE[rollout.purpose]?.includes(rollout.split)) {
    throw badInput(`a ${rollout.purpose} rollout cannot be on the ${rollout.split} split`, where);
  }
  const trajectory = rollout.trajectory as Partial<NewRollout["trajectory"]> | undefined;
  if (
    typeof trajectory?.task_id !== "string" ||
    trajectory.end === undefined ||
    trajectory.usage === undefined
  ) {
    throw badInput("the rollout's trajectory lacks task_id, end or usage", where);
  }
}

/** Column values in the order of the INSERT in run-store.ts. */
export function rolloutRow(
  commit: string,
  rollout: NewRollout,
  file: string,
  pointer: LinePointer,
  createdAt: string,
): unknown[] {
  const { trajectory } = rollout;
  const infraError = trajectory.end.reason === "infra_error" ? (trajectory.end.error ?? "infra_error") : null;
  return [
    rollout.key,
    rollout.purpose,
    commit,
    trajectory.task_id,
    rollout.split,
    trajectory.kind,
    trajectory.family ?? null,
    trajectory.model,
    trajectory.seed,
    trajectory.repeat,
    canonicalJson(rollout.scores),
    trajectory.reward,
    trajectory.end.reason,
    trajectory.steps,
    trajectory.usage.input_tokens,
    trajectory.usage.output_tokens,
    trajectory.usage.usd,
    trajectory.usage.model_calls,
    infraError,
    file,
    pointer.offset,
    pointer.length,
    pointer.sha256,
    createdAt,
    trajectory.from_cache === true ? 1 : 0,
    trajectory.suite,
  ];
}

/**
 * The columns that make up a rollout's result (no time, no byte offsets): used by RunStore.contentHash. `from_cache`
 * is not one: a rollout cut short by a kill and run again on resume may find its first calls in the request cache.
 */
export const ROLLOUT_CONTENT_COLUMNS = [
  "key",
  "purpose",
  "candidate_commit",
  "task_id",
  "split",
  "kind",
  "family",
  "model",
  "seed",
  "repeat",
  "scores_json",
  "reward",
  "end_reason",
  "steps",
  "input_tokens",
  "output_tokens",
  "usd",
  "model_calls",
  "infra_error",
  "trajectory_file",
  "trajectory_sha256",
] as const;
