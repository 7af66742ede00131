import type { ProtocolName } from "../../config";
import { hashJson } from "../../core";
import type { SuiteName } from "../../domain";
import { suitePolicy, suiteRuntime, suiteTools } from "../../envs";
import { diff, readTree } from "../../git";
import { agentTools, type Harness, harnessLimitsOf, parseHarness, renderSystemPrompt } from "../../harness";
import type { SearchView } from "../../store";
import type { SearchConfig } from "../config/config-schema";
import { lineageOf, nearestIn } from "../loop/lineage";
import { buildDigest, type DigestEpisode, familyTable } from "./digest";
import type { Donor } from "./operator-library";
import type { LineageStep, ProposerInput, RejectedWithDiff } from "./proposer-input-types";

export type { LineageStep, ProposerInput, RejectedWithDiff } from "./proposer-input-types";

export interface ProposerInputDeps {
  view: SearchView;
  /** The run's harness repository. */
  repo: string;
  config: Pick<SearchConfig, "suites" | "seed" | "proposer"> & Partial<Pick<SearchConfig, "limits">>;
}

export async function buildProposerInput(
  deps: ProposerInputDeps,
  incumbent: string,
  round: number,
): Promise<ProposerInput> {
  const { view, repo, config } = deps;
  const nameOf = (commit: string) => {
    const candidate = view.candidate(commit);
    return candidate ? candidateName(candidate) : commit.slice(0, 12);
  };
  const harness = parseHarness(
    await readTree(repo, incumbent),
    incumbent.slice(0, 12),
    harnessLimitsOf(config.limits),
  );
  const scoresOf = (commit: string) => view.rollouts(commit).map((r) => r.scores);
  const episodes = view.rollouts(incumbent).map((r) => ({
    trajectory: view.trajectory(incumbent, r.key),
    score: r.scores,
  }));
  const record = view.candidate(incumbent);
  const score = record?.score ?? 0;
  const digest = buildDigest(episodes, score, {
    seed: config.seed,
    examplesPerCell: config.proposer.examples_per_cell,
  });
  const parentCommit = record?.parent ?? null;
  const parentRecord = parentCommit ? view.candidate(parentCommit) : undefined;
  const parent = parentCommit
    ? {
        commit: parentCommit,
        name: nameOf(parentCommit),
        score: parentRecord?.score ?? null,
        families: familyTable(scoresOf(parentCommit)),
      }
    : null;

  const lineage: LineageStep[] = [];
  for (let at = record; at?.parent; at = view.candidate(at.parent)) {
    const before = view.candidate(at.parent)?.score ?? null;
    lineage.unshift({
      round: at.round,
      commit: at.commit,
      name: candidateName(at),
      rationale: at.rationale,
      score: at.score,
      delta: at.score !== null && before !== null ? at.score - before : null,
    });
  }

  // Only earlier rounds: a resumed round must see what the interrupted one saw, or it would propose other edits.
  const rejected: RejectedWithDiff[] = [];
  for (const r of view.rejectedProposals().filter((p) => p.round < round)) {
    const parentOf = r.commit ? (view.candidate(r.commit)?.parent ?? null) : null;
    rejected.push({
      ...r,
      parent: parentOf,
      diff: r.commit ? await diff(repo, r.commit, parentOf ?? undefined) : null,
    });
  }

  return {
    round,
    incumbent: { commit: incumbent, name: nameOf(incumbent), score },
    harness,
    digest,
    parent,
    ...harnessParts(harness, config),
    lineage,
    rejected,
    names: Object.fromEntries(view.candidates().map((c) => [c.commit, candidateName(c)])),
  };
}

/** What the proposer is told of a harness besides its files: each suite's system prompt and tools, its protocols. */
function harnessParts(
  harness: Harness,
  config: Pick<SearchConfig, "suites">,
): Pick<ProposerInput, "suites" | "protocols"> {
  // A config names a plug-in suite by its module path; the proposer sees the suite's own name.
  const suites = config.suites.map((entry) => {
    const suite = suiteRuntime(entry).name;
    const policy = suitePolicy(suite);
    const marker = `[the ${suite} policy: ${policy.length} characters, the same for every harness]`;
    return {
      suite,
      system_prompt: renderSystemPrompt(harness, suite, marker),
      policy_chars: policy.length,
      tools: toolNames(harness, suite),
    };
  });
  return {
    suites,
    protocols: (Object.keys(PROTOCOL_DESCRIPTIONS) as ProtocolName[]).map((name) => ({
      name,
      enabled: harness.config.protocols[name].enabled,
      description: PROTOCOL_DESCRIPTIONS[name],
    })),
  };
}

