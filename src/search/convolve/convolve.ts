import type { PlaybookRule } from "../../config";
import type { ChatModel } from "../../models/types";
import { editPlaybook } from "../config/yaml-edit";
import type { Proposal } from "../proposers/proposal";
import type { ProposerInput } from "../proposers/proposer-input-types";
import { advanceCounters } from "./counters";
import { type ConvolveEpisode, drawTrajectories } from "./episodes";
import type { Lesson } from "./lessons";
import {
  curatorPrompt,
  llmCurate,
  llmReflect,
  type RoleCallbacks,
  type RoleName,
  reflectorPrompt,
} from "./llm-roles";
import { offlineCurate, offlineReflect } from "./offline-roles";
import { applyDeltas, describeDelta, type PlaybookDelta } from "./playbook-delta";

/**
 * CONVOLVE as a proposer: a reflector reads at most `trajectories` of the incumbent's search-split episodes (a seeded
 * draw of those that failed, deferred late or abstained falsely) and names lessons; a curator turns them into playbook
 * deltas. The child's playbook is the incumbent's with its counters advanced by all of the incumbent's episodes, then
 * the deltas applied — so counters and entries live in the commit, and a resumed round rebuilds the same playbook.
 * A config chooses it by `meta_model: convolve` (src/search/proposers/convolve.ts).
 */
export const CONVOLVE = "convolve";

export interface ConvolveOptions extends RoleCallbacks {
  count: number;
  /** proposer.trajectories: the reflector's data budget. */
  trajectories: number;
  /** Seeds the draw of trajectories (the run's seed and the round's stream). */
  draw: { seed: number; stream: ReadonlyArray<string | number> };
  /** Changes (convolveChange of a rationale) already rejected from this incumbent: not proposed again. */
  tried?: ReadonlySet<string>;
  /** Each role's model; a role without one is the offline role (src/search/convolve/offline-roles.ts). */
  models?: Partial<Record<RoleName, ChatModel>>;
}

export interface ConvolveResult {
  proposals: Proposal[];
  drawn: string[];
  lessons: Lesson[];
  deltas: PlaybookDelta[];
  /** A role ran out of attempts without a valid reply. */
  failed: RoleName | null;
  /** Why each invalid reply was refused, in order ("reflector attempt 1: …"). */
  attempts: string[];
}

export async function proposeByConvolve(
  input: Pick<ProposerInput, "harness" | "digest">,
  episodes: readonly ConvolveEpisode[],
  options: ConvolveOptions,
): Promise<ConvolveResult> {
  const { harness, digest } = input;
  const maxRules = harness.config.playbook.max_rules;
  const playbook = advanceCounters(harness.playbook, episodes);
  const drawn = drawTrajectories(episodes, options.trajectories, options.draw.seed, options.draw.stream);
  const contrast = [...digest.ordinary_observations, ...digest.ordinary_requests];
  const attempts: string[] = [];
  const callbacks: RoleCallbacks = {
    ...options,
    onInvalid: (role, attempt, reason) => {
      attempts.push(`${role} attempt ${attempt + 1}: ${reason}`);
      options.onInvalid?.(role, attempt, reason);
    },
  };
  const result = (lessons: Lesson[], deltas: PlaybookDelta[], failed: ConvolveResult["failed"] = null) => ({
    proposals: failed
      ? []
      : proposalsOf(harness.files["playbook.yaml"] ?? "", playbook, deltas, {
          count: options.count,
          tried: options.tried ?? new Set(),
          drawn: drawn.length,
          lessons: lessons.length,
        }),
    drawn: drawn.map((e) => e.key),
    lessons,
    deltas,
    failed,
    attempts,
  });
  const { reflector, curator } = options.models ?? {};
  // A model is not asked about nothing; the offline curator may still retire an entry by its record.
  const lessons =
    drawn.length === 0
      ? []
      : reflector
        ? await llmReflect(reflector, reflectorPrompt(drawn, playbook, contrast), callbacks)
        : offlineReflect(drawn, playbook, contrast);
  if (lessons === null) return result([], [], "reflector");
  const deltas = curator
    ? lessons.length === 0
      ? []
      : await llmCurate(curator, curatorPrompt(lessons, playbook, maxRules), playbook, maxRules, callbacks)
    : offlineCurate(lessons, playbook, maxRules);
  if (deltas === null) return result(lessons, [], "curator");
  return result(lessons, deltas);
}

/**
 * The first proposal applies every delta; further ones (when a round asks for more) one delta each, in the
 * curator's order, so acceptance can tell which change paid. No deltas, no proposal: counters alone change nothing
 * the agent does.
 */
function proposalsOf(
  text: string,
  playbook: readonly PlaybookRule[],
  deltas: readonly PlaybookDelta[],
  {
    count,
    tried,
    drawn,
    lessons,
  }: { count: number; tried: ReadonlySet<string>; drawn: number; lessons: number },
): Proposal[] {
  if (deltas.length === 0) return [];
  const sets = [deltas, ...(deltas.length > 1 ? deltas.map((d) => [d]) : [])];
  const out: Proposal[] = [];
  for (const set of sets) {
    const change = set.map((d) => describeDelta(d, playbook)).join("; ");
    if (tried.has(change)) continue;
    out.push({
      files: { "playbook.yaml": editPlaybook(text, applyDeltas(playbook, set)) },
      rationale: `CONVOLVE: ${change} (from ${drawn} trajectories, ${lessons} lessons).`,
      operator: CONVOLVE,
    });
    if (out.length === count) break;
  }
  return out;
}

/** The change a CONVOLVE rationale describes (what `tried` holds), or null for another proposer's rationale. */
export function convolveChange(rationale: string): string | null {
  return /^CONVOLVE: (.*) \(from \d+ trajectories, \d+ lessons\)\.$/s.exec(rationale)?.[1] ?? null;
}
