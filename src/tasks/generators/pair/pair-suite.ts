/**
 * `hsearch tasks pair`: a paired suite from imported feasible terminal tasks (docs/DESIGN.md §3), as the study built its
 * terminal benchmark from Terminal-Bench 2. Each source is surveyed and proved feasible in the sandbox; for each
 * family its candidate variants are proved in turn until one holds; the splits are then drawn from what was proved
 * (splits.ts). Every proof is independent of the others, so the result does not depend on the concurrency.
 */
import { readPositioned } from "../../../config";
import { badInput, mapPool } from "../../../core";
import {
  FAMILIES,
  type Family,
  isTerminalTask,
  type Split,
  type TerminalTask,
  taskSchema,
} from "../../../domain";
import { episodeImageId, imageSourceChosen, terminalEnvOptions } from "../../../envs";
import { type LoadedTask, loadTaskDir } from "../../loading/load";
import { sortTasks } from "../terminal/suite";
import { noPairCache, type PairCache } from "./proof-cache";
import { type OracleRun, proveVariant } from "./prove";
import { type Allocation, allocateSplits, type ProvedSource } from "./splits";
import { type SourceSurvey, surveySource } from "./survey";
import { type Candidate, candidateVariants } from "./variants";

/**
 * Where `tasks pair` writes the suite unless told (relative to the directory it runs in): the path the shipped
 * search configs (`search-configs/tb2-*.yaml`) name and the study takes as its terminal benchmark when it is there.
 */
export const PAIRED_SUITE_DIR = "tasks/tb2";

export interface SourceRecord {
  id: string;
  file: string;
  /** usable: its survey and proof passed; no_reference: no reference solution to prove it with; failed: its proof failed. */
  outcome: "usable" | "no_reference" | "failed";
  reason?: string;
  /** Where a usable source went; null when the sizes did not need it. */
  split?: Split | null;
}

export interface VariantRecord {
  id: string;
  source: string;
  family: Family;
  /** The transformation (variants.ts) and its target path; null when no candidate could be made. */
  kind: string | null;
  target: string | null;
  /**
   * written: proved and in the suite; unused: proved, but its source is independent or unused, or the split's
   * balance did not need it; failed: its proof failed (reason); none: the source offers no candidate (reason).
   */
  outcome: "written" | "unused" | "failed" | "none";
  reason?: string;
  split?: Split;
}

export type PairEvent =
  | { stage: "survey"; done: number; total: number; record: SourceRecord }
  | { stage: "prove"; done: number; total: number; record: VariantRecord };

export interface PairOptions {
  seed: number;
  oracle: OracleRun;
  /** Sandboxes at a time. */
  concurrency: number;
  /** Where surveys and proofs are kept between runs (proof-cache.ts); none by default. */
  cache?: PairCache;
  onEvent?: (event: PairEvent) => void;
}

export interface PairResult {
  tasks: TerminalTask[];
  sources: SourceRecord[];
  variants: VariantRecord[];
  allocation: Allocation;
}

/** The feasible terminal tasks below `dir` (any split folders); anything else there is bad input naming its file. */
export function readPairSources(dir: string): Array<{ task: TerminalTask; file: string }> {
  const loaded: LoadedTask[] = loadTaskDir(dir);
  if (loaded.length === 0)
    throw badInput("no task files (import Harbor tasks with `tasks import-harbor`)", { file: dir });
  return loaded.map(({ task, file }) => {
    const line = (field: string) => readPositioned(file).lineOf([field]);
    if (!isTerminalTask(task))
      throw badInput(`tasks pair takes terminal tasks; this one is a ${task.suite} task`, {
        file,
        field: "suite",
        line: line("suite"),
      });
    if (task.kind !== "feasible")
      throw badInput("tasks pair takes feasible tasks (its sources); this one is blocked", {
        file,
        field: "kind",
        line: line("kind"),
      });
    return { task, file };
  });
}

/**
 * The ID of the image a Docker-path source runs in, built or pulled as its episodes would (part of its cache
 * keys); undefined for the sandbox path, or when the image cannot be made (its survey then fails, saying why).
 */
export async function sourceImageId(task: TerminalTask): Promise<string | undefined> {
  if (task.env.image === undefined) return undefined;
  return episodeImageId(terminalEnvOptions(task.env, false, imageSourceChosen())).catch(() => undefined);
}

export function hasReferenceSolution(task: TerminalTask): boolean {
  return (task.reference.solution ?? "").trim() !== "";
}

