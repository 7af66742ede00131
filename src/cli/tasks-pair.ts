/**
 * `hsearch tasks pair DIR --out OUT`: blocked variants of imported feasible terminal tasks, each proved in the
 * sandbox, written as a paired suite (docs/DESIGN.md §3). Thin: the library (src/api/pair.ts) decides, this prints.
 */
import type { Argv } from "yargs";
import {
  FAMILIES,
  PAIRED_SUITE_DIR,
  type PairEvent,
  type PairResult,
  pairTasks,
  SPLITS,
  STUDY_SOURCES,
  type Task,
} from "../api";
import { EXIT_FAILED } from "./exit-codes";
import type { CliIO } from "./io";
import type { SetExitCode } from "./shared";
import { displayPath } from "./text/display-path";
import { createProgress, type Progress } from "./text/progress";
import { formatTable } from "./text/table";
import { usageError } from "./usage-error";

const OUTCOMES = ["written", "unused", "failed", "none"] as const;

export function registerPair(tasks: Argv, io: CliIO, setExitCode: SetExitCode): Argv {
  return tasks.command(
    "pair <dir>",
    "Blocked variants (infeasible, ambiguous, trap) of imported feasible terminal tasks, each proved in the sandbox, as a paired suite",
    (y) =>
      y
        .positional("dir", {
          type: "string",
          demandOption: true,
          describe: "imported feasible terminal tasks (tasks import-harbor's output; any split folders)",
        })
        .option("out", {
          type: "string",
          default: PAIRED_SUITE_DIR,
          describe: "output directory (tasks go to OUT/SPLIT/ID.json; its split folders are replaced)",
        })
        .option("seed", {
          type: "number",
          default: 1,
          describe: "seed of the variants' choices and the splits",
        })
        .option("concurrency", { type: "number", default: 2, describe: "sandboxes at a time" })
        .option("cache", {
          type: "string",
          describe:
            "where surveys and proofs are kept by content hash and reused by the next run (--no-cache: none; default $XDG_CACHE_HOME/hsearch/tasks-pair, else ~/.cache/hsearch/tasks-pair)",
        })
        .option("resume", {
          type: "boolean",
          default: false,
          describe:
            "go on from an interrupted run: its finished surveys and proofs come from the cache (fails when it holds none of these sources)",
        })
        .option("json", { type: "boolean", default: false, describe: "print one record per variant as JSON" })
        .check((argv) => {
          if (!Number.isSafeInteger(argv.seed) || argv.seed < 0)
            throw usageError(`--seed must be a whole number ≥ 0, got ${argv.seed}`);
          if (!Number.isSafeInteger(argv.concurrency) || argv.concurrency < 1)
            throw usageError(`--concurrency must be a whole number ≥ 1, got ${argv.concurrency}`);
          return true;
        }),
    async (argv) => {
      // Progress goes to stderr even with --json: proofs take minutes, and stdout keeps only the JSON.
      const progress = progressOf(io);
      const paired = await pairTasks({
        cwd: io.cwd,
        dir: argv.dir,
        out: argv.out,
        seed: argv.seed,
        concurrency: argv.concurrency,
        cache: argv.cache as string | false | undefined,
        resume: argv.resume,
        onEvent: progress.event,
      }).finally(() => progress.done());
      const { result, cache: reuse } = paired;
      if (!paired.written) setExitCode(EXIT_FAILED);
      const out = displayPath(paired.dir, io);
      if (argv.json) io.out(`${JSON.stringify({ ...jsonReport(result, out), cache: reuse }, null, 2)}\n`);
      else io.out(`${renderSummary(result, out)}${cacheLine(reuse)}\n`);
    },
  );
}

function cacheLine(reuse: { dir: string | null; reused: number; computed: number }): string {
  if (reuse.dir === null) return `cache: none (${reuse.computed} surveys and proofs run)`;
  return `cache: ${reuse.reused} surveys and proofs reused from ${reuse.dir}, ${reuse.computed} run and kept there`;
}

