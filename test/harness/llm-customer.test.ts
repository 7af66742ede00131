import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { loadHarness } from "../../src/harness/load";
import { runRollout } from "../../src/harness/rollout";
import { MockChatModel, textReply, toolCallReply } from "../../src/models/mock";
import { loadTaskDir } from "../../src/tasks/load";

describe("the LLM customer", () => {
  it("plays the scenario, sees only what the agent says, and ends the episode on ###STOP###", async () => {
    const task = loadTaskDir(join(PACKAGE_ROOT, "tasks", "retail", "search"))
      .map((loaded) => loaded.task)
      .find((t) => t.kind === "blocked" && t.user);
    if (!task?.user) throw new Error("no task with a customer scenario");
    const agent = new MockChatModel([
      textReply("Hello! Could you give me your email address?"),
      toolCallReply([{ name: "find_user_id_by_email", arguments: { email: "nobody@example.com" } }]),
      textReply("I could not find that email. Anything else?"),
    ]);
    const customer = new MockChatModel(
      [textReply("It is nobody@example.com."), textReply("No, thanks. ###STOP###")],
      {
        id: "mock:customer",
      },
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
    expect(said).toContain("It is nobody@example.com.");
    expect(customer.requests).toHaveLength(2);
    const firstPrompt = JSON.stringify(customer.requests[0]?.messages);
    expect(firstPrompt).toContain(task.user.reason_for_call.slice(0, 40));
    expect(firstPrompt).toContain("Could you give me your email address?");
    expect(firstPrompt).not.toContain(task.blocker?.description ?? "~");
    // The customer never sees tool calls or observations, only the agent's words.
    expect(JSON.stringify(customer.requests[1]?.messages)).not.toContain("find_user_id_by_email");
  });
});
