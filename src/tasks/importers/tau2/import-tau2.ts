/**
 * τ²-bench retail tasks → feasible hsearch tasks: the reference actions and communicate strings become the reference,
 * the customer scenario is kept for the simulated customer, and the agent gets the customer's opening message.
 */
import { HsearchError } from "../../../core";
import type { CustomerScenario, RetailTask, Split, ToolCallSpec } from "../../../domain";
import { greeting, identityFromKnownInfo, requestFromReason } from "../../generators/retail/first-person";
import { readTau2File, type Tau2Task } from "./tau2-format";

export const TAU2_ID_PREFIX = "retail-tau2-";

export function tau2TaskId(tau2Id: string | number): string {
  return `${TAU2_ID_PREFIX}${tau2Id}`;
}

/** The customer's first message: who they are (from known_info) and what they want (from reason_for_call). */
export function openingMessage(scenario: CustomerScenario): string {
  return [greeting(identityFromKnownInfo(scenario.known_info)), requestFromReason(scenario.reason_for_call)]
    .filter((part): part is string => part !== null && part.length > 0)
    .join(" ");
}

/** One τ² task as a feasible retail task (pure). */
export function importTau2Task(task: Tau2Task, split: Split): RetailTask {
  const scenario = task.user_scenario.instructions;
  const user: CustomerScenario = {
    reason_for_call: scenario.reason_for_call,
    known_info: scenario.known_info,
  };
  if (scenario.unknown_info) user.unknown_info = scenario.unknown_info;
  if (scenario.task_instructions) user.task_instructions = scenario.task_instructions;
  const actions: ToolCallSpec[] = task.evaluation_criteria.actions.map((call) => ({
    name: call.name,
    arguments: structuredClone(call.arguments),
  }));
  const communicate = [...(task.evaluation_criteria.communicate_info ?? [])];
  return {
    id: tau2TaskId(task.id),
    suite: "retail",
    split,
    kind: "feasible",
    instruction: openingMessage(user),
    user,
    env: {},
    reference: { actions, communicate },
    verify: { kind: "retail_db" },
    forbidden: {},
    sim: { steps: structuredClone(actions), say: [...communicate] },
  };
}

const ID_CHARS = /^[A-Za-z0-9._-]+$/;

/** Read a τ² tasks file and import every task; problems name the file, the field and the line. */
export function importTau2File(file: string, split: Split): RetailTask[] {
  const { tasks, doc } = readTau2File(file);
  return tasks.map((task, index) => {
    if (!ID_CHARS.test(String(task.id))) {
      throw new HsearchError("bad_input", `task id '${task.id}' must be letters, digits, '.', '_' or '-'`, {
        file,
        field: `${index}.id`,
        line: doc.lineOf([index, "id"]),
      });
    }
    return importTau2Task(task, split);
  });
}
