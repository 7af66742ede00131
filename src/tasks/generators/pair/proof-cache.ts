/**
 * The survey of each source and the outcome of each variant's proof, kept on disk by content hash, so a second
 * `tasks pair` (another seed, more sources, or the same command after an interruption) reuses them: a survey by the
 * source task's content, a proof by the source's and the candidate variant's content. Proofs run minutes each; a
 * key also holds CACHE_FORMAT, bumped whenever what a survey or a proof checks changes, so a cache never answers
 * for older code. An entry is written (atomically) as soon as its proof ends, so an interrupted run loses only the
 * proofs in flight. An unreadable entry is a miss, recomputed and written anew.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { TerminalTask } from "../../../domain";
import type { SourceSurvey, SurveyOutcome } from "./survey";
import type { Candidate } from "./variants";

export const CACHE_FORMAT = 2;
/**
 * The same for what a survey and a proof in a task's own image check beyond the sandbox path's (the container's
 * watched places): a key of an image source holds it too, so a change there leaves the sandbox path's kept.
 */
export const IMAGE_CACHE_FORMAT = 2;

/** `$XDG_CACHE_HOME/hsearch/tasks-pair`, else `~/.cache/hsearch/tasks-pair`. */
export function defaultPairCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME && env.XDG_CACHE_HOME !== "" ? env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return join(base, "hsearch", "tasks-pair");
}

/**
 * `image`: the engine's ID of the image a Docker-path source runs in (episodeImageId) — its content, which the
 * task's Dockerfile does not fix (a base image rebuilt, a prebuilt tag pushed anew); absent for the sandbox path.
 */
export interface PairCache {
  survey(task: TerminalTask, compute: () => Promise<SurveyOutcome>, image?: string): Promise<SurveyOutcome>;
  proof(
    source: TerminalTask,
    candidate: Candidate,
    compute: () => Promise<string | null>,
    image?: string,
  ): Promise<string | null>;
  /** Whether a survey of this task (in this image) is kept (what `--resume` needs to resume anything). */
  hasSurvey(task: TerminalTask, image?: string): boolean;
  /** How many surveys and proofs this run took from the cache, and how many it ran. */
  stats(): { reused: number; computed: number };
}

/** No cache: everything is computed. */
export function noPairCache(): PairCache {
  let computed = 0;
  const run = <T>(compute: () => Promise<T>) => {
    computed++;
    return compute();
  };
  return {
    survey: (_task, compute) => run(compute),
    proof: (_source, _candidate, compute) => run(compute),
    hasSurvey: () => false,
    stats: () => ({ reused: 0, computed }),
  };
}

function hash(...parts: string[]): string {
  const digest = createHash("sha256");
  for (const part of parts) digest.update(`${part.length}:${part}`);
  return digest.digest("hex");
}

/**
 * A task's content as a key: its JSON without the split it was imported into (the same task in any split), and
 * the ID of the image it runs in where it has one.
 */
export function taskKey(task: TerminalTask, image?: string): string {
  const { split: _split, ...rest } = task;
  return hash(
    `format ${CACHE_FORMAT}`,
    JSON.stringify(rest),
    ...(image === undefined ? [] : [`image ${image}`, `image format ${IMAGE_CACHE_FORMAT}`]),
  );
}

export function diskPairCache(dir: string): PairCache {
  let reused = 0;
  let computed = 0;
  const fileOf = (kind: string, key: string) => join(dir, kind, key.slice(0, 2), `${key}.json`);
  async function cached<T>(
    kind: string,
    key: string,
    compute: () => Promise<T>,
    check: (value: unknown) => T | undefined,
  ): Promise<T> {
    const file = fileOf(kind, key);
    const hit = readEntry(file, check);
    if (hit !== undefined) {
      reused++;
      return hit;
    }
    computed++;
    const value = await compute();
    writeEntry(file, value);
    return value;
  }
  return {
    survey: async (task, compute, image) => {
      // Stored and returned in its JSON form, so a hit and a fresh survey decode the same way.
      const stored = await cached(
        "surveys",
        taskKey(task, image),
        async () => JSON.parse(JSON.stringify(encodeSurvey(await compute()))) as unknown,
        (value) => (decodeSurvey(value, task) === undefined ? undefined : value),
      );
      return decodeSurvey(stored, task) as SurveyOutcome;
    },
    proof: async (source, candidate, compute, image) => {
      const key = hash(
        taskKey(source, image),
        JSON.stringify(candidate.task),
        JSON.stringify(candidate.rules),
      );
      const value = await cached("proofs", key, async () => ({ problem: await compute() }), decodeProof);
      return value.problem;
    },
    hasSurvey: (task, image) =>
      readEntry(fileOf("surveys", taskKey(task, image)), (value) => decodeSurvey(value, task)) !== undefined,
    stats: () => ({ reused, computed }),
  };
}

function readEntry<T>(file: string, check: (value: unknown) => T | undefined): T | undefined {
  try {
    return check(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return undefined;
  }
}

function writeEntry(file: string, value: unknown): void {
  mkdirSync(join(file, ".."), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(value)}\n`);
  renameSync(temp, file);
}

function decodeProof(value: unknown): { problem: string | null } | undefined {
  if (typeof value !== "object" || value === null || !("problem" in value)) return undefined;
  const { problem } = value as { problem: unknown };
  return typeof problem === "string" || problem === null ? { problem } : undefined;
}

/** A survey as JSON: its workspace state (a Map) as entries. */
type StoredSurvey =
  | { ok: true; survey: Omit<SourceSurvey, "initial"> & { initial: Array<[string, unknown]> } }
  | { ok: false; reason: string };

function encodeSurvey(outcome: SurveyOutcome): StoredSurvey {
  if (!outcome.ok) return outcome;
  return { ok: true, survey: { ...outcome.survey, initial: [...outcome.survey.initial.entries()] } };
}

function decodeSurvey(value: unknown, task: TerminalTask): SurveyOutcome | undefined {
  if (typeof value !== "object" || value === null || !("ok" in value)) return undefined;
  const stored = value as StoredSurvey;
  if (!stored.ok) return typeof stored.reason === "string" ? stored : undefined;
  const { survey } = stored;
  if (!Array.isArray(survey?.initial) || !Array.isArray(survey.named)) return undefined;
  // A survey kept before it recorded the workspace's root: /app, unless the task works elsewhere (surveyed anew).
  const root = typeof survey.root === "string" ? survey.root : defaultRoot(task);
  if (root === undefined) return undefined;
  return { ok: true, survey: { ...survey, root, initial: new Map(survey.initial) } as SourceSurvey };
}

function defaultRoot(task: TerminalTask): string | undefined {
  return task.env.image === undefined && task.env.workdir === undefined ? "/app" : undefined;
}
