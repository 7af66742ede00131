import type { z } from "zod";
import type { PluginTask, pluginTaskSchema } from "../domain";
import type { EpisodeOutcome } from "../envs";
import type { Environment, ToolSpec } from "../envs/types";
import type { ProposerContext, ProposerInput } from "../search/types";

export type { ProposerContext };

/**
 * What a researcher's own suite and proposer give hsearch (docs/DESIGN.md §7, README "Plug-in suites and
 * proposers"): a module whose default export is `defineSuite({...})` or `defineProposer({...})`, named in a search
 * config (`suites: [retail, ./my-suite.mjs]`, `meta_model: ./my-proposer.mjs`). The define functions only type the
 * object; the loader (load-plugins.ts) checks its shape and its tasks when the config is loaded.
 */

/** A task as a plug-in writes it: the task format (docs/DESIGN.md §3); `suite` may be left out (the suite's name). */
export type PluginTaskInput = Omit<z.input<ReturnType<typeof pluginTaskSchema>>, "suite"> & {
  suite?: string;
};

export interface SuiteDefinition {
  /** The suite's name as tasks, tables and trajectories show it: not `retail` or `terminal`. */
  name: string;
  /** The policy text the system prompt shows in place of {{policy}}. */
  policy: string;
  /**
   * How the agent makes the certified deferral, the end of the abandon protocol's sentence "As soon as you have
   * evidence of such a blocker, …" (e.g. "call the `abstain` tool with a category and a reason.").
   */
  deferralHowTo: string;
  /** The tools its environments offer, the deferral tool included: the proposer is told their names. */
  tools: readonly ToolSpec[];
  /**
   * Every task of the suite, feasible and blocked, on the splits `search`, `heldout` and `independent`: checked
   * against the task schema like a shipped task (a blocked task has a family and a protected blocker).
   */
  tasks:
    | readonly PluginTaskInput[]
    | (() => readonly PluginTaskInput[] | Promise<readonly PluginTaskInput[]>);
  /** A fresh environment in the task's initial state (`readOnly`: the belief probe's episode). */
  createEnvironment(task: PluginTask, options: { readOnly: boolean }): Environment | Promise<Environment>;
  /** The native reward of the finished episode: 0 or 1. It may read the task's protected `reference` and `verify`. */
  verify(task: PluginTask, env: Environment, episode: EpisodeOutcome): number | Promise<number>;
}

/** What a proposer returns: file edits to the parent harness (null deletes a file) and the commit message. */
export interface ProposedEdit {
  files: Record<string, string | null>;
  rationale: string;
  /** Which of the proposer's moves made it (a commit trailer); the proposer's name otherwise. */
  operator?: string;
}

export interface ProposerDefinition {
  /** The proposer's name in commit trailers and status. */
  name: string;
  /**
   * Proposals from what the built-in proposers see (src/search/proposers/proposer-input.ts: the parent harness with its files,
   * the digest of its search-split outcomes, lineage, rejected proposals; never held-out data or a protected field).
   * Each edit is admitted like a built-in proposer's: paths inside the harness, the files must load as a harness.
   */
  propose(
    input: ProposerInput,
    context: ProposerContext,
  ): readonly ProposedEdit[] | Promise<readonly ProposedEdit[]>;
}

/** Types a plug-in suite module's default export. */
export function defineSuite(definition: SuiteDefinition): SuiteDefinition {
  return definition;
}

/** Types a plug-in proposer module's default export. */
export function defineProposer(definition: ProposerDefinition): ProposerDefinition {
  return definition;
}
