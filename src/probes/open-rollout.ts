import type { Task } from "../domain/task";
import { createTaskEnvironment } from "../envs/suite-env";
import type { Environment } from "../envs/types";
import type { RolloutInput } from "../harness/rollout";

/**
 * Probes continue a finished episode on its still-open environment: `withOpenRollout` in src/harness/rollout.ts.
 * Their rollouts skip the verifier unless asked (the belief probe has nothing to verify).
 */
export { type OpenRollout, withOpenRollout } from "../harness/rollout";
export type OpenRolloutInput = RolloutInput;

/** The environment of a probe episode: read-only where the suite can enforce it (the terminal workspace). */
export function probeEnvironment(task: Task, options: { readOnly: boolean }): Promise<Environment> {
  return createTaskEnvironment(task, options);
}
