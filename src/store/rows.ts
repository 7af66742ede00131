/**
 * Raw SQLite rows and their mapping to records: JSON columns parsed and checked with zod, commit column names
 * shortened. The typed boundary of the store: a record that does not parse is a damaged run.db, reported as
 * bad input naming run.db and the record, never handed on with a cast.
 */
import { z } from "zod";
import { canonicalJson } from "../core";
import type { SuiteName } from "../domain";
import { FAMILIES, KINDS, SPLITS } from "../domain";
import type { LearntRejection } from "../models";
import { MODEL_ROLES } from "../models";
import {
  episodeScoreSchema,
  objectiveSchema,
  type ProbeReport,
  probeReportSchema,
  type StoredSummary,
  SUMMARY_FORMAT,
  storedSummarySchemas,
} from "../scoring";
import { damaged } from "./read-only-db";
import {
  CANDIDATE_STATES,
  type CandidateRecord,
  type EvaluationRecord,
  type EventRecord,
  type JsonObject,
  PROBES,
  type ProbeEpisodeRecord,
  PURPOSES,
  type RolloutRecord,
  type RoundRecord,
  RUN_KINDS,
  type RunKind,
  type RunRecord,
  type StoredScore,
  VERDICTS,
} from "./records";

const jsonObject: z.ZodType<JsonObject> = z.record(z.string(), z.unknown());
const runState = z.enum(["running", "finished", "failed", "budget_exhausted"]);

/*
 * The scalar columns code computes with. SQLite keeps whatever type an edited row holds (a score 'abc'), so they are
 * checked like the JSON columns: a wrong type is a damaged run.db, not a crash further on.
 */
const count = z.number().int().min(0);
const sha = z.string().min(1);
const candidateColumns = z.object({
  commit_sha: sha,
  round: count,
  proposal: count,
  parent_commit: sha.nullable(),
  state: z.enum(CANDIDATE_STATES),
  verdict: z.enum(VERDICTS).nullable(),
  rejected_reason: z.string().nullable(),
  score: z.number().finite().nullable(),
});
const roundColumns = z.object({
  round: count,
  incumbent_before: sha,
  incumbent_after: sha.nullable(),
  accepted_commit: sha.nullable(),
});
const rolloutColumns = z.object({
  key: z.string().min(1),
  purpose: z.enum(PURPOSES),
  task_id: z.string().min(1),
  split: z.enum(SPLITS),
  kind: z.enum(KINDS),
  family: z.enum(FAMILIES).nullable(),
  // A built-in suite or a plug-in's name; NULL in a row stored before the column (rollout-table.ts fills it).
  suite: z
    .string()
    .regex(/^[a-z][a-z0-9_-]*$/)
    .nullable(),
  seed: z.number().int(),
  repeat: count,
  reward: z.number().finite().nullable(),
  steps: count,
  input_tokens: count,
  output_tokens: count,
  usd: z.number().finite().min(0),
  model_calls: count,
  trajectory_file: z.string().min(1),
  trajectory_offset: count,
  trajectory_length: count,
});

/** Where a record was read: run.db's path, for the error that names it. */
export interface RecordSource {
  file: string;
}

/**
 * One value of a record checked against its schema; `what` names the record and column, `column` (a JSON column's
 * name) makes the error's field the column and the path inside it (`summary_json.blocked.m0`).
 */
function checked<T>(
  source: RecordSource,
  what: string,
  schema: z.ZodType<T>,
  value: unknown,
  column?: string,
): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue ? issue.path.map(String).join(".") : "";
  const at = path.length > 0 ? ` at ${path}` : "";
  const field = column === undefined ? undefined : path.length > 0 ? `${column}.${path}` : column;
  throw damaged(source.file, `${what}${at}: ${issue?.message ?? "invalid"}`, result.error, field);
}

function jsonColumn<T>(source: RecordSource, what: string, schema: z.ZodType<T>, text: string): T {
  return checked(source, what, schema, parseJson(source, what, text));
}

function parseJson(source: RecordSource, what: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw damaged(source.file, `${what} is not JSON`, error);
  }
}

/** Which summary a run's candidates carry: a search's or an evaluation's, or a probe's report. */
export type SummaryKind = "summary" | "probe_report";

export function summaryKindOf(kind: RunKind): SummaryKind {
  return kind === "probe_beliefs" || kind === "probe_challenge" ? "probe_report" : "summary";
}

/** A summary as its column holds it: canonical JSON with the format it is written in. */
export function summaryText(summary: object): string {
  return canonicalJson({ ...summary, format: SUMMARY_FORMAT });
}

/**
 * A summary column (docs/DESIGN.md §3): its `format` (absent in one written before summaries were versioned: read as
 * format 1 when its shape is format 1's), then its body against the format's schema. The format is the column's,
 * not the summary's: the record holds the summary without it.
 */
function summaryColumn<K extends SummaryKind>(
  source: RecordSource,
  what: string,
  kind: K,
  text: string,
): K extends "summary" ? StoredSummary : ProbeReport {
  const value = parseJson(source, what, text);
  const { format = 1, ...summary } = (typeof value === "object" && value !== null ? value : {}) as {
    format?: unknown;
  };
  const summarySchema = typeof format === "number" ? storedSummarySchemas[format] : undefined;
  if (!summarySchema)
    throw damaged(
      source.file,
      `${what} has format ${JSON.stringify(format)}; this hsearch reads formats ${Object.keys(storedSummarySchemas).join(" and ")}`,
      undefined,
      "summary_json.format",
    );
  // A probe's report is the probe's own: any format that names it reads the same.
  const schema = kind === "summary" ? summarySchema : probeReportSchema;
  return checked(source, what, schema as z.ZodType, summary, "summary_json") as never;
}

