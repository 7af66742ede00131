/**
 * `hsearch serve` is the episode engine behind the wire: an agent loop written as a plain `openai` client with the
 * retail tools, run through the server against the deterministic fake OpenAI server, behaves task by task as eval's
 * rollouts (evaluateJobs, as `hsearch eval --customer scripted` runs them) with the same harness — the same requests
 * reach the model, the same trajectory (tool calls, assessments, gate refusals, deferrals and their authors, protocol
 * turns), the same end and the same scores.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import type {
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { afterEach, describe, expect, it } from "vitest";
import type { Task } from "../../src/domain/task";
import { isForbiddenEffect } from "../../src/envs/forbidden";
import { createTaskEnvironment, suitePolicy, verifyTaskWithReport } from "../../src/envs/suite-env";
import { evaluateJobs, planRollouts } from "../../src/eval/evaluate";
import { ScriptedCustomer } from "../../src/harness/customer";
import { loadHarness } from "../../src/harness/load";
import type { EpisodeEnd, Trajectory, TrajectoryEvent } from "../../src/harness/trajectory";
import { createChatModel } from "../../src/models/registry";
import { scoreEpisode } from "../../src/scoring/episode";
import { rulesJudge } from "../../src/scoring/rules-judge";
import { type ServeHandle, startServer, suiteDefaults } from "../../src/serve";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../helpers/fake-openai-server";
import { retailSubset } from "../helpers/task-subset";
import { retailAgent } from "./retail-agent-script";

const BACKEND_KEY = "sk-backend-SECRET-7c1e";
const CLIENT_KEY = "sk-client-SECRET-93ab";
const UNFINISHED = new Set(["max_steps", "model_error", "context_overflow", "infra_error"]);

let fake: FakeOpenAIServer | undefined;
let served: ServeHandle | undefined;
afterEach(async () => {
  await served?.close();
  await fake?.close();
  served = undefined;
  fake = undefined;
});

function backingModel(baseURL: string) {
  return createChatModel("openai:fake-agent", {
    env: { OPENAI_API_KEY: BACKEND_KEY, OPENAI_BASE_URL: baseURL },
  });
}

/** What the model was asked, without the seed (eval sends each rollout's, the server the client's). */
function asked(fakeServer: FakeOpenAIServer, from: number): unknown[] {
  return fakeServer.requests.slice(from).map((request) => {
    const { seed: _seed, ...rest } = request.body as Record<string, unknown>;
    return rest;
  });
}

interface Turn {
  message: { content: string | null; tool_calls?: ChatCompletionMessageToolCall[] };
  ended: EpisodeEnd | undefined;
}

async function whole(
  client: OpenAI,
  messages: ChatCompletionMessageParam[],
  tools: ChatCompletionTool[],
): Promise<Turn> {
  const completion = await client.chat.completions.create({ model: "served", messages, tools });
  const message = completion.choices[0]?.message;
  if (!message) throw new Error("no choice");
  const ended = (completion as unknown as { hsearch?: { ended?: EpisodeEnd } }).hsearch?.ended;
  return {
    message: { content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) },
    ended,
  };
}

/** The same turn over server-sent events, assembled from the deltas as a streaming client does. */
async function streamed(
  client: OpenAI,
  messages: ChatCompletionMessageParam[],
  tools: ChatCompletionTool[],
): Promise<Turn> {
  const chunks = await client.chat.completions.create({
    model: "served",
    messages,
    tools,
    stream: true,
    stream_options: { include_usage: true },
  });
  let content = "";
  const calls: ChatCompletionMessageToolCall[] = [];
  let ended: EpisodeEnd | undefined;
  let usage = false;
  for await (const chunk of chunks) {
    if (chunk.usage) usage = true;
    const delta = chunk.choices[0]?.delta;
    content += delta?.content ?? "";
    for (const part of delta?.tool_calls ?? []) {
      calls[part.index] = {
        id: part.id ?? "",
        type: "function",
        function: { name: part.function?.name ?? "", arguments: part.function?.arguments ?? "" },
      };
    }
    ended ??= (chunk as unknown as { hsearch?: { ended?: EpisodeEnd } }).hsearch?.ended;
  }
  if (!usage) throw new Error("no usage chunk");
  return { message: { content, ...(calls.length > 0 ? { tool_calls: calls } : {}) }, ended };
}

/** A plain OpenAI client's agent loop on one retail task: it runs the tools and plays the scripted customer. */
async function clientEpisode(baseURL: string, task: Extract<Task, { suite: "retail" }>, stream: boolean) {
  const env = await createTaskEnvironment(task);
  const customer = new ScriptedCustomer(task.user ?? { reason_for_call: task.instruction, known_info: "" });
  const client = new OpenAI({ apiKey: CLIENT_KEY, baseURL, maxRetries: 0 });
  const tools: ChatCompletionTool[] = [...env.tools(), ...(env.deferralTool ? [env.deferralTool] : [])].map(
    (tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }),
  );
  const messages: ChatCompletionMessageParam[] = [
    { role: "system", content: suitePolicy("retail") },
    { role: "user", content: task.instruction },
  ];
  try {
    for (let turn = 0; turn < 200; turn++) {
      const { message, ended } = stream
        ? await streamed(client, messages, tools)
        : await whole(client, messages, tools);
      messages.push({
        role: "assistant",
        content: message.content,
        ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}),
      });
      if (message.tool_calls && message.tool_calls.length > 0) {
        for (const call of message.tool_calls) {
          if (call.type !== "function") throw new Error("not a function call");
          const result = await env.call(call.function.name, JSON.parse(call.function.arguments), {
            step: turn,
            author: "agent",
          });
          messages.push({ role: "tool", tool_call_id: call.id, content: result.output });
        }
        continue;
      }
      if (ended) return { env, ended };
      const reply = await customer.reply(message.content ?? "");
      messages.push({ role: "user", content: reply.text });
    }
    throw new Error("the client's loop did not end");
  } finally {
    await env.close();
  }
}

