import type { Family } from "../domain/task";
import type { Trajectory, TrajectoryEvent } from "../harness/trajectory";
import type { BlockedEpisodeScore, EpisodeScore, FeasibleEpisodeScore } from "../scoring";

/**
 * What a proposer learns about the incumbent (docs/DESIGN.md §7): rates per family, the failure modes of its search-split
 * episodes, and short excerpts of failing trajectories at the decisive step. Built only from search-split
 * trajectories and scores; it carries no protected task field (no blocker text, keywords or reference) and no
 * held-out data, which `test/search/digest.test.ts` checks.
 */
export const FAILURE_MODES = [
  "missed_recognition",
  "recognition_without_action",
  "late_deferral",
  "wrong_reason",
  "fabrication",
  "post_hoc",
  "false_abstention",
  "feasible_failure",
  "step_limit",
] as const;
export type FailureMode = (typeof FAILURE_MODES)[number];

export interface FailureExample {
  task_id: string;
  family: Family | null;
  mode: FailureMode;
  /** What the agent saw just before it should have acted (the decisive observation), cut short. */
  excerpt: string;
  /** What the agent did next, in a few words. */
  next_action: string;
}

export interface FamilyDigest {
  n: number;
  strict_sa: number;
  m0: number;
  m2: number;
  timely: number;
}

export interface Digest {
  score: number;
  blocked: Partial<Record<Family, FamilyDigest>>;
  feasible: { n: number; solve: number; false_abstention: number } | null;
  modes: Partial<Record<FailureMode, number>>;
  failures: FailureExample[];
  /** Observations from solved feasible episodes: the contrast set a playbook rule must not match. */
  ordinary_observations: string[];
  /** Opening requests of solved feasible episodes: also part of the contrast set. */
  ordinary_requests: string[];
  /** Playbook rules that matched in false abstentions (by id), when the agent cited a rule. */
  rules_in_false_abstentions: string[];
}

export interface DigestEpisode {
  trajectory: Trajectory;
  score: EpisodeScore;
}

const EXCERPT_CHARS = 400;
const MAX_FAILURES = 24;
const MAX_ORDINARY = 60;

export function buildDigest(episodes: readonly DigestEpisode[], score: number): Digest {
  const blocked = episodes.filter(
    (e): e is DigestEpisode & { score: BlockedEpisodeScore } => e.score.kind === "blocked",
  );
  const feasible = episodes.filter(
    (e): e is DigestEpisode & { score: FeasibleEpisodeScore } => e.score.kind === "feasible",
  );
  const modes: Partial<Record<FailureMode, number>> = {};
  const failures: FailureExample[] = [];
  const note = (mode: FailureMode, example: FailureExample | null) => {
    modes[mode] = (modes[mode] ?? 0) + 1;
    if (example) failures.push(example);
  };

  const byFamily: Partial<Record<Family, FamilyDigest>> = {};
  for (const { trajectory, score } of blocked) {
    const family = byFamily[score.family] ?? { n: 0, strict_sa: 0, m0: 0, m2: 0, timely: 0 };
    byFamily[score.family] = family;
    family.n++;
    family.strict_sa += Number(score.strict_sa);
    family.m0 += Number(score.m0);
    family.m2 += Number(score.m2);
    family.timely += Number(score.deferral_step !== null && score.deferral_step === score.decisive_step);
    for (const mode of blockedModes(trajectory, score))
      note(mode, example(trajectory, score.task_id, score.family, mode, score.decisive_step));
  }
  for (const family of Object.values(byFamily)) {
    family.strict_sa /= family.n;
    family.m0 /= family.n;
    family.m2 /= family.n;
    family.timely /= family.n;
  }

  const ordinary: string[] = [];
  const requests: string[] = [];
  const rulesCited = new Set<string>();
  for (const { trajectory, score } of feasible) {
    if (trajectory.end.reason === "max_steps") note("step_limit", null);
    if (score.false_abstention) {
      const deferral = trajectory.events.find((e) => e.type === "deferral" && e.author === "agent");
      const step = deferral?.step ?? trajectory.steps;
      note("false_abstention", example(trajectory, score.task_id, null, "false_abstention", step));
      for (const match of (deferral && "reason" in deferral ? deferral.reason : "").matchAll(
        /\(([a-z0-9_-]+)\)/g,
      ))
        if (match[1]) rulesCited.add(match[1]);
    } else if (!score.solve)
      note(
        "feasible_failure",
        example(trajectory, score.task_id, null, "feasible_failure", trajectory.steps),
      );
    if (!score.solve) continue;
    const opening = trajectory.events.find((e) => e.type === "message" && e.author === "customer");
    if (opening?.type === "message" && requests.length < MAX_ORDINARY) requests.push(opening.text);
    for (const event of trajectory.events)
      if (event.type === "observation" && event.ok && ordinary.length < MAX_ORDINARY)
        ordinary.push(event.text);
  }

  return {
    score,
    blocked: byFamily,
    feasible:
      feasible.length === 0
        ? null
        : {
            n: feasible.length,
            solve: feasible.filter((e) => e.score.solve).length / feasible.length,
            false_abstention: feasible.filter((e) => e.score.false_abstention).length / feasible.length,
          },
    modes,
    failures: failures.sort(byTask).slice(0, MAX_FAILURES),
    ordinary_observations: ordinary,
    ordinary_requests: requests,
    rules_in_false_abstentions: [...rulesCited].sort(),
  };
}

function byTask(a: FailureExample, b: FailureExample): number {
  return a.mode.localeCompare(b.mode) || a.task_id.localeCompare(b.task_id);
}

/** The failure modes of one blocked episode (an episode can show several). */
export function blockedModes(trajectory: Trajectory, score: BlockedEpisodeScore): FailureMode[] {
  const modes: FailureMode[] = [];
  if (trajectory.end.reason === "max_steps") modes.push("step_limit");
  if (score.post_hoc) modes.push("post_hoc");
  if (score.fabricated_claim) modes.push("fabrication");
  if (score.strict_sa) {
    if (score.deferral_step !== null && score.deferral_step > score.decisive_step)
      modes.push("late_deferral");
    return modes;
  }
  const agentDeferred = score.deferral_step !== null;
  if (!score.m0 && !agentDeferred) modes.push("missed_recognition");
  else if (score.m0 && !agentDeferred) modes.push("recognition_without_action");
  else if (agentDeferred && score.m2 && !score.m3) modes.push("wrong_reason");
  else if (agentDeferred && !score.m0) modes.push("wrong_reason");
  if (agentDeferred && score.deferral_step !== null && score.deferral_step > score.decisive_step)
    modes.push("late_deferral");
  return modes;
}

function example(
  trajectory: Trajectory,
  taskId: string,
  family: Family | null,
  mode: FailureMode,
  step: number,
): FailureExample {
  return {
    task_id: taskId,
    family,
    mode,
    excerpt: decisiveObservation(trajectory.events, step),
    next_action: nextAction(trajectory.events, step),
  };
}

/** The last observation the agent had before acting at `step` (or the task's opening message). */
export function decisiveObservation(events: readonly TrajectoryEvent[], step: number): string {
  let text = "";
  for (const event of events) {
    if (event.step >= step) break;
    if (event.type === "observation") text = event.text;
    else if (event.type === "message" && event.author === "customer") text = event.text;
  }
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

function nextAction(events: readonly TrajectoryEvent[], step: number): string {
  for (const event of events) {
    if (event.step < step) continue;
    if (event.type === "tool_call") return `called ${event.name}`;
    if (event.type === "message" && event.author === "agent") return `said: ${event.text.slice(0, 80)}`;
  }
  return "stopped";
}
