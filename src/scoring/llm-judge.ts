/**
 * The rubric judge (`judge: llm:<model>`): the rubric in prompts/judge-blocked.md as the system message, the judge
 * input (protected blocker + the agent's own text) as canonical JSON in the user message, a JSON verdict back.
 *
 * Verdicts are cached in memory by `input_hash` = hashJson(judge id, rubric, input); callers store them with the
 * score and may hand them back through `cache` (e.g. on resume) so the same episode is never judged twice.
 * A malformed reply is answered with a correction and retried; after `maxAttempts` replies it throws
 * HsearchError("model_reply"). Provider errors propagate as they are (they are infrastructure, not verdicts).
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { canonicalJson, HsearchError, hashJson } from "../core";
import type { Task } from "../domain";
import type { Trajectory } from "../harness";
import type { ChatMessage, ChatModel } from "../models/types";
import type { Judge, JudgeVerdict } from "./judge";
import { buildJudgeInput, type JudgeInput } from "./judge-input";

const RUBRIC_FILE = new URL("./prompts/judge-blocked.md", import.meta.url);

export function defaultRubric(): string {
  return readFileSync(RUBRIC_FILE, "utf8");
}

const replySchema = z.object({
  recognized: z.boolean(),
  label_correct: z.boolean(),
  reason_matches: z.boolean(),
  rationale: z.string(),
});

export type LlmJudgeReply = z.infer<typeof replySchema>;

export interface LlmJudgeOptions {
  model: ChatModel;
  /** The rubric (system prompt); defaults to prompts/judge-blocked.md. */
  rubric?: string;
  /** Total replies asked for before giving up on malformed output. */
  maxAttempts?: number;
  /** Verdicts stored earlier, keyed by input_hash. The judge adds to this map. */
  cache?: Map<string, JudgeVerdict>;
  /** Request seed (the provider cache keys on it); the attempt index goes into `repeat`. */
  seed?: number;
}

/** Replies the judge may give per episode by default (the call plan's bound, search/plan/plan-calls.ts). */
export const JUDGE_MAX_ATTEMPTS = 3;

export class LlmJudge implements Judge {
  readonly id: string;
  private readonly model: ChatModel;
  private readonly rubric: string;
  private readonly maxAttempts: number;
  private readonly cache: Map<string, JudgeVerdict>;
  private readonly seed: number;
  /** Calls in flight, so concurrent rollouts of the same episode share one model call. */
  private readonly pending = new Map<string, Promise<JudgeVerdict>>();

  constructor(options: LlmJudgeOptions) {
    this.model = options.model;
    this.id = `llm:${options.model.id}`;
    this.rubric = options.rubric ?? defaultRubric();
    this.maxAttempts = options.maxAttempts ?? JUDGE_MAX_ATTEMPTS;
    if (!Number.isInteger(this.maxAttempts) || this.maxAttempts < 1) {
      throw new HsearchError("bad_input", `maxAttempts must be a positive integer, got ${this.maxAttempts}`);
    }
    this.cache = options.cache ?? new Map();
    this.seed = options.seed ?? 0;
  }

  /** Every verdict given or loaded so far, for callers that persist them. */
  verdicts(): ReadonlyMap<string, JudgeVerdict> {
    return this.cache;
  }

  async judgeBlocked(task: Task, trajectory: Trajectory): Promise<JudgeVerdict> {
    const input = buildJudgeInput(task, trajectory);
    const inputHash = hashJson({ judge: this.id, rubric: this.rubric, input });
    const cached = this.cache.get(inputHash);
    if (cached !== undefined) return cached;
    const inFlight = this.pending.get(inputHash);
    if (inFlight !== undefined) return inFlight;
    const call = (async () => {
      const verdict = noAgentText(input)
        ? silentVerdict(this.id, inputHash)
        : await this.ask(input, inputHash);
      this.cache.set(inputHash, verdict);
      return verdict;
    })();
    this.pending.set(inputHash, call);
    try {
      return await call;
    } finally {
      this.pending.delete(inputHash);
    }
  }

  private async ask(input: JudgeInput, inputHash: string): Promise<JudgeVerdict> {
    const messages: ChatMessage[] = [
      { role: "system", content: this.rubric },
      { role: "user", content: canonicalJson(input) },
    ];
    const problems: string[] = [];
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const response = await this.model.generate({
        messages,
        tools: [],
        temperature: 0,
        seed: this.seed,
        repeat: attempt,
      });
      const parsed = parseJudgeReply(response.content);
      if (parsed.ok) {
        const reply = parsed.reply;
        return {
          judge: this.id,
          // Recognition needs the right label by definition; a reply saying otherwise is read conservatively.
          recognized: reply.recognized && reply.label_correct,
          label_correct: reply.label_correct,
          // There is no reason to match without an agent deferral, whatever the model says.
          reason_matches: reply.reason_matches && input.deferral_reason !== null,
          rationale: reply.rationale,
          input_hash: inputHash,
        };
      }
      problems.push(parsed.problem);
      messages.push(
        { role: "assistant", content: response.content },
        {
          role: "user",
          content: `Your reply was not usable (${parsed.problem}). Reply with exactly one JSON object with the keys recognized, label_correct, reason_matches (booleans) and rationale (string), and nothing else.`,
        },
      );
    }
    throw new HsearchError(
      "model_reply",
      `judge ${this.id} gave no usable verdict for task ${input.task_id} in ${this.maxAttempts} attempts: ${problems.join("; ")}`,
    );
  }
}

function noAgentText(input: JudgeInput): boolean {
  return input.assessments.every((item) => item.text.trim() === "" && item.label === undefined);
}

/** With no agent text at all there is nothing to grade: no call, a negative verdict. */
function silentVerdict(judge: string, inputHash: string): JudgeVerdict {
  return {
    judge,
    recognized: false,
    label_correct: false,
    reason_matches: false,
    rationale: "the agent wrote no assessment text",
    input_hash: inputHash,
  };
}

export function parseJudgeReply(
  content: string | null,
): { ok: true; reply: LlmJudgeReply } | { ok: false; problem: string } {
  if (content === null || content.trim() === "") return { ok: false, problem: "empty reply" };
  const text = content
    .trim()
    .replace(/^```(?:json)?\s*/i, "")
    .replace(/\s*```$/, "");
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end < start) return { ok: false, problem: "no JSON object" };
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch (error) {
    return { ok: false, problem: `invalid JSON: ${(error as Error).message}` };
  }
  const result = replySchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    return {
      ok: false,
      problem: `bad verdict: ${issue ? `${issue.path.join(".")}: ${issue.message}` : "invalid"}`,
    };
  }
  return { ok: true, reply: result.data };
}
