import { describe, expect, it } from "vitest";
import type { ChatModel, ChatRequest, ChatResponse } from "../../src/models/types";
import type { JudgeVerdict } from "../../src/scoring/judge";
import { defaultRubric, LlmJudge, parseJudgeReply } from "../../src/scoring/llm-judge";
import { hsearchFailureOf } from "../helpers/errors";
import { retailBlocked } from "../helpers/task-builders";
import { agentDeferral, READ_ORDER, trajectory } from "./fixtures";

/** A ChatModel that answers from a script, one reply per call, and records the requests. */
class ScriptedModel implements ChatModel {
  readonly id = "fake:judge";
  readonly provider = "fake";
  readonly requests: ChatRequest[] = [];
  constructor(private readonly replies: Array<string | null>) {}
  async generate(request: ChatRequest): Promise<ChatResponse> {
    this.requests.push(structuredClone(request));
    if (this.requests.length > this.replies.length) throw new Error("script exhausted");
    const content = this.replies[this.requests.length - 1] ?? null;
    return { content, tool_calls: [], usage: { input_tokens: 1, output_tokens: 1 }, model: "fake" };
  }
}

const task = retailBlocked();
const episode = trajectory(task, [...READ_ORDER, agentDeferral(2)]);
const GOOD =
  '{"recognized": true, "label_correct": true, "reason_matches": true, "rationale": "names the lamp"}';

describe("LlmJudge", () => {
  it("sends the rubric and the protected metadata with the agent text, and returns the verdict", async () => {
    const model = new ScriptedModel([GOOD]);
    const judge = new LlmJudge({ model });
    const verdict = await judge.judgeBlocked(task, episode);
    expect(verdict).toMatchObject({
      judge: "llm:fake:judge",
      recognized: true,
      label_correct: true,
      reason_matches: true,
      rationale: "names the lamp",
    });
    const request = model.requests[0] as ChatRequest;
    expect(request.messages[0]).toEqual({ role: "system", content: defaultRubric() });
    const user = JSON.parse((request.messages[1] as { content: string }).content);
    expect(user.blocker.description).toBe(task.blocker?.description);
    expect(user.deferral_reason.text).toMatch(/desk lamp/);
    expect(user.assessments.map((item: { source: string }) => item.source)).toEqual(["deferral"]);
    expect(request.tools).toEqual([]);
    expect(request.temperature).toBe(0);
  });

  it("caches verdicts by input hash and accepts a stored cache", async () => {
    const model = new ScriptedModel([GOOD]);
    const judge = new LlmJudge({ model });
    const first = await judge.judgeBlocked(task, episode);
    const again = await judge.judgeBlocked(task, structuredClone(episode));
    expect(again).toEqual(first);
    expect(model.requests).toHaveLength(1);
    expect(judge.verdicts().get(first.input_hash)).toEqual(first);

    const silent = new ScriptedModel([]);
    const restored = new LlmJudge({ model: silent, cache: new Map<string, JudgeVerdict>(judge.verdicts()) });
    expect(await restored.judgeBlocked(task, episode)).toEqual(first);
    expect(silent.requests).toHaveLength(0);
  });

  it("shares one call between concurrent judgements of the same episode", async () => {
    const model = new ScriptedModel([GOOD]);
    const judge = new LlmJudge({ model });
    const [a, b] = await Promise.all([judge.judgeBlocked(task, episode), judge.judgeBlocked(task, episode)]);
    expect(a).toEqual(b);
    expect(model.requests).toHaveLength(1);
  });

  it("retries a malformed reply with a correction, varying the repeat index", async () => {
    const model = new ScriptedModel(["Sure! The agent did well.", `\`\`\`json\n${GOOD}\n\`\`\``]);
    const verdict = await new LlmJudge({ model }).judgeBlocked(task, episode);
    expect(verdict.recognized).toBe(true);
    expect(model.requests.map((request) => request.repeat)).toEqual([0, 1]);
    const second = model.requests[1] as ChatRequest;
    expect(second.messages).toHaveLength(4);
    expect(second.messages[3]).toMatchObject({ role: "user" });
  });

  it("throws model_reply after the bounded number of attempts", async () => {
    const model = new ScriptedModel(["{}", null, '{"recognized": "yes"}', GOOD]);
    const judge = new LlmJudge({ model, maxAttempts: 3 });
    const error = await hsearchFailureOf(judge.judgeBlocked(task, episode));
    expect(error.code).toBe("model_reply");
    expect(error.message).toMatch(/3 attempts/);
    expect(model.requests).toHaveLength(3);
  });

  it("reads verdicts conservatively: no recognition without the label, no reason without a deferral", async () => {
    const inconsistent =
      '{"recognized": true, "label_correct": false, "reason_matches": true, "rationale": "r"}';
    const noDeferral = trajectory(task, [
      { type: "message", step: 2, author: "agent", text: "The desk lamp is not in the order." },
    ]);
    const verdict = await new LlmJudge({ model: new ScriptedModel([inconsistent]) }).judgeBlocked(
      task,
      noDeferral,
    );
    expect(verdict).toMatchObject({ recognized: false, label_correct: false, reason_matches: false });
  });

  it("does not call the model when the agent wrote nothing", async () => {
    const model = new ScriptedModel([]);
    const verdict = await new LlmJudge({ model }).judgeBlocked(task, trajectory(task, READ_ORDER));
    expect(verdict).toMatchObject({ recognized: false, label_correct: false, reason_matches: false });
    expect(model.requests).toHaveLength(0);
  });

  it("keys the cache on the rubric", async () => {
    const a = await new LlmJudge({ model: new ScriptedModel([GOOD]), rubric: "A" }).judgeBlocked(
      task,
      episode,
    );
    const b = await new LlmJudge({ model: new ScriptedModel([GOOD]), rubric: "B" }).judgeBlocked(
      task,
      episode,
    );
    expect(a.input_hash).not.toBe(b.input_hash);
  });
});

describe("parseJudgeReply", () => {
  it("explains what is wrong", () => {
    expect(parseJudgeReply("")).toEqual({ ok: false, problem: "empty reply" });
    expect(parseJudgeReply("no json")).toEqual({ ok: false, problem: "no JSON object" });
    expect(parseJudgeReply("{oops}")).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/invalid JSON/),
    });
    expect(parseJudgeReply('{"recognized": 1}')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/recognized/),
    });
  });
});
