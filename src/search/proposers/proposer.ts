import type { z } from "zod";
import type { Trajectory } from "../../harness";
import type { ChatModel } from "../../models/types";
import type { EpisodeScore } from "../../scoring";
import type { SearchConfig } from "../config/config-schema";
import type { SearchDeps } from "../loop/search-deps";
import type { ProposerContext } from "./proposer-context";
import type { ProposerInput } from "./proposer-input-types";

/** The model roles a proposer may have besides `proposer` (src/models/settings.ts). */
export type ProposerRole = "reflector" | "curator";

/**
 * A proposer (docs/DESIGN.md §7): the public plug-in shape (`ProposerDefinition`, src/plugins: a name and
 * `propose(input, context)` returning edits) and what a built-in may add. One module per proposer, listed once in
 * `index.ts`; `propose.ts` calls it and the loop never asks which proposer it is. A plug-in's `ProposerDefinition`
 * is a `Proposer` as it is.
 */

/** The round's place, which a built-in proposer may read besides the plug-in context (a plug-in never gets it). */
export interface ProposerRun {
  deps: SearchDeps;
  repo: string;
  /** The parent of the proposals asked for (the incumbent, or under pareto the front member drawn). */
  incumbent: string;
  /** The parents of one round after the first (pareto), each with its own seeded stream. */
  group: number;
  /** The number of its first proposal in the round. */
  firstSlot: number;
  /** Hashes of harnesses this round already has (pareto's merge): not to be proposed again. */
  avoid: readonly string[];
}

export interface BuiltInProposerContext extends ProposerContext {
  run: ProposerRun;
}

/** An edit as a proposer returns it; `operator` defaults to the proposer's name (a commit trailer). */
export interface ProposerEdit {
  files: Record<string, string | null>;
  rationale: string;
  operator?: string;
}

/** The config values a proposer serves by their form rather than by its name (a model spec, a module path). */
export interface ProposerForm {
  /** `rule`: the field's whole rule, for a branch zod reports when none of the field's matches. */
  schema(rule: string): z.ZodType<string>;
  /** The form in a config error: "a model (provider:model, …)". */
  rule: string;
  /** The form in the config field's description. */
  describe: string;
}

/** What the plan's pilot gives a proposer with roles of its own: the pilot's episodes and the roles' models. */
export interface RolePilotInput {
  config: SearchConfig;
  /** Round 1's input as a run builds it from the pilot's episodes. */
  input: ProposerInput;
  episodes: ReadonlyArray<{ key: string; trajectory: Trajectory; score: EpisodeScore }>;
  /** The roles the config names a model for (their meters count the calls). */
  models: Partial<Record<ProposerRole, ChatModel>>;
  seed: number;
}

/** What one piloted round of the roles did. */
export interface RolePilotResult {
  /** Whether the replies made a proposal. */
  proposed: boolean;
  /** What the round rested on, for the plan's reader. */
  from: string;
}

export interface Proposer {
  /**
   * `meta_model: <name>` chooses it (unless `form` says which values do), and it is the proposer of its candidates
   * in commit trailers and status (unless `label` says otherwise).
   */
  name: string;
  propose(
    input: ProposerInput,
    context: BuiltInProposerContext,
  ): readonly ProposerEdit[] | Promise<readonly ProposerEdit[]>;
  form?: ProposerForm;
  /** Who proposed its candidates, when not `name` (the model's id, the module's name). */
  label?(deps: SearchDeps): string;
  /** Whether it calls the proposer role's model: run setup creates one from the spec. */
  usesModel?: boolean;
  /** Roles of its own whose models it calls when `models.<role>.spec` names one (run setup builds those). */
  roles?: readonly ProposerRole[];
  /**
   * At most this many replies of each of `roles` per proposer call (a round, or a parent under pareto): the plan's
   * bound of those roles' calls.
   */
  roleAttempts?: number;
  /** The plan's pilot of `roles`: round 1 as a run would ask it, from the pilot's episodes (`hsearch run --plan --pilot`). */
  pilotRoles?(input: RolePilotInput): Promise<RolePilotResult>;
  /** The rng path its context's `rng` is drawn on (with the round and group); default its name. */
  stream?: string;
  /**
   * True when its round `round` proposed nothing and nothing it reads will change: every later round would be empty
   * too, and the search stops.
   */
  ranDry?(deps: SearchDeps, round: number): boolean;
}

/** Types a proposer module's export. */
export function defineBuiltInProposer(proposer: Proposer): Proposer {
  return proposer;
}
