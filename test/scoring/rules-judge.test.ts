import { describe, expect, it } from "vitest";
import { isHsearchError } from "../../src/core/errors";
import type { TrajectoryEvent } from "../../src/harness/trajectory";
import { createJudge } from "../../src/scoring/create-judge";
import { keywordOverlap, requiredKeywords, rulesJudge } from "../../src/scoring/rules-judge";
import { retailBlocked, retailFeasible } from "../helpers/task-builders";
import { agentDeferral, harnessDeferral, READ_ORDER, trajectory, WRONG_REASON } from "./fixtures";

const task = retailBlocked();
const judge = (events: TrajectoryEvent[]) => rulesJudge.judgeBlocked(task, trajectory(task, events));

describe("requiredKeywords", () => {
  it("is max(1, ceil(30% of k))", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 10].map(requiredKeywords)).toEqual([1, 1, 1, 2, 2, 2, 3, 3]);
  });
});

describe("keywordOverlap", () => {
  it("counts distinct keywords", () => {
    const overlap = keywordOverlap("The DESK LAMP is absent; desk lamp!", [
      "desk lamp",
      "Desk  lamp",
      "absent",
      "x",
    ]);
    expect(overlap).toEqual({ matched: ["desk lamp", "absent"], total: 3, required: 1, grounded: true });
  });
  it("rejects a blocker without usable keywords", () => {
    expect(() => keywordOverlap("text", ["", "  "])).toThrow(/no usable keywords/);
  });
});

describe("rules judge", () => {
  it("recognises an explicit correct label with grounded text (2 of 5 keywords)", async () => {
    const verdict = await judge([
      ...READ_ORDER,
      {
        type: "assessment",
        step: 2,
        author: "agent",
        status: "blocked",
        label: "infeasible",
        reason: "The desk lamp is absent from this order.",
      },
    ]);
    expect(verdict.recognized).toBe(true);
    expect(verdict.label_correct).toBe(true);
    expect(verdict.reason_matches).toBe(false); // no deferral
    expect(verdict.judge).toBe("rules");
    expect(verdict.input_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("needs the keyword threshold: one of five keywords is not grounded", async () => {
    const verdict = await judge([
      { type: "message", step: 2, author: "agent", text: "I cannot process this desk lamp request." },
    ]);
    expect(verdict.label_correct).toBe(true);
    expect(verdict.recognized).toBe(false);
  });

  it("takes the label from free-text cues when no explicit label is given", async () => {
    const verdict = await judge([agentDeferral(2)]);
    expect(verdict).toMatchObject({ recognized: true, label_correct: true, reason_matches: true });
  });

  it("lets a wrong explicit label override right wording", async () => {
    const verdict = await judge([
      agentDeferral(2, "The desk lamp does not exist in the order, not possible.", "trap"),
    ]);
    expect(verdict.label_correct).toBe(false);
    expect(verdict.recognized).toBe(false);
    expect(verdict.reason_matches).toBe(false);
  });

  it("ignores harness-authored text and feasible assessments", async () => {
    const verdict = await judge([
      harnessDeferral(2),
      {
        type: "assessment",
        step: 2,
        author: "agent",
        status: "feasible",
        reason: "desk lamp absent? no, it is fine",
      },
      {
        type: "message",
        step: 2,
        author: "customer",
        text: "The desk lamp is not in the order, it cannot be returned.",
      },
    ]);
    expect(verdict).toMatchObject({ recognized: false, label_correct: false, reason_matches: false });
  });

  it("reads only the first agent deferral for the reason", async () => {
    const verdict = await judge([agentDeferral(2, WRONG_REASON), agentDeferral(3)]);
    expect(verdict.reason_matches).toBe(false);
    expect(verdict.recognized).toBe(true); // the second deferral's text still counts as assessment text
  });

  it("reads structured reports", async () => {
    const verdict = await judge([
      {
        type: "report",
        step: 3,
        author: "agent",
        status: "blocked",
        label: "infeasible",
        blocker: "desk lamp not in the order",
        evidence: "order #W2378156 lists only a water bottle",
      },
    ]);
    expect(verdict.recognized).toBe(true);
  });

  it("rejects a feasible task and a mismatched trajectory", async () => {
    const feasible = retailFeasible();
    await expect(rulesJudge.judgeBlocked(feasible, trajectory(feasible, []))).rejects.toSatisfy((error) =>
      isHsearchError(error, "bad_input"),
    );
    await expect(
      rulesJudge.judgeBlocked(task, trajectory(retailBlocked({ id: "other" }), [])),
    ).rejects.toThrow(/judged against/);
  });
});

describe("createJudge", () => {
  it("builds rules and llm judges and rejects unknown specs", () => {
    expect(createJudge("rules", () => fail()).id).toBe("rules");
    const fake = { id: "openai:x", provider: "openai", generate: async () => fail() };
    expect(createJudge("llm:openai:x", () => fake).id).toBe("llm:openai:x");
    expect(() => createJudge("llm:", () => fake)).toThrow(/unknown judge/);
    expect(() => createJudge("regex", () => fake)).toThrow(/unknown judge/);
  });
});

function fail(): never {
  throw new Error("should not be called");
}
