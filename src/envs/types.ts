/**
 * What every environment (retail, terminal) offers the agent loop. The loop knows nothing about databases or
 * shells: it lists tools, calls them with an author and a step, and reads the effect log.
 */
import { type ErrorLocation, HsearchError } from "../core/errors";
import type { ToolSpec } from "../models/types";

/** Tool specs are the model contract's; environments list theirs. */
export type { ToolSpec };

export type Author = "agent" | "harness";

/**
 * The task's own environment could not be made (its setup script failed): the task's fault or the machine's, never
 * the agent's. An evaluation records it as that task's infrastructure error and goes on with the others.
 */
export class TaskSetupError extends HsearchError {
  constructor(message: string, location: ErrorLocation = {}) {
    super("bad_input", message, location);
    this.name = "TaskSetupError";
  }
}

export interface ToolResult {
  /** The observation text shown to the agent; failures start with "Error: ". */
  output: string;
  ok: boolean;
  /** True when the call changed state outside the agent (a successful write, a file change). */
  wrote: boolean;
}

/** One entry of the effect log: every tool call, with its author and step. */
export interface EffectRecord {
  step: number;
  author: Author;
  tool: string;
  arguments: Record<string, unknown>;
  ok: boolean;
  wrote: boolean;
  /** Terminal: files created, modified and deleted by this call (workspace-relative). */
  files?: { created: string[]; modified: string[]; deleted: string[] };
}

export interface Environment {
  readonly suite: "retail" | "terminal";
  /** The tools of the suite, without the protocol tools the harness adds. */
  tools(): ToolSpec[];
  /** Names of tools that write (the effect gate refuses these once a blocker is stated). */
  writeTools(): ReadonlySet<string>;
  call(name: string, args: unknown, ctx: { step: number; author: Author }): Promise<ToolResult>;
  /** Every call so far, in order. */
  effects(): readonly EffectRecord[];
  /**
   * Terminal: the certified deferral if the workspace now holds `infeasible.md` (its content is the reason), with the
   * author and step of the call that wrote it. Retail defers through the harness's `abstain` tool instead.
   */
  deferral?(): { author: Author; step: number; reason: string } | null;
  /**
   * Is this call the certified deferral itself (terminal: writing `infeasible.md`, however the path is spelled)? The
   * one write an effect gate lets through. The environment is the only judge of this, so the loop and its
   * continuations agree with what the environment then records as the deferral.
   */
  isDeferralCall?(name: string, args: unknown): boolean;
  /** Release resources (temp dirs). Safe to call twice. */
  close(): Promise<void>;
}
