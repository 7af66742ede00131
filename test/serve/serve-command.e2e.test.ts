/**
 * The `hsearch serve` command as a user runs it: a child process on a free port, printing its base URL; a plain
 * OpenAI client through it; one JSONL log per conversation with the harness's interventions marked and no API key;
 * a model the server cannot serve refused as bad input (exit 2); SIGTERM stops it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { retailPolicy, retailToolSpecs } from "../../src/envs/retail";
import { runCli } from "../helpers/cli";
import { compiledCli } from "../helpers/compiled-package";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";

/** The compiled CLI (test/helpers/compiled-package.ts), which this file starts as a child process. */
let cli: string[];
beforeAll(async () => {
  cli = await compiledCli();
}, 300_000);

const BACKEND_KEY = "sk-backend-SECRET-51d0";
let fake: FakeOpenAIServer | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  child?.kill("SIGKILL");
  child = undefined;
  await fake?.close();
  fake = undefined;
});

function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    stream.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const end = text.indexOf("\n");
      if (end >= 0) resolve(text.slice(0, end).trim());
    });
    stream.on("end", () => reject(new Error(`no line on stdout: ${text}`)));
  });
}

describe("hsearch serve", () => {
  it("serves a harness to a plain OpenAI client, logs the gate's refusal, and stops on SIGTERM", async () => {
    // The model states a blocker and tries the write in one turn, then defers.
    fake = await startFakeOpenAIServer((request) => {
      const messages = (request.body as { messages: Array<{ role: string }> }).messages;
      return messages.some((m) => m.role === "tool")
        ? openaiCompletion({
            toolCalls: [
              { id: "c2", name: "abstain", arguments: { category: "infeasible", reason: "delivered" } },
            ],
          })
        : openaiCompletion({
            toolCalls: [
              { id: "c1", name: "state_assessment", arguments: { status: "blocked", reason: "delivered" } },
              {
                id: "c1b",
                name: "cancel_pending_order",
                arguments: { order_id: "#W1", reason: "no longer needed" },
              },
            ],
          });
    });
    const logs = mkdtempSync(join(tmpdir(), "hsearch-serve-cli-"));
    child = spawn(
      process.execPath,
      [
        ...cli,
        "serve",
        "--harness",
        "harnesses/gated",
        "--model",
        "openai:fake-agent",
        "--port",
        "0",
        "--log",
        logs,
      ],
      {
        cwd: PACKAGE_ROOT,
        env: { ...process.env, OPENAI_API_KEY: BACKEND_KEY, OPENAI_BASE_URL: fake.baseURL },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const exited = new Promise<number | null>((resolve) => child?.on("exit", (code) => resolve(code)));
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const baseURL = await firstLine(child.stdout as NodeJS.ReadableStream);
    expect(baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    const client = new OpenAI({ apiKey: "sk-client-SECRET-77", baseURL, maxRetries: 0 });
    const tools = [
      ...retailToolSpecs(),
      { name: "abstain", description: "defer", parameters: { type: "object" } },
    ].map((tool) => ({ type: "function" as const, function: tool }));
    const opening = [
      { role: "system" as const, content: retailPolicy() },
      { role: "user" as const, content: "Cancel order #W1 please." },
    ];
    const first = await client.chat.completions.create({ model: "any", messages: opening, tools });
    // The assessment and the refused write never reach the client: the deferral does, the reply says why.
    const message = first.choices[0]?.message;
    expect(message?.tool_calls?.map((call) => (call.type === "function" ? call.function.name : ""))).toEqual([
      "abstain",
    ]);
    const hsearch = (first as unknown as { hsearch: { interventions: Array<{ kind: string }> } }).hsearch;
    expect(hsearch.interventions.map((i) => i.kind)).toEqual(["assessment", "gate_refusal"]);
    expect(first.usage?.prompt_tokens).toBe(24);
    const call = message?.tool_calls?.[0];
    const done = await client.chat.completions.create({
      model: "any",
      tools,
      messages: [
        ...opening,
        { role: "assistant", content: message?.content ?? null, tool_calls: message?.tool_calls ?? [] },
        { role: "tool", tool_call_id: call?.id ?? "", content: "Deferral recorded. The conversation ends." },
      ],
    });
    expect((done as unknown as { hsearch: { ended: { reason: string } } }).hsearch.ended.reason).toBe(
      "deferred",
    );

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    // What the backing model billed, metered over the server's life (the fake bills 12 + 3 tokens a call).
    expect(stderr).toContain("stopped; 1 conversations, 2 model calls, 24 input and 6 output tokens");
    const [file] = readdirSync(logs);
    const text = readFileSync(join(logs, file ?? ""), "utf8");
    const lines = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.filter((l) => l.type === "model_call")).toHaveLength(2);
    expect(lines.find((l) => l.event?.type === "gate_refusal")?.intervention).toBe(true);
    expect(lines.at(-1)).toMatchObject({ type: "end", end: { reason: "deferred" } });
    expect(text).not.toContain(BACKEND_KEY);
    expect(text).not.toContain("sk-client-SECRET-77");
  });

  it("refuses a model it cannot serve as bad input", async () => {
    const result = await runCli(["serve", "--harness", "harnesses/gated", "--model", "sim:default"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("serve needs a real provider");
  });

  it("refuses bad start-up input with exit 2 and a clear message, never 'internal error'", async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const port = String((busy.address() as AddressInfo).port);
    const dir = mkdtempSync(join(tmpdir(), "hsearch-serve-start-"));
    const aFile = join(dir, "a-file");
    writeFileSync(aFile, "not a directory\n");
    const harnessLink = join(dir, "harness");
    symlinkSync(join(PACKAGE_ROOT, "harnesses", "gated"), harnessLink);
    const base = ["serve", "--model", "openai:gpt-4o-mini"];
    const env = { ...process.env, OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" };
    const cases: Array<[string[], RegExp]> = [
      [["--harness", "harnesses/gated", "--port", port], new RegExp(`port ${port}.*in use`)],
      [["--harness", "harnesses/gated", "--port", "70000"], /--port .*70000/],
      [["--harness", "harnesses/gated", "--port", "abc"], /--port/],
      [
        ["--harness", "harnesses/gated", "--port", "0", "--host", "no-such-host.invalid"],
        /--host no-such-host\.invalid/,
      ],
      [
        ["--harness", "harnesses/gated", "--port", "0", "--log", join(dir, "l1"), "--log", join(dir, "l2")],
        /--log .*once/,
      ],
      [["--harness", "harnesses/gated", "--port", "0", "--log", aFile], /--log .*not a directory/],
      [["--harness", harnessLink, "--port", "0", "--log", join(harnessLink, "logs")], /--log .*the harness/],
      [["--harness", join(dir, "no-such-harness"), "--port", "0"], /no-such-harness/],
    ];
    try {
      for (const [args, message] of cases) {
        const result = await runCli([...base, ...args], { cwd: PACKAGE_ROOT, env });
        expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toMatch(message);
        expect(result.stderr).not.toMatch(/internal error|report it/i);
      }
    } finally {
      busy.close();
    }
  });
});
