import { z } from "zod";
import type { SuiteName } from "../domain";
import { FAMILIES, KINDS, SUITES } from "../domain";
import type { EndReason, Trajectory } from "./trajectory";

/**
 * A trajectory as stored (a line of `trajectories/*.jsonl`) or sent back by a worker, checked where it is read: the
 * format of docs/DESIGN.md §3, field by field. Strict objects: within one format the fields are fixed, so a renamed
 * or unknown field is an error naming its path, never a field silently read as undefined; a later change of the
 * shape is a new format (TRAJECTORY_FORMAT in store/trajectory-log.ts). Typed against `Trajectory`, so the schema
 * and the type cannot drift apart.
 */

const END_REASONS = [
  "agent_stopped",
  "deferred",
  "transferred",
  "customer_ended",
  "max_steps",
  "model_error",
  "context_overflow",
  "infra_error",
] as const satisfies readonly EndReason[];
// Every EndReason is listed: a reason added to the type and not here is a compile error (it would be `Missing`).
type Missing = Exclude<EndReason, (typeof END_REASONS)[number]>;
const allReasonsListed: [Missing] extends [never] ? true : Missing = true;
void allReasonsListed;

const step = z.number().int().min(0);
const author = z.enum(["agent", "harness"]);
const family = z.enum(FAMILIES);
const args = z.record(z.string(), z.unknown());

const event = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("message"),
    step,
    author: z.enum(["agent", "harness", "customer", "system"]),
    text: z.string(),
  }),
  z.strictObject({
    type: z.literal("tool_call"),
    step,
    author,
    id: z.string(),
    name: z.string(),
    arguments: args,
  }),
  z.strictObject({
    type: z.literal("observation"),
    step,
    id: z.string(),
    name: z.string(),
    text: z.string(),
    ok: z.boolean(),
  }),
  z.strictObject({
    type: z.literal("effect"),
    step,
    author,
    tool: z.string(),
    arguments: args,
    forbidden: z.boolean(),
    files: z.array(z.string()).optional(),
  }),
  z.strictObject({
    type: z.literal("assessment"),
    step,
    author,
    status: z.enum(["feasible", "blocked"]),
    label: family.optional(),
    reason: z.string(),
  }),
  z.strictObject({
    type: z.literal("deferral"),
    step,
    author,
    via: z.enum(["abstain", "infeasible.md"]),
    label: family.optional(),
    reason: z.string(),
  }),
  z.strictObject({
    type: z.literal("report"),
    step,
    author,
    status: z.enum(["done", "blocked"]),
    label: family.optional(),
    blocker: z.string().optional(),
    evidence: z.string().optional(),
  }),
  z.strictObject({ type: z.literal("completion_claim"), step, author, text: z.string() }),
  z.strictObject({ type: z.literal("gate_refusal"), step, tool: z.string() }),
  z.strictObject({ type: z.literal("protocol"), step, name: z.string() }),
]);

const count = z.number().int().min(0);

export const trajectorySchema: z.ZodType<Trajectory> = z.strictObject({
  task_id: z.string().min(1),
  // A built-in suite or a plug-in's name (src/plugins: lowercase letters, digits, '_' or '-').
  suite: z.union([z.enum(SUITES), z.string().regex(/^[a-z][a-z0-9_-]*$/)]) as z.ZodType<SuiteName>,
  kind: z.enum(KINDS),
  family: family.optional(),
  model: z.string(),
  harness: z.string(),
  seed: z.number().int(),
  repeat: count,
  steps: count,
  events: z.array(event),
  end: z.strictObject({
    reason: z.enum(END_REASONS),
    step,
    error: z.string().optional(),
    error_class: z.string().optional(),
  }),
  reward: z.number().nullable(),
  image: z
    .strictObject({
      source: z.enum(["prebuilt", "dockerfile"]),
      reference: z.string(),
      prebuilt: z.string().optional(),
      pull_error: z.string().optional(),
    })
    .optional(),
  verifier: z
    .strictObject({
      output: z.string(),
      exit_code: z.number().int().nullable(),
      timed_out: z.boolean(),
      problem: z.string().nullable(),
      duration_ms: z.number().min(0),
    })
    .optional(),
  usage: z.strictObject({
    input_tokens: count,
    output_tokens: count,
    usd: z.number().min(0),
    model_calls: count,
  }),
  // Every model call answered from the request cache: a free rollout (absent otherwise).
  from_cache: z.literal(true).optional(),
});

/** Where a value failed its schema: the first issue's path (`events.3.author`) and message. */
export function firstIssue(error: z.ZodError): { path: string; message: string } {
  const issue = error.issues[0];
  if (!issue) return { path: "", message: "invalid" };
  // An unknown key is reported at its object's path; name the key itself, as a changed field would be named.
  const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0] ?? ""] : issue.path;
  return { path: path.map(String).join("."), message: issue.message };
}
