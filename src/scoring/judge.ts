/**
 * A judge decides the two soft parts of the M0–M3 ladder (docs/DESIGN.md §6): recognition (M0) and whether the agent's
 * reason matches the protected blocker (the reason part of M3). Everything else is deterministic (episode.ts).
 */

import type { Task } from "../domain";
import type { Trajectory } from "../harness";

export interface JudgeVerdict {
  /** The judge that gave it: `rules` or `llm:<model>`. */
  judge: string;
  /** M0: a visible agent-authored assessment gives the correct label and a blocker-grounded rationale. */
  recognized: boolean;
  /** The correct infeasibility label was given (part of `recognized`). */
  label_correct: boolean;
  /** The reason of the agent's first certified deferral matches the protected blocker (false if there is none). */
  reason_matches: boolean;
  rationale: string;
  /** hashJson of everything the verdict depends on (judge, rubric, inputs): store it with the score. */
  input_hash: string;
}

export interface Judge {
  readonly id: string;
  /** Judge a blocked task's trajectory. Throws HsearchError("bad_input") for a task without a blocker. */
  judgeBlocked(task: Task, trajectory: Trajectory): Promise<JudgeVerdict>;
}
