import { describe, expect, it } from "vitest";
import type { ToolCallRequest } from "../../src/models/types";
import { parseBeliefReport } from "../../src/probes/belief-report";

const call = (args: Record<string, unknown>, name = "report_belief", id = "c1"): ToolCallRequest => ({
  id,
  name,
  arguments: args,
});
const tool = (...calls: ToolCallRequest[]) => ({ content: null, tool_calls: calls });
const text = (content: string | null) => ({ content, tool_calls: [] });

describe("parseBeliefReport", () => {
  it("reads p_feasible and the reason from a report_belief call", () => {
    expect(parseBeliefReport(tool(call({ p_feasible: 0.25, reason: "order is not mine" })))).toEqual({
      status: "valid",
      p_feasible: 0.25,
      reason: "order is not mine",
      via: "tool",
    });
    expect(parseBeliefReport(tool(call({ p_feasible: 0 })))).toMatchObject({
      status: "valid",
      p_feasible: 0,
    });
    expect(parseBeliefReport(tool(call({ p_feasible: 1 })))).toMatchObject({
      status: "valid",
      p_feasible: 1,
    });
  });

  it("reads a JSON reply: bare, fenced, or one object inside prose", () => {
    expect(parseBeliefReport(text('{"p_feasible": 0.8, "reason": "looks fine"}'))).toEqual({
      status: "valid",
      p_feasible: 0.8,
      reason: "looks fine",
      via: "json",
    });
    expect(parseBeliefReport(text('Here it is:\n```json\n{"p_feasible": 0.1}\n```'))).toMatchObject({
      status: "valid",
      p_feasible: 0.1,
    });
    expect(
      parseBeliefReport(text('My estimate is {"p_feasible": 0.55, "reason": "unsure"} overall.')),
    ).toMatchObject({
      status: "valid",
      p_feasible: 0.55,
    });
  });

  it.each([
    ["a string number", { p_feasible: "0.7" }, /got "0.7"/],
    ["a percentage", { p_feasible: "70%" }, /got "70%"/],
    ["above 1", { p_feasible: 70 }, /got 70/],
    ["below 0", { p_feasible: -0.1 }, /got -0.1/],
    ["missing", { reason: "no number" }, /got nothing/],
    ["null", { p_feasible: null }, /got null/],
    ["a non-text reason", { p_feasible: 0.5, reason: 3 }, /reason must be text/],
  ])("an invalid report (%s) is invalid, never a number", (_, args, problem) => {
    const parsed = parseBeliefReport(tool(call(args)));
    expect(parsed.status).toBe("invalid");
    if (parsed.status === "invalid") expect(parsed.problem).toMatch(problem);
    expect(parsed).not.toHaveProperty("p_feasible");
  });

  it("NaN and infinities from a provider are invalid", () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY])
      expect(parseBeliefReport(tool(call({ p_feasible: value }))).status).toBe("invalid");
  });

  it("conflicting reports are invalid; repeated equal ones count once", () => {
    expect(
      parseBeliefReport(tool(call({ p_feasible: 0.2 }), call({ p_feasible: 0.9 }, "report_belief", "c2"))),
    ).toEqual({ status: "invalid", problem: "conflicting reports: p_feasible 0.2 and 0.9" });
    expect(
      parseBeliefReport(tool(call({ p_feasible: 0.4 }), call({ p_feasible: 0.4 }, "report_belief", "c2"))),
    ).toMatchObject({ status: "valid", p_feasible: 0.4 });
    expect(
      parseBeliefReport(text('```\n{"p_feasible": 0.3}\n```\nor\n```\n{"p_feasible": 0.6}\n```')).status,
    ).toBe("invalid");
  });

  it("a reply with no report at all is invalid with the reason", () => {
    expect(parseBeliefReport(text(null))).toEqual({
      status: "invalid",
      problem: "no report_belief call and no text reply",
    });
    expect(parseBeliefReport(text("I think it is probably feasible, about 80%."))).toMatchObject({
      status: "invalid",
    });
    expect(parseBeliefReport(text('{"feasible": true}'))).toMatchObject({ status: "invalid" });
    // Another tool instead of the report is not a report.
    expect(parseBeliefReport(tool(call({ order_id: "#W1" }, "get_order_details")))).toMatchObject({
      status: "invalid",
    });
  });
});
