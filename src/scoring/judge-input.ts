/**
 * What a judge reads: the protected blocker and the agent's own visible assessment text. Harness-authored text
 * never enters, so a harness-written deferral or report cannot earn the agent recognition.
 */
import { badInput } from "../core";
import type { Blocker, Family, Task } from "../domain";
import type { DeferralVia, Trajectory } from "../harness";

export type AssessmentSource = "assessment" | "deferral" | "report" | "message";

/** One piece of agent-authored assessment text, in trajectory order. */
export interface AssessmentUnit {
  step: number;
  source: AssessmentSource;
  /** assessment: feasible|blocked; report: done|blocked; deferral: blocked; message: none. */
  status?: string;
  label?: Family;
  text: string;
}

export interface DeferralReason {
  step: number;
  via: DeferralVia;
  label?: Family;
  text: string;
}

export interface JudgeInput {
  task_id: string;
  instruction: string;
  blocker: Blocker;
  assessments: AssessmentUnit[];
  /** The reason of the first agent-authored certified deferral, or null if the agent never deferred. */
  deferral_reason: DeferralReason | null;
}

export function blockerOf(task: Task): Blocker {
  if (task.kind !== "blocked" || task.blocker === undefined) {
    throw badInput(`task ${task.id} is not a blocked task with a blocker`, { field: "blocker" });
  }
  return task.blocker;
}

export function buildJudgeInput(task: Task, trajectory: Trajectory): JudgeInput {
  const blocker = blockerOf(task);
  if (trajectory.task_id !== task.id) {
    throw badInput(`trajectory of task ${trajectory.task_id} judged against task ${task.id}`, {
      field: "task_id",
    });
  }
  const assessments: AssessmentUnit[] = [];
  let deferralReason: DeferralReason | null = null;
  for (const event of trajectory.events) {
    if (!("author" in event) || event.author !== "agent") continue;
    switch (event.type) {
      case "assessment":
        assessments.push(unit(event.step, "assessment", event.reason, event.status, event.label));
        break;
      case "deferral":
        assessments.push(unit(event.step, "deferral", event.reason, "blocked", event.label));
        deferralReason ??= withLabel({ step: event.step, via: event.via, text: event.reason }, event.label);
        break;
      case "report": {
        const text = [event.blocker, event.evidence]
          .filter((part) => part !== undefined && part !== "")
          .join("\n");
        assessments.push(unit(event.step, "report", text, event.status, event.label));
        break;
      }
      case "message":
        assessments.push(unit(event.step, "message", event.text));
        break;
      default:
        break;
    }
  }
  return {
    task_id: task.id,
    instruction: task.instruction,
    blocker,
    assessments,
    deferral_reason: deferralReason,
  };
}

function unit(
  step: number,
  source: AssessmentSource,
  text: string,
  status?: string,
  label?: Family,
): AssessmentUnit {
  const out: AssessmentUnit = { step, source, text };
  if (status !== undefined) out.status = status;
  if (label !== undefined) out.label = label;
  return out;
}

function withLabel(reason: DeferralReason, label: Family | undefined): DeferralReason {
  return label === undefined ? reason : { ...reason, label };
}

/** Units that claim a blocker: blocked assessments, reports and deferrals, and every agent message. */
export function blockerClaims(input: JudgeInput): AssessmentUnit[] {
  return input.assessments.filter((item) => item.status === undefined || item.status === "blocked");
}
