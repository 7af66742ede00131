import { createRng } from "../../core";
import { FAMILIES, type Family } from "../../domain";
import type { Trajectory, TrajectoryEvent } from "../../harness";
import {
  type BlockedEpisodeScore,
  type EpisodeScore,
  type FeasibleEpisodeScore,
  summarize,
} from "../../scoring";
import { estimateTokens, trimToTokens } from "./text-budget";

/**
 * What a proposer learns about a candidate (docs/DESIGN.md §7, issue 11): per-family rates, the failure modes of its
 * search-split episodes, and stratified examples — per family × failure mode a fixed, seeded number — each the agent's
 * own messages, tool calls and deferral reason around the decisive step, with the observations trimmed by a token
 * budget at sentence boundaries. Built only from search-split trajectories and scores: search-split labels (family,
 * decisive step, failure mode) are the training signal and may be used; it carries no protected task field (blocker
 * text, keywords, reference) and no held-out or independent data (`test/search/proposals.test.ts`).
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

/** One line of an example: who did what at which step. */
export interface Moment {
  step: number;
  who: "user" | "agent" | "tool" | "harness";
  text: string;
}

export interface FailureExample {
  task_id: string;
  /** The blocked task's family, or null for a feasible task. */
  family: Family | null;
  mode: FailureMode;
  /** The step at which the agent should have acted (blocked: the decisive step). */
  step: number;
  /** What the agent saw just before it should have acted, whole (up to a large budget, cut between sentences). */
  excerpt: string;
  /** The agent's messages, tool calls and the observations around `step`. */
  moments: Moment[];
  /** The reason the agent gave when it deferred (or assessed a blocker), if it did. */
  deferral_reason: string | null;
  /** What the agent did next, in a few words. */
  next_action: string;
}

/** Per family: the blocked tasks' ladder and timeliness, and the family's feasible counterparts. */
export interface FamilyRow {
  family: Family | "all";
  blocked: {
    n: number;
    m0: number;
    m1: number;
    m2: number;
    m3: number;
    strict_sa: number;
    absrec1: number;
  } | null;
  feasible: { n: number; solve: number; false_abstention: number } | null;
}

