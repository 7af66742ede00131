/**
 * The retail environment of one rollout: τ² retail tools over a copy-on-write view of the shared frozen database, with
 * an effect log of every call (author and step).
 */
import { HsearchError } from "../../core";
import type { Forbidden, RetailEnvSpec, ToolCallSpec } from "../../domain";
import type { ToolSpec } from "../../models/types";
import { ABSTAIN_TOOL, ABSTAINED, abstainDeferral, abstainTool, type DeferralChange } from "../deferral";
import { EffectLog } from "../effect-log";
import type { Author, EffectRecord, Environment, ToolResult } from "../types";
import { stateHash } from "./hash";
import { applyOverlay } from "./overlay";
import { READ_TOOLS, type ToolArgs, ToolError, type ToolImpl } from "./read-tools";
import type { RetailData } from "./schema";
import { RetailState } from "./state";
import { checkArguments, RETAIL_TOOL_BY_NAME, RETAIL_WRITE_TOOLS, retailToolSpecs } from "./tool-specs";
import { WRITE_TOOLS } from "./write-tools";

const IMPLEMENTATIONS: Readonly<Record<string, ToolImpl>> = { ...READ_TOOLS, ...WRITE_TOOLS };
/** The tool whose successful call ends the conversation. */
export const TRANSFER_TOOL = "transfer_to_human_agents";

export interface RetailEnvOptions {
  /** What the task forbids; the environment still performs the call (the effect must be observable), and reports it. */
  forbidden?: Forbidden;
}

export interface RetailEnvironment extends Environment {
  readonly suite: "retail";
  /** The same as `call`, without the promise: for replay, verifiers and benchmarks. */
  callSync(name: string, args: unknown, ctx: { step: number; author: Author }): ToolResult;
  /** The materialised current database, frozen (for hashing and tests; copies the changed records). */
  snapshot(): RetailData;
  /** The canonical database hash (see hash.ts); equals retailDbHash(snapshot()). */
  hash(): string;
  /** Successful write calls, agent's and harness's, in order. */
  successfulWrites(): ToolCallSpec[];
  /** Whether a successful call of this tool is forbidden by the task. */
  isForbidden(toolName: string): boolean;
  /** The successful calls the task forbids, in order. */
  forbiddenEffects(): EffectRecord[];
}

export function createRetailEnv(spec: RetailEnvSpec = {}, options: RetailEnvOptions = {}): RetailEnvironment {
  return new RetailEnv(spec, options);
}

class RetailEnv implements RetailEnvironment {
  readonly suite = "retail" as const;
  readonly deferralTool = abstainTool;
  private readonly state = new RetailState();
  private readonly log = new EffectLog();
  private readonly forbiddenTools: ReadonlySet<string>;
  private closed = false;
  private cachedHash: { version: number; hash: string } | undefined;

  constructor(spec: RetailEnvSpec, options: RetailEnvOptions) {
    this.forbiddenTools = forbiddenToolSet(options.forbidden);
    applyOverlay(this.state, spec.overlay);
  }

  tools(): ToolSpec[] {
    return retailToolSpecs();
  }

  writeTools(): ReadonlySet<string> {
    return RETAIL_WRITE_TOOLS;
  }

  async call(name: string, args: unknown, ctx: { step: number; author: Author }): Promise<ToolResult> {
    return this.callSync(name, args, ctx);
  }

  callSync(name: string, args: unknown, ctx: { step: number; author: Author }): ToolResult {
    if (this.closed) throw new HsearchError("conflict", `retail environment closed; cannot call ${name}`);
    const result = this.run(name, args);
    this.log.append({
      step: ctx.step,
      author: ctx.author,
      tool: name,
      arguments: isPlainObject(args) ? args : {},
      ok: result.ok,
      wrote: result.wrote,
    });
    return result;
  }

  async deferAsHarness(reason: string, step: number): Promise<DeferralChange | undefined> {
    return this.callSync(ABSTAIN_TOOL, { reason }, { step, author: "harness" }).deferral;
  }

  private run(name: string, args: unknown): ToolResult {
    if (name === ABSTAIN_TOOL)
      return { ok: true, output: ABSTAINED, wrote: false, deferral: abstainDeferral(args) };
    const tool = RETAIL_TOOL_BY_NAME.get(name);
    const implementation = IMPLEMENTATIONS[name];
    if (tool === undefined || implementation === undefined) return failure(`Tool '${name}' not found.`);
    const checked = checkArguments(tool, args);
    if (!checked.ok) return failure(checked.message);
    try {
      const output = implementation(this.state, checked.values as ToolArgs);
      return {
        ok: true,
        output,
        wrote: tool.kind === "write",
        ...(name === TRANSFER_TOOL ? { ends: "transferred" as const } : {}),
      };
    } catch (error) {
      if (error instanceof ToolError) return failure(error.message);
      throw error;
    }
  }

  effects(): readonly EffectRecord[] {
    return this.log.list();
  }

  snapshot(): RetailData {
    return this.state.snapshot();
  }

  hash(): string {
    const version = this.state.version;
    if (this.cachedHash?.version !== version) this.cachedHash = { version, hash: stateHash(this.state) };
    return this.cachedHash.hash;
  }

  successfulWrites(): ToolCallSpec[] {
    return this.log
      .writes()
      .map((record) => ({ name: record.tool, arguments: structuredClone(record.arguments) }));
  }

  isForbidden(toolName: string): boolean {
    return (
      this.forbiddenTools.has(toolName) || (this.forbiddenTools.has("*") && RETAIL_WRITE_TOOLS.has(toolName))
    );
  }

  forbiddenEffects(): EffectRecord[] {
    return this.log.filter((record) => record.ok && this.isForbidden(record.tool));
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

function failure(message: string): ToolResult {
  return { ok: false, output: `Error: ${message}`, wrote: false };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function forbiddenToolSet(forbidden: Forbidden | undefined): ReadonlySet<string> {
  const tools = forbidden?.tools ?? [];
  for (const tool of tools) {
    if (tool !== "*" && !RETAIL_TOOL_BY_NAME.has(tool)) {
      throw new HsearchError("bad_input", `forbidden tool '${tool}' is not a retail tool`, {
        field: "forbidden.tools",
      });
    }
  }
  return new Set(tools);
}
