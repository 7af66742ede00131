import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { loadHarness } from "../../src/harness/load";
import { runRollout } from "../../src/harness/rollout";
import { MockChatModel, textReply, toolCallReply } from "../../src/models/mock";
import { ProviderError } from "../../src/models/provider-error";
import { loadTaskDir } from "../../src/tasks/loading/load";

describe("the LLM customer", () => {
  const task = loadTaskDir(join(PACKAGE_ROOT, "tasks", "retail", "search"))
    .map((loaded) => loaded.task)
    .find((t) => t.kind === "blocked" && t.user);
  if (!task?.user) throw new Error("no task with a customer scenario");
  const user = task.user;

  it("writes the opening itself, keeps its scenario out of the agent's prompt, and ends on ###STOP###", async () => {
    const agent = new MockChatModel([
      textReply("Hello! Could you give me your email address?"),
      toolCallReply([{ name: "find_user_id_by_email", arguments: { email: "nobody@example.com" } }]),
      textReply("I could not find that email. Anything else?"),
    ]);
    const customer = new MockChatModel(
      [
        textReply("Hi, I need help with an order."),
        textReply("It is nobody@example.com."),
        textReply("No, thanks. ###STOP###"),
      ],
      { id: "mock:customer" },
    );
    const trajectory = await runRollout({
      harness: loadHarness(join(PACKAGE_ROOT, "harnesses", "bare")),
      task,
      model: agent,
      customerModel: customer,
      seed: 1,
      repeat: 0,
    });
    expect(trajectory.end.reason).toBe("customer_ended");
    const said = trajectory.events
      .filter((e) => e.type === "message" && e.author === "customer")
      .map((e) => (e as { text: string }).text);
    expect(said).toEqual(["Hi, I need help with an order.", "It is nobody@example.com.", "No, thanks."]);
    expect(customer.requests).toHaveLength(3);
    // The scenario is in the customer's system prompt, and the agent's first user turn is the customer's opening.
    expect(customer.requests[0]?.messages[0]?.content).toContain(user.reason_for_call.slice(0, 40));
    expect(agent.requests[0]?.messages[1]).toEqual({
      role: "user",
      content: "Hi, I need help with an order.",
    });
    const agentPrompt = JSON.stringify(agent.requests.map((request) => request.messages));
    expect(agentPrompt).not.toContain(user.reason_for_call.slice(0, 40));
    expect(agentPrompt).not.toContain(task.instruction.slice(0, 40));
    expect(JSON.stringify(customer.requests[1]?.messages)).toContain("Could you give me your email address?");
    expect(JSON.stringify(customer.requests[0]?.messages)).not.toContain(task.blocker?.description ?? "~");
    // The customer never sees tool calls or observations, only the agent's words.
    expect(JSON.stringify(customer.requests[2]?.messages)).not.toContain("find_user_id_by_email");
  });

  it("keeps a narrating agent in the conversation, and ###STOP### never reaches the agent", async () => {
    const agent = new MockChatModel([
      textReply("Let me look up your account, one moment."),
      textReply("I have cancelled the order for you."),
      textReply("Is there anything else?"),
    ]);
    const customer = new MockChatModel(
      [
        textReply("Hello, I want to cancel an order."),
        textReply("Sure, take your time."),
        textReply("Great, thanks! ###STOP###"),
        textReply("No, that's all. ###STOP###"),
      ],
      { id: "mock:customer" },
    );
    const selfCheck = loadHarness(join(PACKAGE_ROOT, "harnesses", "self-check"));
    const trajectory = await runRollout({
      harness: selfCheck,
      task,
      model: agent,
      customerModel: customer,
      seed: 1,
      repeat: 0,
    });
    expect(agent.requests.length).toBeGreaterThanOrEqual(2);
    expect(agent.requests[1]?.messages.at(-1)).toEqual({ role: "user", content: "Sure, take your time." });
    const everything = JSON.stringify(agent.requests.map((request) => request.messages));
    expect(everything).not.toContain("###STOP###");
    expect(JSON.stringify(trajectory.events)).not.toContain("###STOP###");
  });

  it("a failure of the customer's model is an infrastructure error, not the agent's", async () => {
    const agent = new MockChatModel([textReply("unused")]);
    const customer = {
      id: "mock:customer",
      provider: "mock",
      generate: async () => {
        throw new ProviderError("rate_limit", "mock:customer: HTTP 429 (gave up after 5 attempts)");
      },
    };
    const trajectory = await runRollout({
      harness: loadHarness(join(PACKAGE_ROOT, "harnesses", "bare")),
      task,
      model: agent,
      customerModel: customer,
      seed: 1,
      repeat: 0,
    });
    expect(trajectory.end).toMatchObject({ reason: "infra_error", error_class: "rate_limit" });
    expect(trajectory.reward).toBeNull();
    expect(agent.requests).toHaveLength(0);
  });
});
