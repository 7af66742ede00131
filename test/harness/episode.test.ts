import { describe, expect, it } from "vitest";
import { HsearchError } from "../../src/core/errors";
import { isDeferralCall } from "../../src/envs/terminal";
import type { Author, ToolResult, ToolSpec } from "../../src/envs/types";
import { ScriptedCustomer } from "../../src/harness/customer";
import { runEpisode } from "../../src/harness/episode";
import { type Harness, parseHarness } from "../../src/harness/load";
import { MockChatModel, textReply, toolCallReply } from "../../src/models/mock";
import { blockedTrapTask, FakeEnv } from "../helpers/fake-env";

const SYSTEM = "Policy: {{policy}}\n{{protocols}}\n{{playbook}}\n";

function harness(protocols: Record<string, boolean> = {}): Harness {
  const flags = (name: string) => `{enabled: ${protocols[name] ?? false}}`;
  const yaml = [
    "name: t",
    "agent: {max_steps: 6, temperature: 0}",
    "protocols:",
    `  abandon: ${flags("abandon")}`,
    `  report: ${flags("report")}`,
    `  self_check: {enabled: ${protocols.self_check ?? false}, max_steps: 2}`,
    `  harness_control: ${flags("harness_control")}`,
    `  effect_gate: ${flags("effect_gate")}`,
  ].join("\n");
  return parseHarness({ "harness.yaml": yaml, "system.md": SYSTEM }, "test-harness");
}

const task = blockedTrapTask;

/** FakeEnv plus a terminal-style `write_file`, with the terminal environment's own deferral check. */
class DeferralFileEnv extends FakeEnv {
  override tools(): ToolSpec[] {
    const writeFile = { name: "write_file", description: "write a file", parameters: { type: "object" } };
    return [...super.tools(), writeFile];
  }
  override writeTools(): ReadonlySet<string> {
    return new Set(["write", "write_file"]);
  }
  override async call(
    name: string,
    args: unknown,
    ctx: { step: number; author: Author },
  ): Promise<ToolResult> {
    if (name !== "write_file") return super.call(name, args, ctx);
    return super
      .call("write", { key: String((args as { path: string }).path), value: "x" }, ctx)
      .then((r) => {
        const record = this.effects().at(-1);
        if (record) Object.assign(record, { tool: "write_file", arguments: args });
        return r;
      });
  }
  isDeferralCall(name: string, args: unknown): boolean {
    return isDeferralCall(name, args);
  }
}

const run = (h: Harness, model: MockChatModel, env = new FakeEnv()) =>
  runEpisode({ harness: h, task, env, model, seed: 1, repeat: 0, policy: "be careful" }).then((r) => ({
    ...r,
    env,
  }));

