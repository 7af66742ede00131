import { HsearchError } from "../core";
import { isBuiltinSuite, type SuiteName, type Task } from "../domain";
import type { ImageSource } from "./terminal/image-plan";
import type { Environment, ToolSpec } from "./types";

/**
 * What the rest of hsearch knows of a suite, built-in or plug-in (docs/DESIGN.md §1, §4): its policy text, how its
 * certified deferral is made, the tools its environments offer, how an environment is made for a task and how a
 * finished episode is verified. Code that needs a suite's behaviour asks its runtime (`suiteRuntime(task.suite)`)
 * instead of switching on the suite's name, so a plug-in suite runs through the same engine as retail and terminal.
 */
export interface SuiteRuntime {
  readonly name: SuiteName;
  /** The policy text the system prompt's {{policy}} shows. */
  policy(): string;
  /** The abandon protocol's sentence on how to make the certified deferral ("call the `abstain` tool …"). */
  readonly deferralHowTo: string;
  /**
   * The tools its environments offer and, where it is a tool of its own, its deferral tool, as a new environment
   * lists them: what the proposer input shows, through harness/agent-tools.ts like the episode's own list.
   */
  tools(): SuiteTools;
  /** A fresh environment in the task's initial state (the only reader of the task's protected fields, with verify). */
  createEnvironment(task: Task, options: EnvironmentOptions): Promise<Environment>;
  /** The native reward (0 or 1) of the finished episode, with the verifier's own report where it gives one. */
  verify(task: Task, env: Environment, episode: EpisodeOutcome): Promise<VerifierRun>;
  /** Whether the oracle has a reference to follow on this task (a terminal task may ship no solution). */
  hasReference(task: Task): boolean;
  /** Whether the task has a customer answering the agent's text-only turns (retail). */
  hasCustomer: boolean;
  /**
   * What `hsearch serve` assumes of a client's tools on this suite when its command line does not say: the tools
   * that change the world and those that end the conversation (retail's transfer). Absent: none is known (a terminal
   * agent's tools are its own).
   */
  readonly clientTools?: { writeTools: ReadonlySet<string>; endingTools: ReadonlySet<string> };
}

/**
 * How an episode's environment is made, as the caller chose: `readOnly` (the belief probe); `imageSource`, where a
 * terminal task that names a prebuilt image gets it (default `auto`). Data, never a process-wide setting, so two
 * evaluations in one process may choose differently.
 */
export interface EnvironmentOptions {
  readOnly?: boolean;
  imageSource?: ImageSource;
  /** Network for the tasks that ask for it (allow_internet): the user's explicit grant, as data (default none). */
  allowInternet?: boolean;
}

/** The environment choices a carrier of them holds (a rollout's input, a search's deps), passed on as they are. */
export function environmentChoicesOf(from: {
  imageSource?: ImageSource;
  allowInternet?: boolean;
}): Pick<EnvironmentOptions, "imageSource" | "allowInternet"> {
  return {
    ...(from.imageSource ? { imageSource: from.imageSource } : {}),
    ...(from.allowInternet ? { allowInternet: true } : {}),
  };
}

/** What a suite offers the agent before any harness: its tools and, where it has one, its deferral tool. */
export interface SuiteTools {
  tools(): readonly ToolSpec[];
  /** Retail's `abstain`; absent where the deferral is written with the suite's own tools (terminal, plug-ins). */
  readonly deferralTool?: ToolSpec;
}

/** What a verifier is told of the episode. `completed` is false when it was cut off by the step limit or an error. */
export interface EpisodeOutcome {
  agentMessages: string[];
  completed: boolean;
}

/** What a verifier run shows people besides the reward (terminal: the script's output, cut, and its status). */
export interface VerifierRun {
  reward: number;
  report?: {
    output: string;
    exit_code: number | null;
    timed_out: boolean;
    problem: string | null;
    duration_ms: number;
  };
}

const registered = new Map<string, SuiteRuntime>();

/**
 * Makes a suite known to this process (the built-ins at load, a plug-in when its module is loaded). A built-in's name
 * is refused to a plug-in; a plug-in loaded again (its module edited, for a new run) replaces its earlier runtime.
 */
export function registerSuite(runtime: SuiteRuntime, alias?: string): void {
  const known = registered.get(runtime.name);
  if (known && known !== runtime && isBuiltinSuite(runtime.name))
    throw new HsearchError(
      "bad_input",
      `suite '${runtime.name}' is a built-in suite: a plug-in suite needs another name`,
      { field: "suites" },
    );
  registered.set(runtime.name, runtime);
  // A plug-in is also known by its module's path, as a search config names it in `suites`.
  if (alias !== undefined) registered.set(alias, runtime);
}

/** The runtime of a suite by name (or a loaded plug-in's module path); bad_input when none is known. */
export function suiteRuntime(name: string): SuiteRuntime {
  const runtime = registered.get(name);
  if (runtime) return runtime;
  throw new HsearchError(
    "bad_input",
    `unknown suite '${name}': the built-in suites are retail and terminal; a plug-in suite is loaded from a module the config's suites list names (./my-suite.mjs)`,
    { field: "suites" },
  );
}

/** Whether a suite of that name is known to this process. */
export function isKnownSuite(name: string): boolean {
  return registered.has(name);
}

/**
 * Whether a suite's episodes talk with a customer (retail's): what a plan counts customer calls for. A suite this
 * process has not loaded has none.
 */
export function suiteHasCustomer(name: string): boolean {
  return registered.get(name)?.hasCustomer ?? false;
}
