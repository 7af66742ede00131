import type { Argv } from "yargs";
import {
  DEFAULT_TASK_MODEL,
  FAMILIES,
  KINDS,
  type RequestContext,
  SPLITS,
  SUITES,
  suiteProblem,
} from "../api";
import { DEFAULT_CONCURRENCY } from "../core";
import type { CliIO } from "./io";
import { usageError } from "./usage-error";

/** Sets the process exit code from inside a command handler (for "finished, but the run failed"). */
export type SetExitCode = (code: number) => void;

/** Where a harness-on-tasks request runs and says things: warnings and rejected parameters on stderr. */
export function requestContext(io: CliIO): RequestContext {
  return {
    cwd: io.cwd,
    env: io.env,
    onWarning: (text) => io.err(text),
    // Said over a live progress line, which redraws.
    onRejection: (text) => {
      if (io.isTTY) io.errInline("\r\x1b[2K");
      io.err(`hsearch: ${text}`);
    },
  };
}

/** Options and helpers several commands share. */
export const SPLIT_CHOICES = [...SPLITS];
export const SUITE_CHOICES = [...SUITES];
export const KIND_CHOICES = [...KINDS];
export const FAMILY_CHOICES = [...FAMILIES];

/** The positional of a command that reads a run (diff, digest, export). */
export const RUN = { type: "string", demandOption: true, describe: "run id or directory" } as const;

/** The positional of a command that reads a run or an evaluation (status, report, view). */
export const RUN_OR_EVALUATION = {
  type: "string",
  demandOption: true,
  describe: "run or evaluation: its id or directory",
} as const;

/**
 * The input of a command that starts its work from a file into a new directory (run, study): the positional file
 * (optional, the command has a default) and `--out`.
 */
export function fileAndOutOptions<T, N extends string>(yargs: Argv<T>, name: N, file: string, out: string) {
  return yargs
    .positional(name, { type: "string", describe: file })
    .option("out", { type: "string", describe: out });
}

/** Where a local server listens (view, serve): `--port` with the command's default, and `--host`. */
export function portOption(port: number) {
  return { type: "number", default: port, describe: "port to listen on (0: any free port)" } as const;
}
export const HOST_OPTION = { type: "string", default: "127.0.0.1", describe: "address to bind" } as const;

/**
 * The options every command that runs one harness on a task selection takes (eval, probe beliefs/challenge).
 * `--harness` is not demanded here: each command checks it (`eval --resume DIR` takes it from the directory).
 */
export function harnessTaskOptions<T>(yargs: Argv<T>, verb: string) {
  return yargs
    .option("harness", { type: "string", describe: "harness directory" })
    .option("split", { choices: SPLIT_CHOICES, describe: `${verb} the shipped tasks of this split` })
    .option("suite", {
      type: "string",
      describe: `restrict to one suite: ${SUITE_CHOICES.join(", ")}, or the path of a suite module (./my-suite.mjs)`,
    })
    .option("kind", { choices: KIND_CHOICES })
    .option("family", { choices: FAMILY_CHOICES })
    .option("tasks", { type: "string", describe: "a task directory instead of the shipped suites" })
    .option("model", {
      type: "string",
      describe: `task model (provider:model, or oracle); default: the --models file's agent spec, else ${DEFAULT_TASK_MODEL}`,
    })
    .option("customer", {
      type: "string",
      describe:
        "retail customer: auto (the task model plays it when it is a real model, else scripted), scripted or llm:<model>; default: the --models file's customer spec, else auto",
    })
    .option("models", {
      type: "string",
      describe:
        "YAML file of per-role model blocks (agent, judge, customer: spec and settings), as `models:` in a search config; a flag naming a role's model wins over its spec",
    })
    .option("set", {
      type: "string",
      array: true,
      describe: "a role's model setting, e.g. agent.reasoning_effort=low, agent.temperature=null (not sent)",
    })
    .option("cache", {
      type: "string",
      describe:
        "request cache: user ($XDG_CACHE_HOME/hsearch, else ~/.cache/hsearch) or a directory; a call already answered there is not sent again",
    })
    .option("model-call-seconds", {
      type: "number",
      describe:
        "how long one provider call may go unanswered before it is retried, as limits.model_call_seconds of a search config (default 120)",
    })
    .check((argv) => {
      const seconds = argv["model-call-seconds"];
      if (seconds !== undefined && !(seconds > 0 && Number.isFinite(seconds)))
        throw usageError("--model-call-seconds must be a number of seconds > 0");
      const problem = argv.suite === undefined ? null : suiteProblem(argv.suite);
      if (problem) throw usageError(problem);
      return true;
    })
    .option("seed", { type: "number", default: 1 })
    .option("concurrency", { type: "number", default: DEFAULT_CONCURRENCY })
    .option("json", { type: "boolean", default: false, describe: "print one JSON object on stdout" });
}