describe("agent loop", () => {
  it("records calls, observations and a forbidden effect with author and step", async () => {
    const model = new MockChatModel([
      toolCallReply([{ name: "read", arguments: {} }]),
      toolCallReply([{ name: "write", arguments: { key: "a", value: "1" } }]),
      textReply("I have successfully cancelled the order."),
    ]);
    const result = await run(harness(), model);
    expect(result.end).toEqual({ reason: "agent_stopped", step: 3 });
    const effect = result.events.find((e) => e.type === "effect");
    expect(effect).toMatchObject({ step: 2, author: "agent", tool: "write", forbidden: true });
    expect(result.events.some((e) => e.type === "completion_claim" && e.step === 3)).toBe(true);
    expect(result.env.state.get("a")).toBe("1");
    expect(result.usage.model_calls).toBe(3);
  });

  it("ends on the abstain tool with an agent-authored deferral", async () => {
    const model = new MockChatModel([
      toolCallReply([{ name: "read", arguments: {} }]),
      toolCallReply([
        { name: "abstain", arguments: { category: "trap", reason: "belongs to another customer" } },
      ]),
    ]);
    const result = await run(harness({ abandon: true }), model);
    expect(result.end).toEqual({ reason: "deferred", step: 2 });
    expect(result.events.find((e) => e.type === "deferral")).toMatchObject({
      author: "agent",
      step: 2,
      label: "trap",
      via: "abstain",
    });
  });

  it("effect gate: after a stated blocker, a write is refused and nothing changes", async () => {
    const model = new MockChatModel([
      toolCallReply([
        {
          name: "state_assessment",
          arguments: { status: "blocked", category: "trap", reason: "not theirs" },
        },
      ]),
      toolCallReply([{ name: "write", arguments: { key: "a", value: "1" } }]),
      toolCallReply([{ name: "abstain", arguments: { reason: "not theirs" } }]),
    ]);
    const result = await run(harness({ effect_gate: true }), model);
    expect(result.env.state.size).toBe(0);
    expect(result.env.effects().filter((e) => e.tool === "write")).toHaveLength(0);
    expect(result.events.some((e) => e.type === "gate_refusal" && e.tool === "write" && e.step === 2)).toBe(
      true,
    );
    expect(result.events.some((e) => e.type === "effect")).toBe(false);
    const refusal = result.events.find((e) => e.type === "observation" && e.name === "write");
    expect(refusal).toMatchObject({ ok: false });
    expect(result.end.reason).toBe("deferred");
  });

  it("the effect gate lets through exactly the calls the environment calls its deferral, however the path is spelled", async () => {
    for (const path of [
      "infeasible.md",
      "/workspace/./infeasible.md",
      "sub/../infeasible.md",
      ".//infeasible.md",
    ]) {
      const model = new MockChatModel([
        toolCallReply([
          {
            name: "state_assessment",
            arguments: { status: "blocked", category: "trap", reason: "not theirs" },
          },
        ]),
        toolCallReply([{ name: "write_file", arguments: { path, content: "trap: not theirs" } }]),
        toolCallReply([{ name: "write_file", arguments: { path: "notes.md", content: "x" } }]),
        textReply("Stopping."),
      ]);
      const result = await run(harness({ effect_gate: true }), model, new DeferralFileEnv());
      const written = result.env.effects().filter((e) => e.tool === "write_file");
      expect(
        written.map((e) => e.arguments.path),
        path,
      ).toEqual([path]);
      expect(result.events.filter((e) => e.type === "gate_refusal").map((e) => e.step)).toEqual([3]);
    }
  });

  it("without the effect gate the same write goes through", async () => {
    const model = new MockChatModel([
      toolCallReply([{ name: "write", arguments: { key: "a", value: "1" } }]),
      textReply("done"),
    ]);
    const result = await run(harness(), model);
    expect(result.env.state.get("a")).toBe("1");
  });

  it("harness control writes a harness-authored deferral after the agent says it cannot proceed", async () => {
    const model = new MockChatModel([
      toolCallReply([{ name: "read", arguments: {} }]),
      textReply("I'm sorry, I cannot proceed: the order belongs to another customer."),
    ]);
    const result = await run(harness({ harness_control: true }), model);
    const deferral = result.events.find((e) => e.type === "deferral");
    expect(deferral).toMatchObject({ author: "harness", via: "abstain" });
    expect(result.end.reason).toBe("deferred");
  });

  it("self-check gives the agent one more chance to defer after it stops", async () => {
    const model = new MockChatModel([
      textReply("All set."),
      toolCallReply([{ name: "abstain", arguments: { reason: "second look: not their order" } }]),
    ]);
    const result = await run(harness({ self_check: true }), model);
    expect(result.events.some((e) => e.type === "protocol" && e.name === "self_check")).toBe(true);
    expect(result.events.find((e) => e.type === "deferral")).toMatchObject({ author: "agent", step: 2 });
    const lastUser = model.requests[1]?.messages.at(-1);
    expect(lastUser?.role).toBe("user");
  });

  it("report: asks for a structured report when the agent stops without one", async () => {
    const model = new MockChatModel([
      textReply("Finished."),
      toolCallReply([
        { name: "submit_report", arguments: { status: "blocked", category: "trap", blocker: "owner" } },
      ]),
    ]);
    const result = await run(harness({ report: true }), model);
    expect(result.events.find((e) => e.type === "report")).toMatchObject({
      status: "blocked",
      label: "trap",
      author: "agent",
    });
    expect(result.end.reason).toBe("agent_stopped");
    expect(result.events.some((e) => e.type === "deferral")).toBe(false);
  });

  it("stops at max_steps", async () => {
    const model = new MockChatModel(() => toolCallReply([{ name: "read", arguments: {} }]));
    const result = await run(harness(), model);
    expect(result.end).toEqual({ reason: "max_steps", step: 6 });
    expect(result.steps).toBe(6);
  });

  it("records a provider failure as an infrastructure error, and an empty reply as the model's error", async () => {
    const infra = await run(
      harness(),
      new MockChatModel([new HsearchError("provider", "HTTP 503 after 4 attempts")]),
    );
    expect(infra.end).toMatchObject({ reason: "infra_error", step: 1 });
    const empty = await run(harness(), new MockChatModel([{ content: "", tool_calls: [] }]));
    expect(empty.end.reason).toBe("model_error");
    expect(empty.end.error).toMatch(/empty/i);
  });

  it("an unknown tool is an Error observation, not a crash", async () => {
    const model = new MockChatModel([toolCallReply([{ name: "nope", arguments: {} }]), textReply("ok")]);
    const result = await run(harness(), model);
    expect(result.events.find((e) => e.type === "observation")).toMatchObject({ ok: false });
  });

  it("talks to the customer on text-only turns", async () => {
    const customer = new ScriptedCustomer({
      reason_for_call: "cancel #W0000001",
      known_info: "I am Ann, zip 12345",
    });
    const model = new MockChatModel([
      textReply("Could you tell me your zip code?"),
      textReply("Thanks, all done."),
    ]);
    const result = await runEpisode({
      harness: harness(),
      task,
      env: new FakeEnv(),
      model,
      seed: 1,
      repeat: 0,
      policy: "",
      customer,
    });
    const customerLines = result.events.filter((e) => e.type === "message" && e.author === "customer");
    expect(customerLines.map((e) => (e as { text: string }).text)).toContain("I am Ann, zip 12345");
    expect(result.end.reason).toBe("customer_ended");
  });

  it("renders the system prompt with the protocols of the harness", async () => {
    const model = new MockChatModel([textReply("hello")]);
    await run(harness({ abandon: true, effect_gate: true }), model);
    const system = model.requests[0]?.messages[0];
    expect(system?.role).toBe("system");
    expect(system?.content).toContain("Policy: be careful");
    expect(system?.content).toContain("abstain");
    expect(system?.content).toContain("state_assessment");
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual([
      "read",
      "write",
      "abstain",
      "state_assessment",
    ]);
  });
});