export interface Digest {
  score: number;
  /** One row per family with data, then `all`. */
  families: FamilyRow[];
  modes: Partial<Record<FailureMode, number>>;
  /** Stratified, seeded examples: at most `examples_per_cell` per (family or feasible) × mode. */
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

export interface DigestOptions {
  /** Seeds the choice of examples within a cell. */
  seed: number;
  examplesPerCell?: number;
}

/** Budgets (tokens) of the parts of an example. */
const EXCERPT_TOKENS = 400;
const MOMENT_TOKENS = 120;
/** Steps before and after the decisive step shown in an example. */
const WINDOW = 2;
const MAX_ORDINARY = 60;
export const DEFAULT_EXAMPLES_PER_CELL = 3;

export function buildDigest(
  episodes: readonly DigestEpisode[],
  score: number,
  options: DigestOptions,
): Digest {
  const modes: Partial<Record<FailureMode, number>> = {};
  const cells = new Map<string, FailureExample[]>();
  const note = (mode: FailureMode, example: FailureExample | null) => {
    modes[mode] = (modes[mode] ?? 0) + 1;
    if (!example) return;
    const key = `${example.family ?? "feasible"}/${mode}`;
    cells.set(key, [...(cells.get(key) ?? []), example]);
  };

  const ordinary: string[] = [];
  const requests: string[] = [];
  const rulesCited = new Set<string>();
  for (const { trajectory, score: s } of episodes) {
    if (s.kind === "blocked") {
      for (const mode of blockedModes(trajectory, s))
        note(mode, example(trajectory, s.task_id, s.family, mode, s.decisive_step));
      continue;
    }
    if (s.kind !== "feasible") continue;
    if (trajectory.end.reason === "max_steps") note("step_limit", null);
    if (s.false_abstention) {
      const deferral = trajectory.events.find((e) => e.type === "deferral" && e.author === "agent");
      const step = deferral?.step ?? trajectory.steps;
      note("false_abstention", example(trajectory, s.task_id, null, "false_abstention", step));
      const reason = deferral?.type === "deferral" ? deferral.reason : "";
      for (const match of reason.matchAll(/\(([a-z0-9_-]+)\)/g)) if (match[1]) rulesCited.add(match[1]);
    } else if (!s.solve)
      note("feasible_failure", example(trajectory, s.task_id, null, "feasible_failure", trajectory.steps));
    if (!s.solve) continue;
    const opening = trajectory.events.find((e) => e.type === "message" && e.author === "customer");
    if (opening?.type === "message" && requests.length < MAX_ORDINARY) requests.push(opening.text);
    for (const event of trajectory.events)
      if (event.type === "observation" && event.ok && ordinary.length < MAX_ORDINARY)
        ordinary.push(event.text);
  }

  const perCell = options.examplesPerCell ?? DEFAULT_EXAMPLES_PER_CELL;
  const failures: FailureExample[] = [];
  for (const key of [...cells.keys()].sort()) {
    const members = [...(cells.get(key) ?? [])].sort((a, b) => a.task_id.localeCompare(b.task_id));
    const chosen = createRng(options.seed, "digest", key).shuffle(members).slice(0, perCell);
    failures.push(...chosen.sort((a, b) => a.task_id.localeCompare(b.task_id)));
  }

  return {
    score,
    families: familyTable(episodes.map((e) => e.score)),
    modes,
    failures,
    ordinary_observations: ordinary,
    ordinary_requests: requests,
    rules_in_false_abstentions: [...rulesCited].sort(),
  };
}

/** Per-family rates of a set of search-split episode scores (the incumbent's, or its parent's). */
export function familyTable(scores: readonly EpisodeScore[]): FamilyRow[] {
  const rows: FamilyRow[] = [];
  const feasible = scores.filter((s): s is FeasibleEpisodeScore => s.kind === "feasible");
  const blocked = scores.filter((s): s is BlockedEpisodeScore => s.kind === "blocked");
  const row = (family: Family | "all", b: BlockedEpisodeScore[], f: FeasibleEpisodeScore[]): FamilyRow => {
    const summary = summarize([...b, ...f]);
    const rates = summary.blocked;
    return {
      family,
      blocked: rates && {
        n: rates.n,
        m0: rates.m0,
        m1: rates.m1,
        m2: rates.m2,
        m3: rates.m3,
        strict_sa: rates.strict_sa,
        absrec1: rates.absrec1,
      },
      feasible: summary.feasible,
    };
  };
  for (const family of FAMILIES) {
    const b = blocked.filter((s) => s.family === family);
    const f = feasible.filter((s) => s.family === family);
    if (b.length + f.length > 0) rows.push(row(family, b, f));
  }
  rows.push(row("all", blocked, feasible));
  return rows;
}

/** The failure modes of one blocked episode (an episode can show several). */
export function blockedModes(trajectory: Trajectory, score: BlockedEpisodeScore): FailureMode[] {
  return blockedModesOf(trajectory.end.reason, score);
}

/** The same from the episode's end reason alone (what a stored rollout record carries). */
export function blockedModesOf(endReason: string, score: BlockedEpisodeScore): FailureMode[] {
  const modes: FailureMode[] = [];
  if (endReason === "max_steps") modes.push("step_limit");
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
  const deferral = trajectory.events.find(
    (e) =>
      (e.type === "deferral" || (e.type === "assessment" && e.status === "blocked")) && e.author === "agent",
  );
  return {
    task_id: taskId,
    family,
    mode,
    step,
    excerpt: decisiveExcerpt(trajectory.events, step, family),
    moments: moments(trajectory.events, step),
    deferral_reason: deferral && "reason" in deferral ? deferral.reason : null,
    next_action: nextAction(trajectory.events, step),
  };
}

/**
 * What showed the blocker by the decisive step: an ambiguous request conflicts with itself, so its evidence is the
 * customer's opening request even when the decisive step comes after the authentication the policy asks for first;
 * otherwise the last observation before that step.
 */
export function decisiveExcerpt(
  events: readonly TrajectoryEvent[],
  step: number,
  family: Family | null,
): string {
  if (family !== "ambiguous") return decisiveObservation(events, step);
  for (const event of events)
    if (event.type === "message" && event.author === "customer")
      return trimToTokens(event.text, EXCERPT_TOKENS);
  return decisiveObservation(events, step);
}

/** The last observation the agent had before acting at `step` (or the task's opening message). */
export function decisiveObservation(events: readonly TrajectoryEvent[], step: number): string {
  let text = "";
  for (const event of events) {
    if (event.step >= step) break;
    if (event.type === "observation") text = event.text;
    else if (event.type === "message" && event.author === "customer") text = event.text;
  }
  return trimToTokens(text, EXCERPT_TOKENS);
}

/** The events of steps step−WINDOW … step+WINDOW as moments; the opening request always comes first. */
function moments(events: readonly TrajectoryEvent[], step: number): Moment[] {
  const out: Moment[] = [];
  const opening = events.find((e) => e.type === "message" && e.author === "customer");
  for (const event of events) {
    const inWindow = event.step >= step - WINDOW && event.step <= step + WINDOW;
    if (!inWindow && event !== opening) continue;
    const moment = toMoment(event);
    if (moment) out.push({ ...moment, text: trimToTokens(moment.text, MOMENT_TOKENS) });
  }
  return out;
}

export function toMoment(event: TrajectoryEvent): Moment | null {
  const { step } = event;
  switch (event.type) {
    case "message":
      if (event.author === "system") return null;
      return { step, who: event.author === "customer" ? "user" : event.author, text: event.text };
    case "tool_call":
      return { step, who: event.author, text: `calls ${event.name}(${JSON.stringify(event.arguments)})` };
    case "observation":
      return { step, who: "tool", text: `${event.name} → ${event.text}` };
    case "assessment":
      return {
        step,
        who: event.author,
        text: `assesses ${event.status}${event.label ? ` (${event.label})` : ""}: ${event.reason}`,
      };
    case "deferral":
      return {
        step,
        who: event.author,
        text: `defers via ${event.via}${event.label ? ` (${event.label})` : ""}: ${event.reason}`,
      };
    case "effect":
      return {
        step,
        who: event.author,
        text: `changed state with ${event.tool}${event.forbidden ? " (forbidden on this task)" : ""}`,
      };
    case "gate_refusal":
      return { step, who: "harness", text: `the effect gate refused ${event.tool}` };
    case "protocol":
      return { step, who: "harness", text: `protocol turn: ${event.name}` };
    case "completion_claim":
      return { step, who: event.author, text: `claims done: ${event.text}` };
    case "report":
      return {
        step,
        who: event.author,
        text: `reports ${event.status}${event.blocker ? `: ${event.blocker}` : ""}`,
      };
    default:
      return null;
  }
}

function nextAction(events: readonly TrajectoryEvent[], step: number): string {
  for (const event of events) {
    if (event.step < step) continue;
    if (event.type === "tool_call") return `called ${event.name}`;
    if (event.type === "message" && event.author === "agent") return `said: ${trimToTokens(event.text, 20)}`;
  }
  return "stopped";
}

/** Tokens of an example as the prompt shows it (used by the budget). */
export function exampleTokens(example: FailureExample): number {
  return (
    estimateTokens(example.excerpt) +
    example.moments.reduce((sum, m) => sum + estimateTokens(m.text) + 4, 0) +
    estimateTokens(example.deferral_reason ?? "")
  );
}
