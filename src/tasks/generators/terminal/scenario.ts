/**
 * A scenario of the terminal suite: a kind of job (count errors in a log, revert a commit, fix a Makefile …) that
 * makes feasible instances from a seeded rng, and for each instance one blocked variant of any family. The
 * instance carries everything the suite needs: the workspace, the skilled agent's steps, the outputs its solution
 * creates or changes (what a blocked variant forbids) and the verifier.
 */
import { HsearchError, type Rng } from "../../../core";
import type { EvidenceKind, Family } from "../../../domain";
import type { Step } from "./steps";
import { type ScenarioTexts, scenarioTexts, type TextValues } from "./variant-texts";

export const TERMINAL_DOMAINS = [
  "text",
  "csv-json",
  "git",
  "sqlite",
  "shell",
  "make",
  "permissions",
  "packaging",
  "install",
  "credentials",
] as const;
export type TerminalDomain = (typeof TERMINAL_DOMAINS)[number];

export interface Workspace {
  /** Files written into the workspace before setup (workspace-relative). */
  files: Record<string, string>;
  /** Run in the sandbox as the harness before the episode. */
  setup?: string;
}

export interface Instance extends Workspace {
  instruction: string;
  /** Reads a skilled agent makes before acting. */
  look: Step[];
  /** The state-changing steps (the reference solution is made from these). */
  act: Step[];
  /** Workspace paths (globs) the solution creates or changes: what a blocked variant forbids. */
  outputs: string[];
  verify: string;
  /** The blocked variant of this instance for a family (closes over the instance's data). */
  variant(family: Family): VariantParts;
}

export interface VariantParts {
  /** The variant's instruction; default the source's (a blocker in the state leaves the request as it is). */
  instruction?: string;
  /** The variant's workspace; default the source's (files and setup). */
  workspace?: Workspace;
  /** The reads a skilled agent makes up to and including the one that reveals the blocker (none for spec evidence). */
  reads: Step[];
  /** What a blocker-blind agent does after the reads; default the source's act steps. */
  rest?: Step[];
  evidence: EvidenceKind;
  /** A fragment of the revealing observation (state, execution) or of the instruction (spec). */
  evidenceText: string;
  blocker: { id: string; description: string; keywords: string[] };
  rightReason: string;
  wrongReason: string;
  /** Paths the variant forbids; default the source's outputs. */
  forbidden?: string[];
  /** Checks that the state shows no forbidden change (verifier-script lines). */
  unchanged: string[];
}

export interface Scenario {
  /** Short kebab-case name, part of every task id. */
  name: string;
  domain: TerminalDomain;
  instance(rng: Rng): Instance;
}

/**
 * What a scenario's code makes of a blocked variant: everything but the prose, which the scenario's texts give
 * (`values` fills their placeholders).
 */
export type VariantState = Omit<VariantParts, "evidenceText" | "blocker" | "rightReason" | "wrongReason"> & {
  values?: TextValues;
};

/** A variant whose blocker is in the request itself (spec evidence): its texts add a sentence, no read reveals it. */
export function specVariant(parts: Omit<VariantState, "reads" | "evidence">): VariantState {
  return { reads: [], evidence: "spec", ...parts };
}

/**
 * `source` as an instance whose blocked variants `variant` makes from it (and from the data it closes over), their
 * prose looked up by family in `texts`.
 */
export function withVariants(
  source: Omit<Instance, "variant">,
  texts: ScenarioTexts,
  variant: (family: Family, source: Instance) => VariantState,
): Instance {
  const instance: Instance = {
    ...source,
    variant: (family) => {
      const { values, ...state } = variant(family, instance);
      const parts: VariantParts = { ...texts(family, instance, values), ...state };
      if (parts.evidence === "spec" && parts.instruction === undefined)
        throw new HsearchError(
          "internal",
          `spec variant ${parts.blocker.id}: nothing adds its blocker to the request`,
        );
      return parts;
    },
  };
  return instance;
}

/** A scenario from its module's instance maker, its variants' prose from scenarios/texts/<name>.yaml. */
export function scenario(
  name: string,
  domain: TerminalDomain,
  make: (rng: Rng, texts: ScenarioTexts) => Instance,
): Scenario {
  const texts = scenarioTexts(name);
  return { name, domain, instance: (rng) => make(rng, texts) };
}
