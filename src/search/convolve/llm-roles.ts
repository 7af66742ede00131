import { z } from "zod";
import { type PlaybookRule, playbookSchema } from "../../config";
import { HsearchError } from "../../core";
import type { ChatModel } from "../../models/types";
import { askOnce, parseJsonReply } from "../proposers/llm-proposer";
import { trimToTokens } from "../proposers/text-budget";
import type { ConvolveEpisode } from "./episodes";
import { type Lesson, lessonSchema } from "./lessons";
import { applyDeltas, type PlaybookDelta, playbookDeltaSchema } from "./playbook-delta";

/**
 * The reflector and curator as models. Each prompt states a JSON answer format, validated with zod; an invalid reply
 * (and a curator's deltas that do not apply to the playbook or overflow it) is retried up to ROLE_ATTEMPTS times, and
 * every failed attempt is handed to `onInvalid` to be recorded in the run.
 */
export const ROLE_ATTEMPTS = 3;
const MOMENT_TOKENS = 150;

export type RoleName = "reflector" | "curator";

export interface RoleCallbacks {
  seed: number;
  onCall?: (role: RoleName, usage: { input_tokens: number; output_tokens: number }) => void;
  onInvalid?: (role: RoleName, attempt: number, reason: string) => void;
}

const reflectorReply = z.object({ lessons: z.array(lessonSchema) }).strict();
const curatorReply = z.object({ deltas: z.array(playbookDeltaSchema) }).strict();

export function reflectorPrompt(
  drawn: readonly ConvolveEpisode[],
  playbook: readonly PlaybookRule[],
  contrast: readonly string[],
): string {
  const episodes = drawn.map((e) => {
    const head = `### ${e.key} — ${e.kind}${e.family ? ` (${e.family})` : ""}, ${e.outcome}; decisive step ${e.decisive_step ?? "-"}, deferred at ${e.deferral_step ?? "never"}`;
    const lines = e.moments.map((m) => `- step ${m.step} ${m.who}: ${trimToTokens(m.text, MOMENT_TOKENS)}`);
    return [head, ...lines].join("\n");
  });
  return [
    "You are the reflector of CONVOLVE. Read the agent's trajectories below: blocked tasks it failed or deferred late on, and feasible tasks it abandoned falsely. Name the signals that showed a task had become infeasible (or ambiguous, or a trap) and the step each became visible; and, for false abstentions, the playbook entry that misled the agent.",
    "A signal is a phrase (matched case-insensitively) or a /regex/i that fits the observation across tasks — never one task's ids, names or numbers — and fits none of the ordinary observations listed last.",
    "## Playbook now",
    playbookLines(playbook),
    "## Trajectories",
    ...episodes,
    "## Ordinary observations of solved feasible tasks",
    ...contrast.slice(0, 20).map((text) => `- ${trimToTokens(text, MOMENT_TOKENS)}`),
    "## Answer",
    'Only JSON: {"lessons": [{"kind": "signal", "signal": "...", "family": "infeasible|ambiguous|trap", "then": "abstain|verify", "step": 3, "evidence": ["<episode key>"], "lesson": "..."} | {"kind": "false_alarm", "entry": "<entry id>", "step": 2, "evidence": ["<episode key>"], "lesson": "..."}]}',
  ].join("\n\n");
}

export function curatorPrompt(
  lessons: readonly Lesson[],
  playbook: readonly PlaybookRule[],
  maxRules: number,
): string {
  return [
    "You are the curator of CONVOLVE. Merge the reflector's lessons into the playbook of stopping rules by small deltas — never rewrite it. Each entry shows how often it was helpful (in view when a blocked task was deferred in time) and harmful (in view when a feasible task was abandoned).",
    `Operations: add an entry, sharpen one (new signals, action or lesson), merge one into another, retire one. At most ${maxRules} entries after your deltas; ids are lower-case letters, digits, '-' or '_'.`,
    "## Playbook now",
    playbookLines(playbook),
    "## Lessons",
    JSON.stringify(lessons, null, 1),
    "## Answer",
    'Only JSON: {"deltas": [{"op": "add", "id": "...", "family": "infeasible|ambiguous|trap", "signals": ["..."], "then": "abstain|verify|continue", "lesson": "..."} | {"op": "sharpen", "id": "...", "signals"?: [...], "then"?: "...", "lesson"?: "..."} | {"op": "merge", "id": "...", "into": "..."} | {"op": "retire", "id": "..."}]}',
  ].join("\n\n");
}

export async function llmReflect(
  model: ChatModel,
  prompt: string,
  callbacks: RoleCallbacks,
): Promise<Lesson[] | null> {
  return ask(
    model,
    "reflector",
    prompt,
    callbacks,
    (content) => parseJsonReply(content, reflectorReply, "the reflector's reply").lessons,
  );
}

export async function llmCurate(
  model: ChatModel,
  prompt: string,
  playbook: readonly PlaybookRule[],
  maxRules: number,
  callbacks: RoleCallbacks,
): Promise<PlaybookDelta[] | null> {
  return ask(model, "curator", prompt, callbacks, (content) => {
    const { deltas } = parseJsonReply(content, curatorReply, "the curator's reply");
    const after = applyDeltas(playbook, deltas);
    const checked = playbookSchema.safeParse(after);
    if (!checked.success)
      throw new HsearchError(
        "model_reply",
        `the curator's deltas leave an invalid playbook: ${checked.error.issues[0]?.message}`,
      );
    if (after.length > maxRules)
      throw new HsearchError(
        "model_reply",
        `the curator's deltas leave ${after.length} entries, more than ${maxRules}`,
      );
    return deltas;
  });
}

/** null when every attempt failed (each one handed to onInvalid). */
async function ask<T>(
  model: ChatModel,
  role: RoleName,
  prompt: string,
  callbacks: RoleCallbacks,
  parse: (content: string | null) => T,
): Promise<T | null> {
  for (let attempt = 0; attempt < ROLE_ATTEMPTS; attempt++) {
    try {
      const response = await askOnce(model, prompt, callbacks.seed, attempt);
      callbacks.onCall?.(role, response.usage);
      return parse(response.content);
    } catch (error) {
      if (!(error instanceof HsearchError) || (error.code !== "model_reply" && error.code !== "bad_input"))
        throw error;
      callbacks.onInvalid?.(role, attempt, error.message);
    }
  }
  return null;
}

function playbookLines(playbook: readonly PlaybookRule[]): string {
  if (playbook.length === 0) return "(empty)";
  return playbook
    .map(
      (r) =>
        `- ${r.id} [${r.family ?? "any"}] ${r.then} on ${r.when.any.join(" | ")} — helpful ${r.helpful ?? 0}, harmful ${r.harmful ?? 0}. ${r.note}`,
    )
    .join("\n");
}