function optionalJsonColumn<T>(
  source: RecordSource,
  what: string,
  schema: z.ZodType<T>,
  text: string | null,
): T | null {
  return text === null ? null : jsonColumn(source, what, schema, text);
}

export type RunRow = Omit<RunRecord, "config"> & { config_json: string };

export function toRun({ config_json, ...row }: RunRow, source: RecordSource): RunRecord {
  const kind = checked(source, "run: kind", z.enum(RUN_KINDS), row.kind);
  return {
    ...row,
    kind,
    // A search has its objective; an evaluation has none.
    objective:
      kind === "search"
        ? checked(source, "run: objective", objectiveSchema, row.objective)
        : checked(source, "run: objective", z.null(), row.objective),
    state: checked(source, "run: state", runState, row.state),
    config: jsonColumn(source, "run: config_json", jsonObject, config_json),
  };
}

export type CandidateRow = Omit<CandidateRecord, "commit" | "parent" | "summary"> & {
  commit_sha: string;
  parent_commit: string | null;
  summary_json: string | null;
};

export function toCandidate(
  { commit_sha, parent_commit, summary_json, ...row }: CandidateRow,
  source: RecordSource,
  summaryKind: SummaryKind,
): CandidateRecord {
  checked(source, `candidate ${commit_sha}`, candidateColumns, { commit_sha, parent_commit, ...row });
  const what = `candidate ${commit_sha}: summary_json`;
  const summary = summary_json === null ? null : summaryColumn(source, what, summaryKind, summary_json);
  return { commit: commit_sha, parent: parent_commit, ...row, summary };
}

export type RoundRow = Omit<RoundRecord, "decision"> & { decision_json: string | null };

export function toRound({ decision_json, ...row }: RoundRow, source: RecordSource): RoundRecord {
  checked(source, `round ${row.round}`, roundColumns, row);
  const decision = optionalJsonColumn(source, `round ${row.round}: decision_json`, jsonObject, decision_json);
  return { ...row, decision };
}

/** A record of a candidate's as its row: the candidate by its column's name, each `Json` field as JSON text. */
type CandidateRowOf<R, Json extends keyof R & string> = Omit<R, "candidate" | Json> & {
  candidate_commit: string;
} & { [K in Json as `${K}_json`]: string };

export type RolloutRow = CandidateRowOf<Omit<RolloutRecord, "from_cache" | "suite">, "scores"> & {
  from_cache: number;
  suite: string | null;
};

/**
 * A rollout row as a record. `suiteOfOld` gives the suite of a row stored before rollouts had a suite column (from
 * its trajectory line, which always named it).
 */
export function toRollout(
  { candidate_commit, scores_json, suite, ...row }: RolloutRow,
  source: RecordSource,
  suiteOfOld: (record: Omit<RolloutRecord, "suite">) => SuiteName,
): RolloutRecord {
  checked(source, `rollout ${row.purpose}/${row.key}`, rolloutColumns, { ...row, suite });
  const what = `rollout ${row.purpose}/${row.key}: scores_json`;
  const scores: StoredScore = jsonColumn(source, what, episodeScoreSchema, scores_json);
  const record = { ...row, candidate: candidate_commit, scores, from_cache: row.from_cache === 1 };
  return { ...record, suite: suite === null ? suiteOfOld(record) : (suite as SuiteName) };
}

export type EvaluationRow = CandidateRowOf<EvaluationRecord, "summary">;

export function toEvaluation(
  { candidate_commit, summary_json, ...row }: EvaluationRow,
  source: RecordSource,
): EvaluationRecord {
  const what = `evaluation ${candidate_commit} ${row.purpose}/${row.split}: summary_json`;
  return {
    candidate: candidate_commit,
    ...row,
    summary: summaryColumn(source, what, "summary", summary_json),
  };
}

export type EventRow = Omit<EventRecord, "data"> & { json: string };

export function toEvent({ json, ...row }: EventRow, source: RecordSource): EventRecord {
  return { ...row, data: jsonColumn(source, `event ${row.id}: json`, jsonObject, json) };
}

const probeEpisodeColumns = rolloutColumns
  .pick({
    key: true,
    task_id: true,
    split: true,
    kind: true,
    family: true,
    seed: true,
    repeat: true,
    trajectory_file: true,
    trajectory_offset: true,
    trajectory_length: true,
  })
  .extend({ probe: z.enum(PROBES) });

export type ProbeEpisodeRow = CandidateRowOf<ProbeEpisodeRecord, "result">;

export function toProbeEpisode(
  { candidate_commit, result_json, ...row }: ProbeEpisodeRow,
  source: RecordSource,
): ProbeEpisodeRecord {
  checked(source, `probe episode ${row.probe}/${row.key}`, probeEpisodeColumns, row);
  const result = jsonColumn(
    source,
    `probe episode ${row.probe}/${row.key}: result_json`,
    jsonObject,
    result_json,
  );
  return { ...row, candidate: candidate_commit, result };
}

export type RejectedParameterRow = LearntRejection;

const rejectedParameterColumns = z.object({
  model: z.string().min(1),
  parameter: z.string().min(1),
  replacement: z.string().min(1).nullable(),
  role: z.enum(MODEL_ROLES),
  message: z.string(),
});

export function toRejectedParameter(row: RejectedParameterRow, source: RecordSource): LearntRejection {
  return checked(source, `rejected parameter ${row.model} ${row.parameter}`, rejectedParameterColumns, row);
}
