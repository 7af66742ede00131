/**
 * The run's events (run.db `events`: a kind and its JSON), one schema per kind: what a writer may log and what a
 * reader gets back. A decision that reads an event (a resumed race's order, operators that ran dry, the plug-in
 * modules a run began with) asks `eventsOf` for its kind and reads typed fields; the stored rows are as before
 * (kind column, canonical JSON), so old runs read unchanged. An event of a known kind that does not validate is a
 * damaged run.db, named by the event's id and field.
 */
import { z } from "zod";
import { HsearchError } from "../core";
import type { EventRecord } from "./records";

const count = z.number().int().min(0);
const commit = z.string();
const budget = z.object({
  max_rollouts: z.number().nullable(),
  max_usd: z.number().nullable(),
  max_minutes: z.number().nullable(),
});
const budgetLimit = z.enum(["max_rollouts", "max_usd", "max_minutes"]);

/** A plug-in module a run loaded (src/plugins): where, its content hash, and a suite module's name and task ids. */
export const pluginModuleSchema = z.strictObject({
  field: z.enum(["suites", "meta_model"]),
  path: z.string(),
  sha256: z.string(),
  suite: z.string().optional(),
  tasks: z.array(z.string()).optional(),
});
export type PluginModuleRecord = z.infer<typeof pluginModuleSchema>;

/** Each kind's data. Adding a kind is one entry here; its writers and readers are typed from it. */
export const RUN_EVENT_SCHEMAS = {
  /** The run began, from a config file (null: a config object). */
  config: z.object({ file: z.string().nullable() }),
  /** The plug-in modules the run began with; a resume checks them unchanged. */
  plugin_modules: z.object({ modules: z.array(pluginModuleSchema) }),
  /** A plug-in module's code stopped the run: the module and the hook; a resume may import it changed (fixed). */
  plugin_hook_failed: z.object({ module: z.string(), hook: z.string(), message: z.string() }),
  /** A resume raised the budget. */
  budget_changed: z.object({ from: budget, to: budget }),
  /** A limit of the budget was reached: the usage then, and the incumbent the run keeps. */
  budget_exhausted: z.object({
    limit: budgetLimit,
    rollouts: z.number(),
    usd: z.number(),
    minutes: z.number(),
    incumbent: commit,
  }),
  /** A provider refused a request parameter (models/parameter-fallback.ts); later calls leave it out. */
  parameter_rejected: z.object({
    parameter: z.string(),
    replacement: z.string().nullable(),
    message: z.string(),
    model: z.string(),
    role: z.string(),
  }),
  /** The operators found fewer new edits than asked around the round's parent. */
  operators_exhausted: z.object({ round: count, incumbent: commit, proposals: count }),
  /** A proposer module proposed nothing this round. */
  proposer_module_empty: z.object({ round: count, incumbent: commit, proposer: z.string() }),
  /** The LLM proposer's reply did not parse or apply; it is asked again. */
  proposer_invalid_reply: z.object({ round: count, attempt: count, reason: z.string() }),
  /** A CONVOLVE reflector's or curator's reply was refused; it is asked again. */
  convolve_invalid_reply: z.object({
    round: count,
    incumbent: commit,
    role: z.string(),
    attempt: count,
    reason: z.string(),
  }),
  /** One CONVOLVE round: the trajectories drawn, the reflector's lessons, the curator's deltas. */
  convolve_round: z.object({
    round: count,
    incumbent: commit,
    drawn: z.array(z.string()),
    lessons: z.array(z.record(z.string(), z.unknown())),
    deltas: z.array(z.record(z.string(), z.unknown())),
    proposals: count,
  }),
  /** A race's task order under `order: informative`, stored before the round's first rollout so a resume reads it. */
  race_order: z.object({ round: count, order: z.array(z.string()), weights: z.array(z.number()).nullable() }),
  /** One proposal's acceptance verdict. */
  verdict: z.object({
    round: count,
    commit,
    verdict: z.enum(["accepted", "rejected", "indecisive"]),
    reason: z.string(),
    p_value: z.number().optional(),
  }),
  /** A round ended: the incumbent after it, its score and the proposal accepted (null: none). */
  round: z.object({ round: count, incumbent: commit, score: z.number(), accepted: commit.nullable() }),
  /** `early_stop.patience` rounds in a row accepted nothing. */
  early_stop: z.object({ round: count, patience: count }),
  /** The operators ran dry around an unchanged incumbent: no later round could propose anything new. */
  exhausted_stop: z.object({ round: count, incumbent: commit }),
  /** Too many of a candidate's rollouts ended in an infrastructure error; the run stopped. */
  infra_error_rate: z.object({
    candidate: commit,
    purpose: z.string(),
    rate: z.number(),
    count: count,
    total: count,
    first: z.string(),
  }),
  /** The search finished: its selection, score and what stopped it. */
  finished: z.object({
    selected: commit,
    score: z.number().nullable(),
    stopped_by: z.enum(["rounds", "early_stop", "exhausted", "budget"]),
  }),
  /** An evaluation directory (`hsearch eval`, a probe) began. */
  evaluation_started: z.object({ kind: z.string() }),
} as const;

type Schemas = typeof RUN_EVENT_SCHEMAS;
export type RunEventKind = keyof Schemas;
export type RunEventData<K extends RunEventKind> = z.infer<Schemas[K]>;

/** One event as logged: its kind and that kind's data. */
export type RunEvent = { [K in RunEventKind]: { kind: K; data: RunEventData<K> } }[RunEventKind];

/** One event of kind K as read back. */
export interface TypedEventRecord<K extends RunEventKind> {
  id: number;
  at: string;
  kind: K;
  data: RunEventData<K>;
}

export const RUN_EVENT_KINDS = Object.keys(RUN_EVENT_SCHEMAS) as RunEventKind[];

export function isRunEventKind(kind: string): kind is RunEventKind {
  return Object.hasOwn(RUN_EVENT_SCHEMAS, kind);
}

/** The data of an event to log, checked against its kind's schema (a writer's mistake, not input). */
export function eventData(event: RunEvent): RunEventData<RunEventKind> {
  const parsed = RUN_EVENT_SCHEMAS[event.kind].safeParse(event.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `event ${event.kind}: ${issue?.path.join(".") || "data"}: ${issue?.message ?? "invalid"}`,
    );
  }
  return event.data;
}

/** The events of one kind, oldest first, each checked against its schema (`db` names the file in an error). */
export function eventsOf<K extends RunEventKind>(
  events: readonly EventRecord[],
  kind: K,
  db = "run.db",
): Array<TypedEventRecord<K>> {
  const out: Array<TypedEventRecord<K>> = [];
  for (const event of events) if (event.kind === kind) out.push(typedEvent(event, kind, db));
  return out;
}

/** The latest event of one kind, or null. */
export function lastEventOf<K extends RunEventKind>(
  events: readonly EventRecord[],
  kind: K,
  db = "run.db",
): TypedEventRecord<K> | null {
  const event = events.findLast((e) => e.kind === kind);
  return event ? typedEvent(event, kind, db) : null;
}

function typedEvent<K extends RunEventKind>(event: EventRecord, kind: K, db: string): TypedEventRecord<K> {
  const parsed = RUN_EVENT_SCHEMAS[kind].safeParse(event.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "data";
    throw new HsearchError(
      "bad_input",
      `run.db is damaged: event ${event.id} (${kind}) does not validate at ${field}: ${issue?.message ?? "invalid"}`,
      { file: db, field },
    );
  }
  return { id: event.id, at: event.at, kind, data: parsed.data as RunEventData<K> };
}
