/**
 * What `hsearch serve` answers to requests real clients get wrong — malformed JSON, unknown fields, a huge body, a
 * missing tool result, a client gone mid-stream — with OpenAI's error shapes, and that it keeps serving afterwards;
 * a retried request gets the same reply; the conversation header keys a conversation.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { retailPolicy, retailToolSpecs } from "../../src/envs/retail";
import { loadHarness } from "../../src/harness/load";
import { createChatModel } from "../../src/models/registry";
import { CONVERSATION_HEADER, type ServeHandle, startServer, suiteDefaults } from "../../src/serve";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";

// biome-ignore lint/suspicious/noExplicitAny: reply bodies, read field by field in the assertions
type Body = Record<string, any>;

let fake: FakeOpenAIServer | undefined;
let served: ServeHandle | undefined;
afterEach(async () => {
  await served?.close();
  await fake?.close();
  served = undefined;
  fake = undefined;
});

const TOOLS = retailToolSpecs().map((tool) => ({
  type: "function",
  function: { name: tool.name, description: tool.description, parameters: tool.parameters },
}));
const OPENING = [
  { role: "system", content: retailPolicy() },
  { role: "user", content: "Please cancel my order #W5185761, I no longer need it." },
];

/** A model that looks the order up, then answers in text; `delayMs` holds each reply. */
async function setup(options: { maxBodyBytes?: number; delayMs?: number; logDir?: string } = {}) {
  fake = await startFakeOpenAIServer((request) => {
    const messages = (request.body as { messages: Array<{ role: string }> }).messages;
    const looked = messages.some((m) => m.role === "tool");
    return looked
      ? openaiCompletion({ content: "Your order is cancelled.", delayMs: options.delayMs })
      : openaiCompletion({
          toolCalls: [{ id: "call_a", name: "get_order_details", arguments: { order_id: "#W5185761" } }],
          delayMs: options.delayMs,
        });
  });
  const model = createChatModel("openai:fake-agent", {
    env: { OPENAI_API_KEY: "sk-backend", OPENAI_BASE_URL: fake.baseURL },
  });
  served = await startServer({
    harness: loadHarness(join("harnesses", "gated")),
    model,
    suite: "retail",
    ...suiteDefaults("retail"),
    ...(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.logDir ? { logDir: options.logDir } : {}),
  });
  return served;
}

async function post(server: ServeHandle, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-client", ...headers },
    body,
  });
  return { status: response.status, json: (await response.json()) as Body };
}

const good = (messages: unknown[] = OPENING) => JSON.stringify({ model: "served", messages, tools: TOOLS });

async function expectStillServing(server: ServeHandle): Promise<void> {
  const { status, json } = await post(server, good());
  expect(status).toBe(200);
  expect(json.choices[0].message.tool_calls[0].function.name).toBe("get_order_details");
}

function expectOpenAIError(json: Body, type: string, code: string | null) {
  expect(Object.keys(json)).toEqual(["error"]);
  expect(Object.keys(json.error).sort()).toEqual(["code", "message", "param", "type"]);
  expect(json.error.type).toBe(type);
  expect(json.error.code).toBe(code);
  expect(json.error.message.length).toBeGreaterThan(0);
}

