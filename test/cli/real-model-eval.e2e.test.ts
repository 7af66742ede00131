import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../helpers/fake-openai-server";
import { realisticOpenAI } from "../helpers/realistic-openai";
import { retailSubset } from "../helpers/task-subset";

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `hsearch eval --json` of the bare harness on one retail search task per family, as openai:gpt-5-mini at `baseURL`. */
function evalOneTaskPerFamily(baseURL: string) {
  const { dir } = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 });
  return runCli(
    [
      "eval",
      "--harness",
      "harnesses/bare",
      "--tasks",
      dir,
      "--split",
      "search",
      "--model",
      "openai:gpt-5-mini",
      "--json",
    ],
    { env: { ...process.env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: baseURL } },
  );
}

async function evalAgainst(contextChars: number) {
  // The task model also plays the customer (the default `auto` customer with a real model).
  server = await startFakeOpenAIServer(realisticOpenAI({ contextChars: { "gpt-5-mini": contextChars } }));
  const result = await evalOneTaskPerFamily(server.baseURL);
  return { result, report: result.code === 0 ? JSON.parse(result.stdout) : undefined };
}

describe("eval against a server that behaves like a real gpt-5 model", () => {
  it("sends no temperature, answers a narrating agent, and has zero infrastructure errors", async () => {
    const { result, report } = await evalAgainst(1_000_000);
    expect(result.code).toBe(0);
    expect(report.summary).toMatchObject({ infra_errors: {}, context_overflow: 0 });
    expect(report.summary.n_scored).toBe(report.summary.n_total);
    const bodies = (server?.requests ?? []).map((r) => r.body as Record<string, unknown>);
    expect(bodies.every((b) => !("temperature" in b))).toBe(true);
    // The narration got the customer's reply, and the stop token never reached the agent.
    const agentCalls = bodies.filter((b) => !JSON.stringify(b).includes("You are playing a customer"));
    const customerCalls = bodies.filter((b) => JSON.stringify(b).includes("You are playing a customer"));
    expect(JSON.stringify(customerCalls)).toContain("Let me look up your account");
    // …and the agent was asked again after the customer's go-ahead: two agent turns per episode.
    expect(agentCalls).toHaveLength(2 * report.summary.n_total);
    expect(JSON.stringify(agentCalls)).toContain("Sure, take your time.");
    expect(JSON.stringify(agentCalls)).not.toContain("###STOP###");
    expect(result.stderr).not.toContain("no price");
  });

  it("scores a context overflow as the agent's failure inside the denominator, never as an infra error", async () => {
    const { result, report } = await evalAgainst(3_000);
    expect(result.code).toBe(0);
    expect(report.summary.context_overflow).toBe(report.summary.n_total);
    expect(report.summary.n_scored).toBe(report.summary.n_total);
    expect(report.summary.infra_errors).toEqual({});
    expect(report.summary.feasible?.solve ?? 0).toBe(0);
  });

  it("exits 1 above max_infra_error_rate and prints the first provider error in full, scoring nothing", async () => {
    server = await startFakeOpenAIServer(() => ({
      status: 401,
      json: {
        error: {
          message: "Incorrect API key provided: te**key.",
          type: "invalid_request_error",
          code: "invalid_api_key",
        },
      },
    }));
    const result = await evalOneTaskPerFamily(server.baseURL);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.summary).toMatchObject({
      n_scored: 0,
      blocked: null,
      feasible: null,
      infra_errors: { auth: report.summary.n_total },
    });
    expect(result.stderr).toContain("above max_infra_error_rate");
    expect(result.stderr).toContain("Incorrect API key provided: te**key.");
  });
});
