/**
 * What every environment (retail, terminal, a plug-in suite's: src/plugins) offers the agent loop. The loop knows nothing about databases or
 * shells: it lists tools, calls them with an author and a step, and reads the effect log.
 */
import { type ErrorLocation, HsearchError } from "../core";
import type { SuiteName } from "../domain";
import type { ToolSpec } from "../models/types";
import type { DeferralChange } from "./deferral";

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
  /** The call made, or withdrew, the certified deferral (the environment is the only judge of this). */
  deferral?: DeferralChange;
  /** The call ended the conversation (retail: a successful transfer to a human agent). */
  ends?: "transferred";
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

/**
 * The container image a task's episode ran in, when it ran in its own (Harbor's path): the prebuilt image it
 * pulled, or the Dockerfile's it built (then the prebuilt one it named and why it was not pulled).
 */
export interface EpisodeImage {
  source: "prebuilt" | "dockerfile";
  /** The prebuilt image's reference, or the built image's tag. */
  reference: string;
  /** The prebuilt image the task names, when the Dockerfile was built instead. */
  prebuilt?: string;
  /** Why the prebuilt image could not be pulled (`auto`), when it was not. */
  pull_error?: string;
}

export interface Environment {
  /** The suite whose environment this is. */
  readonly suite: SuiteName;
  /** The tools of the suite, without the protocol tools the harness adds. */
  tools(): ToolSpec[];
  /** Names of tools that write (the effect gate refuses these once a blocker is stated). */
  writeTools(): ReadonlySet<string>;
  call(name: string, args: unknown, ctx: { step: number; author: Author }): Promise<ToolResult>;
  /** Every call so far, in order. */
  effects(): readonly EffectRecord[];
  /**
   * The suite's deferral tool, offered next to `tools()` (retail: `abstain`, answered by `call` like any tool);
   * absent where the deferral is written with the suite's own tools (terminal: `infeasible.md`).
   */
  readonly deferralTool?: ToolSpec;
  /** The file whose writing is the certified deferral (terminal: `infeasible.md`); never a forbidden effect. */
  readonly deferralFile?: string;
  /**
   * Is this call the certified deferral itself (terminal: writing `infeasible.md`, however the path is spelled)? The
   * one write an effect gate lets through. The environment is the only judge of this, so the episode agrees with what
   * the environment then reports as the deferral.
   */
  isDeferralCall?(name: string, args: unknown): boolean;
  /** Harness control: make the certified deferral as the harness, with `reason`; what the environment recorded. */
  deferAsHarness(reason: string, step: number): Promise<DeferralChange | undefined>;
  /** The image the episode runs in, where it runs in a task's own image (recorded with the trajectory). */
  episodeImage?(): EpisodeImage | undefined;
  /** Release resources (temp dirs). Safe to call twice. */
  close(): Promise<void>;
}
