import { describe, expect, it } from "vitest";
import { claimsCompletion, saysCannotProceed } from "../../src/harness/claims";
import { ScriptedCustomer } from "../../src/harness/customer";

describe("claims", () => {
  it("detects completion claims but not refusals", () => {
    expect(claimsCompletion("I have successfully cancelled your order.")).toBe(true);
    expect(claimsCompletion("Your exchange has been processed.")).toBe(true);
    expect(claimsCompletion("I cannot cancel it; it has been delivered already? No.")).toBe(false);
    expect(claimsCompletion("Could you confirm the order id?")).toBe(false);
  });

  it("detects statements that the agent cannot proceed", () => {
    expect(saysCannotProceed("I'm sorry, I cannot do that.")).toBe(true);
    expect(saysCannotProceed("This request is ambiguous.")).toBe(true);
    expect(saysCannotProceed("Sure, let me look.")).toBe(false);
  });
});

describe("scripted customer", () => {
  const customer = () =>
    new ScriptedCustomer({ reason_for_call: "Exchange in #W1234567", known_info: "I am Bo, zip 10001" });

  it("answers identity questions from the scenario", async () => {
    expect(await customer().reply("May I have your email or zip code?")).toEqual({
      text: "I am Bo, zip 10001",
      done: false,
    });
  });

  it("speaks in the first person from a second-person brief, and never ends on narration", async () => {
    const briefed = new ScriptedCustomer({
      reason_for_call: "You want to cancel your pending order #W5185761 because you no longer need it.",
      known_info: "You are Fatima Jackson in zip code 94182.",
    });
    expect((await briefed.reply("Could you verify your identity with your zip code?")).text).toBe(
      "I am Fatima Jackson in zip code 94182.",
    );
    expect((await briefed.reply("Which order is this about?")).text).toBe("It is order #W5185761.");
    expect((await briefed.reply("What would you like to do today?")).text).toBe(
      "I want to cancel my pending order #W5185761 because I no longer need it.",
    );
    // Narration before acting keeps the conversation going.
    expect(await briefed.reply("Let me look up your account, one moment.")).toEqual({
      text: "Okay, go ahead.",
      done: false,
    });
    expect(await briefed.reply("I have cancelled order #W5185761.")).toMatchObject({ done: true });
  });

  it("confirms actions on its own orders and refuses others", async () => {
    expect((await customer().reply("Shall I proceed with the exchange on #W1234567?")).text).toMatch(/^Yes/);
    expect((await customer().reply("Shall I proceed with the exchange on #W7654321?")).text).toMatch(/^No/);
  });

  it("pushes back once on a refusal, then ends", async () => {
    const c = customer();
    expect(await c.reply("I cannot do this.")).toMatchObject({ done: false });
    expect(await c.reply("I still cannot do this.")).toMatchObject({ done: true });
  });
});