describe("hsearch serve and bad requests", () => {
  it("answers malformed JSON with a 400 in OpenAI's shape and goes on serving", async () => {
    const server = await setup();
    const { status, json } = await post(server, '{"model": "served", "messages": [');
    expect(status).toBe(400);
    expectOpenAIError(json, "invalid_request_error", null);
    expect(json.error.message).toContain("could not parse the JSON body");
    await expectStillServing(server);
  });

  it("refuses an unknown field by name, as OpenAI does, and a wrong message role", async () => {
    const server = await setup();
    const unknown = await post(server, JSON.stringify({ model: "served", messages: OPENING, temprature: 0 }));
    expect(unknown.status).toBe(400);
    expectOpenAIError(unknown.json, "invalid_request_error", "unknown_parameter");
    expect(unknown.json.error).toMatchObject({
      param: "temprature",
      message: "Unrecognized request argument supplied: temprature",
    });
    const role = await post(server, good([{ role: "robot", content: "hi" }]));
    expect(role.status).toBe(400);
    expect(role.json.error.param).toBe("messages[0].role");
    // The official client sees these as its APIError with the status and code.
    const client = new OpenAI({ apiKey: "sk-client", baseURL: `${server.url}/v1`, maxRetries: 0 });
    const error = await client.chat.completions
      .create({ model: "served", messages: [{ role: "user", content: "hi" }], n: 2 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("unsupported_value");
    await expectStillServing(server);
  });

  it("refuses a wrong field type with a 400 naming the field, as OpenAI does", async () => {
    const server = await setup();
    const cases: Array<[Body, string]> = [
      [{ stream: "true" }, "stream"],
      [{ temperature: "hot" }, "temperature"],
      [{ top_p: "x" }, "top_p"],
      [{ stream_options: 5 }, "stream_options"],
      [{ stream: true, stream_options: { include_usage: "yes" } }, "stream_options.include_usage"],
      [{ max_tokens: 1.5 }, "max_tokens"],
      [{ reasoning_effort: "extreme" }, "reasoning_effort"],
      [{ tools: [{ type: "function", function: { name: 7 } }] }, "tools[0].function.name"],
      [{ messages: [{ role: "user", content: 42 }] }, "messages[0].content"],
      [{ messages: [{ role: "tool", content: "x" }] }, "messages[0].tool_call_id"],
    ];
    for (const [fields, param] of cases) {
      const { status, json } = await post(
        server,
        JSON.stringify({ model: "served", messages: OPENING, ...fields }),
      );
      expect(status, JSON.stringify(fields)).toBe(400);
      expect(Object.keys(json.error).sort()).toEqual(["code", "message", "param", "type"]);
      expect(json.error.type).toBe("invalid_request_error");
      expect(json.error.param, JSON.stringify(fields)).toBe(param);
      expect(json.error.message).toContain(param);
    }
    await expectStillServing(server);
  });

  it("answers an overlong conversation header and a body nested beyond the bound with a 400 naming no server path", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "hsearch-serve-bounds-"));
    const server = await setup({ logDir });
    const long = await post(server, good(), { [CONVERSATION_HEADER]: "c".repeat(1000) });
    expect(long.status).toBe(400);
    expect(long.json.error.param).toBe(CONVERSATION_HEADER);
    expect(long.json.error.message).not.toContain(logDir);
    const deep = `{"model":"served","messages":[{"role":"user","content":"hi"}],"metadata":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const nested = await post(server, deep);
    expect(nested.status).toBe(400);
    expect(nested.json.error.type).toBe("invalid_request_error");
    expect(nested.json.error.message).toMatch(/nested/);
    const deepArguments = JSON.stringify({
      model: "served",
      messages: [
        ...OPENING,
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "a",
              type: "function",
              function: { name: "x", arguments: `${"[".repeat(100_000)}${"]".repeat(100_000)}` },
            },
          ],
        },
        { role: "tool", tool_call_id: "a", content: "{}" },
      ],
    });
    const inArguments = await post(server, deepArguments);
    expect(inArguments.status).toBe(400);
    expect(inArguments.json.error.param).toBe("messages[2].tool_calls[0].function.arguments");
    for (const answer of [long, nested, inArguments])
      expect(JSON.stringify(answer.json)).not.toContain(logDir);
    await expectStillServing(server);
  });

  it("refuses a body over the limit with a 413 and goes on serving", async () => {
    const server = await setup({ maxBodyBytes: 64 * 1024 });
    const huge = good([...OPENING.slice(0, 1), { role: "user", content: "x".repeat(200 * 1024) }]);
    const { status, json } = await post(server, huge);
    expect(status).toBe(413);
    expectOpenAIError(json, "invalid_request_error", "request_too_large");
    await expectStillServing(server);
  });

  it("answers a wrong path with a 404 and lists its model", async () => {
    const server = await setup();
    const response = await fetch(`${server.url}/v1/completions`, { method: "POST", body: "{}" });
    expect(response.status).toBe(404);
    expectOpenAIError((await response.json()) as Body, "invalid_request_error", null);
    const models = (await (await fetch(`${server.url}/v1/models`)).json()) as Body;
    expect(models.data[0].id).toBe("openai:fake-agent");
  });

  it("refuses a continuation without the awaited tool result, then takes the right one; a retry gets the same reply", async () => {
    const server = await setup();
    const first = await post(server, good());
    const assistant = first.json.choices[0].message;
    const wrong = await post(server, good([...OPENING, assistant, { role: "user", content: "hello?" }]));
    expect(wrong.status).toBe(400);
    expectOpenAIError(wrong.json, "invalid_request_error", "tool_result_missing");
    const answered = [
      ...OPENING,
      assistant,
      { role: "tool", tool_call_id: "call_a", content: '{"status": "pending"}' },
    ];
    const second = await post(server, good(answered));
    expect(second.status).toBe(200);
    expect(second.json.choices[0].message.content).toBe("Your order is cancelled.");
    const asked = fake?.requests.length;
    const again = await post(server, good(answered));
    expect(again.json.choices[0].message).toEqual(second.json.choices[0].message);
    expect(fake?.requests.length).toBe(asked);
    // The client's own key never reaches the backing model.
    expect(JSON.stringify(fake?.requests.map((r) => r.headers))).not.toContain("sk-client");
  });

  it("keys a conversation by the x-conversation-id header when the client sends one", async () => {
    const server = await setup();
    const headers = { [CONVERSATION_HEADER]: "conv-42" };
    const first = await post(server, good(), headers);
    expect(first.json.hsearch.conversation_id).toBe("conv-42");
    // The client rewrote its history (another tool call id spelling is not the point: the header decides).
    const assistant = { ...first.json.choices[0].message, content: "(looking)" };
    const answered = [...OPENING, assistant, { role: "tool", tool_call_id: "call_a", content: "{}" }];
    const second = await post(server, good(answered), headers);
    expect(second.status).toBe(200);
    expect(second.json.choices[0].message.content).toBe("Your order is cancelled.");
  });

  it("passes the client's sampling fields on, keeps the harness's temperature, and drops OpenAI-platform fields", async () => {
    const server = await setup();
    const body = JSON.stringify({
      model: "served",
      messages: OPENING,
      tools: TOOLS,
      temperature: 0.9,
      max_completion_tokens: 50,
      stop: ["END"],
      seed: 7,
      user: "u-1",
      metadata: { team: "x" },
      store: false,
      parallel_tool_calls: true,
    });
    const { status } = await post(server, body);
    expect(status).toBe(200);
    const sent = fake?.requests.at(-1)?.body as Record<string, unknown>;
    expect(sent).toMatchObject({
      max_tokens: 50,
      stop: ["END"],
      seed: 7,
      parallel_tool_calls: true,
      temperature: 0,
    });
    expect(sent).not.toHaveProperty("user");
    expect(sent).not.toHaveProperty("metadata");
    // The harness's protocol tool is offered besides the client's.
    expect(JSON.stringify(sent.tools)).toContain("state_assessment");
  });

  it("answers a backing model's failure with a 502 upstream_error and goes on serving others", async () => {
    const server = await setup();
    const refusing = await startFakeOpenAIServer(() => ({
      status: 401,
      json: {
        error: {
          message: "Incorrect API key provided",
          type: "invalid_request_error",
          code: "invalid_api_key",
        },
      },
    }));
    const failing = await startServer({
      harness: loadHarness(join("harnesses", "gated")),
      model: createChatModel("openai:fake-agent", {
        env: { OPENAI_API_KEY: "sk-x", OPENAI_BASE_URL: refusing.baseURL },
      }),
      suite: "retail",
      ...suiteDefaults("retail"),
    });
    try {
      const { status, json } = await post(failing, good());
      expect(status).toBe(502);
      expectOpenAIError(json, "server_error", "upstream_error");
      expect(json.error.message).not.toContain("sk-x");
      // The failed conversation ended; the server answers the next request.
      expect((await fetch(`${failing.url}/v1/models`)).status).toBe(200);
      const again = await post(failing, good());
      expect(again.status).toBe(502);
    } finally {
      await failing.close();
      await refusing.close();
    }
    await expectStillServing(server);
  });

  it("logs which playbook rules a tool result matches, the rules acting through the prompt as in eval", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hsearch-serve-playbook-"));
    cpSync(join("harnesses", "gated"), join(dir, "harness"), { recursive: true });
    writeFileSync(
      join(dir, "harness", "playbook.yaml"),
      '- {id: not-pending, when: {any: ["delivered"]}, then: abstain, note: "A delivered order cannot be cancelled."}\n',
    );
    fake = await startFakeOpenAIServer((request) =>
      (request.body as { messages: Array<{ role: string }> }).messages.some((m) => m.role === "tool")
        ? openaiCompletion({ content: "That order was delivered; I cannot cancel it." })
        : openaiCompletion({
            toolCalls: [{ id: "c1", name: "get_order_details", arguments: { order_id: "#W1" } }],
          }),
    );
    const logDir = join(dir, "logs");
    served = await startServer({
      harness: loadHarness(join(dir, "harness")),
      model: createChatModel("openai:fake-agent", {
        env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: fake.baseURL },
      }),
      suite: "retail",
      ...suiteDefaults("retail"),
      logDir,
    });
    const first = await post(served, good());
    const body = fake.requests[0]?.body as { messages: Array<{ content: string }> } | undefined;
    const system = body?.messages[0]?.content;
    expect(system).toContain("(not-pending)");
    const answered = [
      ...OPENING,
      first.json.choices[0].message,
      { role: "tool", tool_call_id: "c1", content: '{"status": "delivered"}' },
    ];
    await post(served, good(answered));
    const [file] = readdirSync(logDir);
    const lines = readFileSync(join(logDir, file ?? ""), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.filter((l) => l.type === "playbook_match")).toEqual([
      expect.objectContaining({ step: 1, rules: ["not-pending"] }),
    ]);
    expect(served.usage.model_calls).toBe(2);
  });

  it("survives a client that disconnects mid-stream", async () => {
    const server = await setup({ delayMs: 300 });
    const url = new URL(`${server.url}/v1/chat/completions`);
    const body = JSON.stringify({ model: "served", messages: OPENING, tools: TOOLS, stream: true });
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        {
          hostname: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: { "content-type": "application/json" },
        },
        (res) => {
          expect(res.headers["content-type"]).toBe("text/event-stream");
          // The stream has opened; the model has not answered yet: leave.
          res.once("data", () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.on("error", (error) => {
        if ((error as NodeJS.ErrnoException).code !== "ECONNRESET") reject(error);
      });
      req.end(body);
    });
    // The model's reply arrives after the client left; the server writes to no one and serves the next client.
    await new Promise((resolve) => setTimeout(resolve, 400));
    await expectStillServing(server);
  });
});
