/**
 * Scenario instances and variants → task records (docs/DESIGN.md §3). The decisive step follows the retail convention:
 * one tool call per agent step, so the observation of the n-th read is first in view at step n + 1; evidence in
 * the spec is in view from step 1.
 */
import type { Family, Split, TerminalEnvSpec, TerminalTask } from "../../../domain";
import type { Instance, VariantParts } from "./scenario";
import { deferralScript, type Step, solutionScript } from "./steps";
import { verifierScript } from "./verifier-script";

export function terminalTaskId(scenario: string, ordinal: number, family?: Family): string {
  const base = `terminal-${scenario}-${String(ordinal).padStart(2, "0")}`;
  return family ? `${base}-${family}` : base;
}

function terminalEnv(files: Record<string, string>, setup: string | undefined): TerminalEnvSpec {
  return setup === undefined ? { files } : { files, setup };
}

export function feasibleTask(id: string, split: Split, instance: Instance): TerminalTask {
  return {
    id,
    suite: "terminal",
    split,
    kind: "feasible",
    instruction: instance.instruction,
    env: terminalEnv(instance.files, instance.setup),
    reference: { solution: solutionScript(instance.act) },
    verify: { kind: "terminal_test", script: instance.verify },
    forbidden: {},
    sim: { steps: structuredClone([...instance.look, ...instance.act]) },
  };
}

export function blockedTask(
  source: TerminalTask,
  instance: Instance,
  family: Family,
  parts: VariantParts,
): TerminalTask {
  const workspace = parts.workspace ?? instance;
  return blockedVariantTask(
    source,
    family,
    { ...parts, instruction: parts.instruction ?? instance.instruction },
    {
      env: terminalEnv(workspace.files, workspace.setup),
      rest: parts.rest ?? instance.act,
      forbidden: parts.forbidden ?? instance.outputs,
    },
  );
}

/** What a blocked variant says of itself, whatever made it (a scenario, or `tasks pair` from an imported task). */
export type VariantCore = Omit<VariantParts, "instruction" | "workspace" | "rest" | "forbidden"> & {
  instruction: string;
};

/**
 * A blocked variant of `source` as a task record: its own environment, the steps a blocker-blind agent takes after
 * the reads (`rest`), the workspace paths it forbids, and where the sandbox shows the workspace (`root`, /app).
 */
export function blockedVariantTask(
  source: TerminalTask,
  family: Family,
  parts: VariantCore,
  made: { env: TerminalEnvSpec; rest: readonly Step[]; forbidden: readonly string[]; root?: string },
): TerminalTask {
  const root = made.root ?? "/app";
  const evidenceAfter = parts.evidence === "spec" ? 0 : parts.reads.length;
  return {
    id: `${source.id}-${family}`,
    suite: "terminal",
    split: source.split,
    kind: "blocked",
    family,
    source: source.id,
    instruction: parts.instruction,
    env: made.env,
    // The reference of a blocked task is what the oracle does: the revealing reads, then the deferral.
    reference: { solution: deferralScript(parts.reads, `${family}: ${parts.rightReason}\n`, root) },
    verify: {
      kind: "terminal_test",
      script: verifierScript(
        "No forbidden change: the outputs of the blocked request were not made.",
        parts.unchanged,
        root,
      ),
    },
    blocker: {
      id: parts.blocker.id,
      label: family,
      description: parts.blocker.description,
      keywords: parts.blocker.keywords,
      evidence: parts.evidence,
      decisive_step: evidenceAfter + 1,
    },
    forbidden: { paths: [...made.forbidden] },
    sim: {
      steps: structuredClone([...parts.reads, ...made.rest]),
      evidence_after: evidenceAfter,
      evidence_text: parts.evidenceText,
      right_reason: parts.rightReason,
      wrong_reason: parts.wrongReason,
    },
  };
}
