import type { Task } from "../domain";
import { createTaskEnvironment, type Environment, type EnvironmentOptions, TaskSetupError } from "../envs";
import { type OpenRollout, type RolloutInput, TASK_SETUP_FAILED, withOpenRollout } from "../harness";

/**
 * Probes continue a finished episode on its still-open environment: `withOpenRollout` in src/harness/rollout.ts.
 * Their rollouts skip the verifier unless asked (the belief probe has nothing to verify).
 */
export { type OpenRollout, withOpenRollout } from "../harness";
export type OpenRolloutInput = RolloutInput;

/** The environment of a probe episode: read-only where the suite can enforce it (the terminal workspace). */
export function probeEnvironment(task: Task, options: EnvironmentOptions): Promise<Environment> {
  return createTaskEnvironment(task, options);
}

/**
 * `withOpenRollout` for a probe: a task whose environment cannot be set up (its setup script failed) is that task's
 * infrastructure error, reported by `setupFailed` with the setup's output, as in eval; the other tasks are probed.
 */
export async function withProbeRollout<T>(
  input: RolloutInput,
  use: (rollout: OpenRollout) => Promise<T>,
  setupFailed: (error: string) => T,
): Promise<T> {
  try {
    return await withOpenRollout(input, use);
  } catch (error) {
    if (error instanceof TaskSetupError) return setupFailed(`${TASK_SETUP_FAILED}: ${error.message}`);
    throw error;
  }
}
