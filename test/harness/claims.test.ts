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