/**
 * Round 1's input as a run would build it from the seed's episodes, without a run (the plan's pilot,
 * api/plan-pilot.ts): no parent, lineage or rejected proposal yet.
 */
export function seedProposerInput(
  harness: Harness,
  episodes: readonly DigestEpisode[],
  score: number,
  config: SearchConfig,
): ProposerInput {
  return {
    round: 1,
    incumbent: { commit: harness.hash, name: "seed", score },
    harness,
    digest: buildDigest(episodes, score, {
      seed: config.seed,
      examplesPerCell: config.proposer.examples_per_cell,
    }),
    parent: null,
    ...harnessParts(harness, config),
    lineage: [],
    rejected: [],
    names: { [harness.hash]: "seed" },
  };
}

/** A candidate's name in the run: `seed` for round 0, `r<round>p<proposal>` after (as status and the viewer show). */
export function candidateName(candidate: { round: number; proposal: number }): string {
  return candidate.round === 0 ? "seed" : `r${candidate.round}p${candidate.proposal}`;
}

/** What each protocol does (docs/DESIGN.md §3), as a proposer needs to know it to switch one on or off. */
export const PROTOCOL_DESCRIPTIONS: Record<ProtocolName, string> = {
  abandon:
    "tells the agent the certified deferral (the `abstain` tool in retail, an `infeasible.md` file in terminal) and when to use it; the deferral is the agent's own",
  report:
    "the agent must end with `submit_report`: done, or blocked with the blocker and the evidence (a report is not a deferral)",
  self_check:
    "after the agent stops, the harness asks it once (prompts/self-check.md, up to `max_steps` more steps) to check its work; it may repair or defer",
  harness_control:
    "the harness inspects the episode and may write the deferral itself; such a deferral is never credited to the agent",
  effect_gate:
    "once the agent states a blocker with `state_assessment`, tools that change state refuse; the agent must still defer itself",
};

/** The tools the agent is offered in a suite under this harness (as the agent loop builds the list). */
export function toolNames(harness: Harness, suite: SuiteName): string[] {
  return agentTools(harness, suiteTools(suite)).map((tool) => tool.name);
}

/**
 * What the operators proposer needs besides the input: the file hashes of every candidate (so it never proposes a
 * harness the run already has) and the evaluated candidates of other lineages that gained on their parent (crossover
 * donors), best gain first.
 */
export async function operatorMaterial(
  view: SearchView,
  repo: string,
  incumbent: string,
  round: number,
): Promise<{ known: Set<string>; donors: Donor[] }> {
  // Only earlier rounds, like the rejected memory: a resumed round must propose what the interrupted one did.
  const candidates = view.candidates().filter((c) => c.round < round);
  const known = await knownHarnesses(view, repo, round);
  const ancestors = lineageOf(view, incumbent);
  const donors: Donor[] = [];
  for (const c of candidates) {
    if (ancestors.has(c.commit) || !c.parent || c.score === null) continue;
    if (c.state !== "evaluated" && c.state !== "rejected") continue;
    // The donor's edits since its nearest ancestor in this lineage: under greedy that is its parent (every parent was
    // an incumbent); under pareto it may be further up, and the merge then takes the other lineage's whole path.
    const baseCommit = nearestIn(view, c.parent, ancestors);
    const base = baseCommit === undefined ? undefined : view.candidate(baseCommit);
    if (!base || base.score === null) continue;
    if (c.score <= base.score) continue;
    donors.push({
      commit: c.commit,
      round: c.round,
      proposal: c.proposal,
      gain: c.score - base.score,
      ...(base.commit === c.parent ? {} : { base: base.commit }),
      files: await readTree(repo, c.commit),
      parentFiles: await readTree(repo, base.commit),
    });
  }
  return { known, donors: donors.sort((a, b) => b.gain - a.gain || a.commit.localeCompare(b.commit)) };
}

/** hashJson of the files of every candidate of earlier rounds: a harness the run already has is not proposed again. */
export async function knownHarnesses(view: SearchView, repo: string, round: number): Promise<Set<string>> {
  const known = new Set<string>();
  for (const c of view.candidates()) if (c.round < round) known.add(hashJson(await readTree(repo, c.commit)));
  return known;
}