/** The served conversation's trajectory from the server's log, scored as eval scores an episode. */
function servedTrajectory(
  logDir: string,
  before: ReadonlySet<string>,
  task: Task,
): { events: TrajectoryEvent[]; end: EpisodeEnd; steps: number } {
  const file = readdirSync(logDir).find((name) => !before.has(name));
  if (!file) throw new Error("no log of the conversation");
  const lines = readFileSync(join(logDir, file), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  // The server does not know what the client's task forbids: that flag is the client's to set, as eval's engine does.
  const events = lines
    .filter((line) => line.type === "event")
    .map((line) => line.event as TrajectoryEvent)
    .map((event) =>
      event.type === "effect"
        ? { ...event, forbidden: isForbiddenEffect(task.forbidden, event.tool) }
        : event,
    );
  const end = lines.find((line) => line.type === "end");
  if (!end) throw new Error("the conversation has no end line");
  return { events, end: end.end as EpisodeEnd, steps: end.steps as number };
}

describe("hsearch serve relays the episode engine", () => {
  // The self-check harness's client streams (server-sent events); the others take whole replies.
  for (const harnessName of ["gated", "harness-control", "self-check", "report"]) {
    const stream = harnessName === "self-check";
    it(`gives a plain OpenAI client's agent the episodes eval runs with the ${harnessName} harness, task by task${stream ? ", streaming" : ""}`, async () => {
      fake = await startFakeOpenAIServer(retailAgent);
      const harness = loadHarness(join("harnesses", harnessName));
      const { tasks } = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 });
      const retail = tasks.filter(
        (task): task is Extract<Task, { suite: "retail" }> => task.suite === "retail",
      );
      const model = backingModel(fake.baseURL);

      // Eval's rollouts one task at a time, to know which requests each one made.
      const outcomes = [];
      const evalAsked: unknown[][] = [];
      for (const task of retail) {
        const from = fake.requests.length;
        const [outcome] = await evaluateJobs({
          harness,
          jobs: planRollouts([task], 1, 1),
          model,
          judge: rulesJudge,
          concurrency: 1,
        });
        outcomes.push(outcome);
        evalAsked.push(asked(fake, from));
      }

      const logDir = mkdtempSync(join(tmpdir(), "hsearch-serve-log-"));
      served = await startServer({ harness, model, suite: "retail", ...suiteDefaults("retail"), logDir });
      const kinds = new Set<string>();
      for (const [index, task] of retail.entries()) {
        const outcome = outcomes[index];
        if (!outcome) throw new Error("missing outcome");
        const from = fake.requests.length;
        const before = new Set(readdirSync(logDir));
        const { env, ended } = await clientEpisode(`${served.url}/v1`, task, stream);
        expect(asked(fake, from), task.id).toEqual(evalAsked[index]);
        const got = servedTrajectory(logDir, before, task);
        const want = outcome.trajectory;
        expect(got.events, task.id).toEqual(want.events);
        expect(got.end, task.id).toEqual(want.end);
        expect(ended, task.id).toEqual(want.end);
        expect(got.steps, task.id).toBe(want.steps);
        const agentMessages = got.events.flatMap((e) =>
          e.type === "message" && e.author === "agent" ? [e.text] : [],
        );
        const verified = await verifyTaskWithReport(task, env, {
          agentMessages,
          completed: !UNFINISHED.has(got.end.reason),
        });
        const trajectory: Trajectory = {
          ...want,
          events: got.events,
          end: got.end,
          steps: got.steps,
          reward: verified.reward,
        };
        expect(await scoreEpisode(task, trajectory, rulesJudge), task.id).toEqual(outcome.score);
        for (const event of got.events)
          kinds.add(event.type === "deferral" ? `deferral:${event.author}` : event.type);
      }
      // The harness acted: what each harness is about happened in these episodes.
      const expected =
        {
          gated: ["gate_refusal", "assessment", "deferral:agent"],
          "harness-control": ["deferral:harness", "effect"],
          "self-check": ["protocol", "effect"],
          report: ["report", "protocol"],
        }[harnessName] ?? [];
      for (const kind of expected) expect([...kinds]).toContain(kind);
      const logs = readdirSync(logDir)
        .map((name) => readFileSync(join(logDir, name), "utf8"))
        .join("\n");
      expect(logs).not.toContain(BACKEND_KEY);
      expect(logs).not.toContain(CLIENT_KEY);
    });
  }
});
