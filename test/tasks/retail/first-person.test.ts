import { describe, expect, it } from "vitest";
import {
  greeting,
  identityFromKnownInfo,
  requestFromReason,
  toFirstPerson,
} from "../../../src/tasks/generators/retail/first-person";
import { openingMessage } from "../../../src/tasks/importers/tau2/import-tau2";

describe("toFirstPerson", () => {
  it.each([
    [
      "You received your order #W1 and wish to exchange it.",
      "I received my order #W1 and wish to exchange it.",
    ],
    [
      "You are angry, and you're sure you'd rather return it.",
      "I am angry, and I'm sure I'd rather return it.",
    ],
    ["Send the refund to you and to yourself.", "Send the refund to me and to myself."],
    ["It saves you most money.", "It saves me most money."],
    ["The lamp is yours; Your daughter lives there.", "The lamp is mine; My daughter lives there."],
  ])("%s", (text, expected) => {
    expect(toFirstPerson(text)).toBe(expected);
  });
});

describe("requestFromReason", () => {
  it("keeps the request, drops directives to the simulated customer and what follows from them", () => {
    const reason =
      "You want to exchange the desk lamp. If the agent asks for confirmation, only exchange the lamp. If that is not possible, you swear. You also want to return the mouse (but do not reveal it to the agent).";
    expect(requestFromReason(reason)).toBe(
      "I want to exchange the desk lamp. I also want to return the mouse.",
    );
  });

  it("speaks to the agent as 'you'", () => {
    expect(requestFromReason("You wonder if the agent can help split the payment.")).toBe(
      "I wonder if you can help split the payment.",
    );
    expect(requestFromReason("You want a refund. Ask the agent explicitly to provide it within 3 days")).toBe(
      "I want a refund. Please provide it within 3 days.",
    );
  });
});

describe("identity and greeting", () => {
  it("reads name, user id, emails and zip from τ² known_info", () => {
    expect(identityFromKnownInfo("You are Yusuf Rossi in zip code 19122.")).toEqual({
      name: "Yusuf Rossi",
      userId: undefined,
      emails: [],
      zip: "19122",
    });
    expect(identityFromKnownInfo("You are mia_garcia_4516 (mia.garcia2723@example.com).")).toEqual({
      name: undefined,
      userId: "mia_garcia_4516",
      emails: ["mia.garcia2723@example.com"],
      zip: undefined,
    });
    expect(identityFromKnownInfo("You are an interesting guy called Noah Patel, living in 10108.").name).toBe(
      "Noah Patel",
    );
  });

  it("greets with whatever identifies the customer", () => {
    expect(greeting({ name: "Yusuf Rossi", emails: [], zip: "19122" })).toBe(
      "Hi, I'm Yusuf Rossi, zip code 19122.",
    );
    expect(greeting({ userId: "mei_kovacs_8020", emails: [], zip: "28236" })).toBe(
      "Hi, my user id is mei_kovacs_8020, zip code 28236.",
    );
    expect(greeting({ emails: [] })).toBeNull();
  });

  it("builds the opening message of τ² task 0", () => {
    expect(
      openingMessage({
        known_info: "You are Yusuf Rossi in zip code 19122.",
        reason_for_call:
          "You received your order #W2378156 and wish to exchange the mechanical keyboard for a similar one but with clicky switches.",
      }),
    ).toBe(
      "Hi, I'm Yusuf Rossi, zip code 19122. I received my order #W2378156 and wish to exchange the mechanical keyboard for a similar one but with clicky switches.",
    );
  });
});