function progressOf(io: CliIO): { event: (event: PairEvent) => void; done: () => void } {
  let survey: Progress | null = null;
  let prove: Progress | null = null;
  return {
    event(event) {
      if (event.stage === "survey") {
        survey ??= createProgress(io, "proving sources", { eta: true });
        survey.update(event.done, event.total, `${event.record.id}: ${event.record.outcome}`);
        return;
      }
      if (survey !== null && prove === null) survey.done();
      prove ??= createProgress(io, "proving variants", { eta: true });
      const { record } = event;
      prove.update(
        event.done,
        event.total,
        `${record.id}${record.kind ? ` (${record.kind})` : ""}: ${record.outcome === "unused" ? "proved" : record.outcome}`,
      );
    },
    done() {
      (prove ?? survey)?.done();
    },
  };
}

/** "search: 64 blocked (22/21/21) + 43 feasible, …" */
function splitLine(tasks: readonly Task[]): string {
  return SPLITS.map((split) => {
    const here = tasks.filter((task) => task.split === split);
    const feasible = here.filter((task) => task.kind === "feasible").length;
    if (split === "independent") return `independent: ${feasible} feasible`;
    const byFamily = FAMILIES.map((family) => here.filter((task) => task.family === family).length);
    const blocked = byFamily.reduce((sum, n) => sum + n, 0);
    return `${split}: ${blocked} blocked (${byFamily.join("/")}) + ${feasible} feasible`;
  }).join(", ");
}

function sizesNote(result: PairResult): string {
  const { scaledTo } = result.allocation;
  if (scaledTo === STUDY_SOURCES) return "the study's sizes";
  if (scaledTo === 0)
    return "no suite could be made (it needs a search and a held-out source with proved variants); nothing written";
  const usable = result.sources.filter((source) => source.outcome === "usable").length;
  return `proportionally smaller than the study's (scaled to ${scaledTo} of its ${STUDY_SOURCES} sources: ${usable} sources passed their proof)`;
}

export function renderSummary(result: PairResult, out: string): string {
  const lines: string[] = [];
  for (const source of result.sources)
    if (source.outcome !== "usable")
      lines.push(`source ${source.id}: ${source.outcome.replace("_", " ")}: ${source.reason}`);
  for (const variant of result.variants)
    if (variant.outcome === "failed" || variant.outcome === "none")
      lines.push(
        `${variant.outcome === "failed" ? "failed" : "no variant"} ${variant.id}${variant.kind ? ` (${variant.kind} on ${variant.target})` : ""}: ${variant.reason}`,
      );
  const count = (outcome: string) => result.sources.filter((source) => source.outcome === outcome).length;
  lines.push(
    "",
    `sources: ${result.sources.length} read, ${count("usable")} proved, ${count("failed")} failed their proof, ${count("no_reference")} without a reference solution (skipped)`,
    formatTable(
      ["family", ...OUTCOMES, "proved"],
      FAMILIES.map((family) => {
        const mine = result.variants.filter((variant) => variant.family === family);
        const n = (outcome: string) => mine.filter((variant) => variant.outcome === outcome).length;
        return [family, ...OUTCOMES.map((outcome) => String(n(outcome))), String(n("written") + n("unused"))];
      }),
    ).trimEnd(),
    result.allocation.scaledTo === 0
      ? sizesNote(result)
      : `wrote ${result.tasks.length} tasks to ${out} (${splitLine(result.tasks)}): ${sizesNote(result)}`,
  );
  return `${lines.join("\n")}\n`;
}

function jsonReport(result: PairResult, out: string) {
  return {
    out,
    scaled_to: result.allocation.scaledTo,
    study_sizes: result.allocation.scaledTo === STUDY_SOURCES,
    sizes: result.allocation.sizes,
    sources: result.sources,
    variants: result.variants,
  };
}
