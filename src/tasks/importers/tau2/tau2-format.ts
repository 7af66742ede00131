/**
 * The τ²-bench retail task file format (a JSON array of tasks), parsed with positions so that every problem names the
 * file, the field and the line.
 */
import { z } from "zod";
import { type PositionedDocument, readPositioned, validateDocument } from "../../../config";
import { HsearchError } from "../../../core";
import { customerScenarioSchema } from "../../../domain";
import { RETAIL_TOOL_NAMES } from "../../generators/retail/tools";

const action = z
  .object({
    action_id: z.string().nullish(),
    name: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()),
    info: z.unknown().optional(),
  })
  .strict();

// The customer's scenario as hsearch keeps it, with τ²'s domain name and its null for a field it leaves out.
const instructions = customerScenarioSchema.extend({
  domain: z.string().nullish(),
  unknown_info: z.string().nullish(),
  task_instructions: z.string().nullish(),
});

const tau2Task = z
  .object({
    id: z.union([z.string().min(1), z.number().int()]),
    description: z.unknown().optional(),
    user_scenario: z.object({ persona: z.unknown().optional(), instructions }).strict(),
    // The project's retail tasks start from the vendored database; a task that edits it first cannot be imported.
    initial_state: z
      .null({ message: "initial_state is not supported (tasks start from the vendored database)" })
      .optional(),
    evaluation_criteria: z
      .object({
        actions: z.array(action),
        communicate_info: z.array(z.string()).nullish(),
        nl_assertions: z.unknown().optional(),
        reward_basis: z.unknown().optional(),
      })
      .strict(),
  })
  .strict();

export const tau2TaskFileSchema = z.array(tau2Task);

export type Tau2Task = z.output<typeof tau2Task>;

export interface Tau2File {
  file: string;
  tasks: Tau2Task[];
  doc: PositionedDocument;
}

/** Read and check a τ² tasks file: the schema, known tool names and unique ids. */
export function readTau2File(file: string): Tau2File {
  const doc = readPositioned(file);
  const tasks = validateDocument(tau2TaskFileSchema, doc);
  checkTau2Tasks(tasks, doc);
  return { file, tasks, doc };
}

function checkTau2Tasks(tasks: readonly Tau2Task[], doc: PositionedDocument): void {
  const seen = new Map<string, number>();
  tasks.forEach((task, index) => {
    const id = String(task.id);
    const previous = seen.get(id);
    if (previous !== undefined) {
      throw new HsearchError("bad_input", `duplicate task id '${id}' (also task ${previous})`, {
        file: doc.file,
        field: `${index}.id`,
        line: doc.lineOf([index, "id"]),
      });
    }
    seen.set(id, index);
    task.evaluation_criteria.actions.forEach((call, position) => {
      if (!RETAIL_TOOL_NAMES.has(call.name)) {
        const path = [index, "evaluation_criteria", "actions", position, "name"];
        throw new HsearchError("bad_input", `unknown retail tool '${call.name}'`, {
          file: doc.file,
          field: path.join("."),
          line: doc.lineOf(path),
        });
      }
    });
  });
}