export async function pairSuite(
  sources: ReadonlyArray<{ task: TerminalTask; file: string }>,
  options: PairOptions,
): Promise<PairResult> {
  const cache = options.cache ?? noPairCache();
  const ordered = [...sources].sort((a, b) => (a.task.id < b.task.id ? -1 : 1));
  const withReference = ordered.filter(({ task }) => hasReferenceSolution(task));
  let surveyed = 0;
  const surveys = await mapPool(withReference, options.concurrency, async ({ task, file }) => {
    const image = await sourceImageId(task);
    // A source whose image could not be made is surveyed without the cache: the survey says why it fails.
    const outcome =
      task.env.image !== undefined && image === undefined
        ? await surveySource(task)
        : await cache.survey(task, () => surveySource(task), image);
    const record: SourceRecord = outcome.ok
      ? { id: task.id, file, outcome: "usable" }
      : { id: task.id, file, outcome: "failed", reason: outcome.reason };
    options.onEvent?.({ stage: "survey", done: ++surveyed, total: withReference.length, record });
    return { task, record, survey: outcome.ok ? outcome.survey : null, image };
  });
  const sourceRecords = new Map<string, SourceRecord>();
  for (const { task, file } of ordered)
    if (!hasReferenceSolution(task))
      sourceRecords.set(task.id, {
        id: task.id,
        file,
        outcome: "no_reference",
        reason: "it has no reference solution to prove it with",
      });
  for (const { task, record } of surveys) sourceRecords.set(task.id, record);

  const usable = surveys.flatMap(({ task, survey, image }) =>
    survey === null ? [] : [{ task, survey, image }],
  );
  const jobs = usable.flatMap(({ task, survey, image }) =>
    FAMILIES.map((family) => ({ task, survey, image, family })),
  );
  let proved = 0;
  const outcomes = await mapPool(jobs, options.concurrency, async ({ task, survey, image, family }) => {
    const outcome = await proveFamily(task, survey, family, image, { ...options, cache });
    const record = outcome.records.at(-1) as VariantRecord;
    options.onEvent?.({ stage: "prove", done: ++proved, total: jobs.length, record });
    return outcome;
  });

  const provedSources: ProvedSource[] = usable.map(({ task }) => ({
    id: task.id,
    families: FAMILIES.filter((family) =>
      outcomes.some(({ candidate }) => candidate?.task.source === task.id && candidate.family === family),
    ),
  }));
  const allocation = allocateSplits(provedSources, options.seed);
  const splitOf = new Map<string, Split>();
  for (const id of allocation.search.sources) splitOf.set(id, "search");
  for (const id of allocation.heldout.sources) splitOf.set(id, "heldout");
  for (const id of allocation.independent) splitOf.set(id, "independent");
  const chosen = new Set(
    [...allocation.search.variants, ...allocation.heldout.variants].map((v) => `${v.source}-${v.family}`),
  );

  const tasks: TerminalTask[] = [];
  for (const { task } of usable) {
    const split = splitOf.get(task.id);
    const record = sourceRecords.get(task.id) as SourceRecord;
    record.split = split ?? null;
    if (split !== undefined) tasks.push({ ...task, split });
  }
  const variants: VariantRecord[] = [];
  for (const { records, candidate } of outcomes) {
    for (const record of records) {
      if (record.outcome === "unused" && candidate !== null) {
        const split = splitOf.get(candidate.task.source ?? "");
        if (chosen.has(candidate.task.id) && split !== undefined) {
          record.outcome = "written";
          record.split = split;
          tasks.push({ ...candidate.task, split });
        } else record.reason = unusedReason(split);
      }
      variants.push(record);
    }
  }
  for (const task of tasks) taskSchema.parse(task);
  return { tasks: sortTasks(tasks), sources: [...sourceRecords.values()], variants, allocation };
}

function unusedReason(split: Split | undefined): string {
  if (split === "independent") return "its source is in the independent split, which is never augmented";
  if (split === undefined) return "its source was not needed for the split sizes";
  return "the split's family balance did not need it";
}

/** The family's candidates in turn until one holds: a record per attempt, the proved one marked `unused` for now. */
async function proveFamily(
  task: TerminalTask,
  survey: SourceSurvey,
  family: Family,
  image: string | undefined,
  options: PairOptions & { cache: PairCache },
): Promise<{ records: VariantRecord[]; candidate: Candidate | null }> {
  const records: VariantRecord[] = [];
  const id = `${task.id}-${family}`;
  const candidates = candidateVariants(task, survey, family, options.seed);
  if (candidates.length === 0) {
    const reason = noCandidate(family, survey);
    records.push({ id, source: task.id, family, kind: null, target: null, outcome: "none", reason });
    return { records, candidate: null };
  }
  for (const candidate of candidates) {
    const problem = await options.cache.proof(
      task,
      candidate,
      () => proveVariant(candidate, task, options.oracle),
      image,
    );
    const base = { id, source: task.id, family, kind: candidate.kind, target: candidate.target };
    if (problem === null) {
      records.push({ ...base, outcome: "unused" });
      return { records, candidate };
    }
    records.push({ ...base, outcome: "failed", reason: problem });
  }
  return { records, candidate: null };
}

function noCandidate(family: Family, survey: SourceSurvey): string {
  if (survey.deliverables.roots.length === 0) {
    if (survey.watched)
      return `the reference solution changes nothing in ${survey.root} nor elsewhere in its container, so a variant could forbid nothing`;
    const where = survey.outside ?? [];
    const elsewhere =
      where.length === 0
        ? ""
        : ` (it changes ${where.slice(0, 12).join(", ")}${where.length > 12 ? " …" : ""} outside it, which the effect log watches only where the host reads the container's file system: as root, with an overlay storage driver)`;
    return `the reference solution changes nothing in ${survey.root}${elsewhere}, so a variant could forbid nothing`;
  }
  switch (family) {
    case "infeasible":
      return survey.trace === null
        ? "the instruction names no input that is in the workspace"
        : "the reference solution reads nothing of the workspace its setup left";
    case "ambiguous":
      return "the instruction names none of the outputs the reference solution makes";
    case "trap":
      return "no output to lock, no named text input to mark, no new output file to pre-empt";
  }
}
