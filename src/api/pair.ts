/**
 * `hsearch tasks pair`: blocked variants of imported feasible terminal tasks, each proved in the sandbox, written as
 * a paired suite. The CLI parses flags, calls this and prints.
 */
import { join, resolve } from "node:path";
import { assertOutputApart, HsearchError, PACKAGE_ROOT, resolveUserPath } from "../core";
import type { TerminalTask } from "../domain";
import { loadHarness } from "../harness";
import {
  defaultPairCacheDir,
  diskPairCache,
  noPairCache,
  type PairCache,
  type PairEvent,
  type PairResult,
  pairSuite,
  readPairSources,
  sourceImageId,
  writeTaskFiles,
} from "../tasks";
import { createModel } from "./create-model";

export type { PairEvent, PairResult } from "../tasks";
export { PAIRED_SUITE_DIR, STUDY_SOURCES } from "../tasks";

/** The harness the oracle proves variants with: it gives up at once, so a proof shows the variant's verifier alone. */
const ORACLE_HARNESS = "harnesses/abandon";

export interface PairTasksOptions {
  cwd: string;
  /** The imported feasible sources. */
  dir: string;
  out: string;
  seed: number;
  concurrency: number;
  /** The proof cache: a directory, undefined for the default, false for none. */
  cache?: string | false;
  /** Continue from the cache's surveys of these sources (it must hold some). */
  resume?: boolean;
  onEvent?: (event: PairEvent) => void;
}

export interface PairedTasks {
  result: PairResult;
  /** Where the suite was written (nothing is written when no suite could be made). */
  dir: string;
  written: boolean;
  cache: { dir: string | null; reused: number; computed: number };
}

/** Pairs the sources into a suite, proving each variant, and writes it (replacing what `out` held). */
export async function pairTasks(options: PairTasksOptions): Promise<PairedTasks> {
  const dir = resolveUserPath(options.dir, options.cwd);
  const out = resolve(options.cwd, options.out);
  assertOutputApart({ path: out, name: "--out" }, [{ path: dir, name: "the sources" }]);
  const sources = readPairSources(dir);
  const cacheDir =
    options.cache === false
      ? null
      : options.cache === undefined || options.cache === ""
        ? defaultPairCacheDir()
        : resolve(options.cwd, options.cache);
  if (options.resume && cacheDir === null)
    throw new HsearchError("bad_input", "--resume needs the cache; drop --no-cache", { field: "resume" });
  const cache = cacheDir === null ? noPairCache() : diskPairCache(cacheDir);
  if (options.resume && !(await anySurveyKept(sources, cache)))
    throw new HsearchError(
      "bad_input",
      `--resume: the cache ${cacheDir} holds no survey of these sources (nothing to resume)`,
      { field: "resume" },
    );
  const result = await pairSuite(sources, {
    seed: options.seed,
    concurrency: options.concurrency,
    oracle: { model: createModel("oracle"), harness: loadHarness(join(PACKAGE_ROOT, ORACLE_HARNESS)) },
    cache,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
  // Nothing to pair: the output directory is left as it was.
  const written = result.allocation.scaledTo !== 0;
  if (written) writeTaskFiles(result.tasks, out, { replace: true });
  return { result, dir: out, written, cache: { dir: cacheDir, ...cache.stats() } };
}

/** Whether the cache keeps a survey of any source (a Docker-path one by the ID of its image). */
async function anySurveyKept(
  sources: ReadonlyArray<{ task: TerminalTask }>,
  cache: PairCache,
): Promise<boolean> {
  for (const { task } of sources) if (cache.hasSurvey(task, await sourceImageId(task))) return true;
  return false;
}
