import { describe, expect, it } from "vitest";
import { cueHits, soundsLikeRefusal, textNamesFamily } from "../../src/scoring/label-cues";
import { containsCue, containsKeyword, tokenize } from "../../src/scoring/text-match";

describe("tokenize", () => {
  it("lower-cases, keeps apostrophes inside words and folds curly quotes", () => {
    expect(tokenize("I CAN\u2019T find #W2378156, sorry!")).toEqual([
      "i",
      "can't",
      "find",
      "w2378156",
      "sorry",
    ]);
  });
});

describe("containsKeyword", () => {
  const tokens = tokenize("The desk lamps are not in the order #W2378156.");
  it("matches whole words case-insensitively, phrases as runs, with a plural fold", () => {
    expect(containsKeyword(tokens, "Desk Lamp")).toBe(true);
    expect(containsKeyword(tokens, "not in the order")).toBe(true);
    expect(containsKeyword(tokens, "w2378156")).toBe(true);
  });
  it("does not match prefixes of ids or broken phrases", () => {
    expect(containsKeyword(tokens, "W237815")).toBe(false);
    expect(containsKeyword(tokens, "lamp desk")).toBe(false);
    expect(containsKeyword(tokens, "   ")).toBe(false);
  });
});

describe("containsCue", () => {
  it("lets the last cue token be a stem", () => {
    expect(containsCue(tokenize("the two requests are contradictory"), "contradict")).toBe(true);
    expect(containsCue(tokenize("this belongs to another account"), "belongs to another")).toBe(true);
    expect(containsCue(tokenize("this belongs to me"), "belongs to another")).toBe(false);
  });
});

describe("label cues", () => {
  it("names a family when its cues are present and not outvoted", () => {
    expect(textNamesFamily("That item does not exist in the order.", "infeasible")).toBe(true);
    expect(textNamesFamily("The request is unclear and conflicting.", "ambiguous")).toBe(true);
    // "can't" is an infeasible cue, but two trap cues outvote it
    const trap = "I can't do that: the order belongs to another customer.";
    expect(cueHits(trap).trap.length).toBe(2);
    expect(textNamesFamily(trap, "trap")).toBe(true);
    expect(textNamesFamily(trap, "infeasible")).toBe(false);
  });
  it("does not name a family without cues", () => {
    expect(textNamesFamily("Your return has been processed.", "infeasible")).toBe(false);
  });
  it("detects a claim of not being able to proceed", () => {
    expect(soundsLikeRefusal("Sorry, I am unable to undo that.")).toBe(true);
    expect(soundsLikeRefusal("Done, your refund is on its way.")).toBe(false);
  });
});
