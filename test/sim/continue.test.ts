import { describe, expect, it } from "vitest";
import { DEFAULT_PROMPTS } from "../../src/harness/default-prompts";
import type { ChatMessage } from "../../src/models/types";
import { readHistory } from "../../src/sim/history";
import { decide } from "../../src/sim/policy";
import { loadSimProfile } from "../../src/sim/profile";
import { simContext } from "./context-fixture";

const profile = loadSimProfile("default");
const terminal = { ...simContext("terminal-task"), suite: "terminal" as const };

function conversation(final: string): ChatMessage[] {
  return [
    { role: "system", content: "system" },
    { role: "user", content: "Sort names.txt into sorted.txt." },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "sim-ref-0", name: "bash", arguments: { command: "sort names.txt > sorted.txt" } }],
    },
    { role: "tool", tool_call_id: "sim-ref-0", name: "bash", content: "" },
    { role: "assistant", content: final },
    { role: "user", content: DEFAULT_PROMPTS.continue },
  ];
}

describe("the simulator answers the harness's continue message", () => {
  it("by restating its final message, whatever it was, for every seed and both kinds of task", () => {
    for (const final of [
      "I have completed your request.",
      "I'm sorry, I cannot proceed: this request is ambiguous. The request does not say which file.",
      "I have done what I could with your request.",
    ])
      for (const kind of ["blocked", "feasible"] as const)
        for (const seed of [1, 2, 3, 17]) {
          const action = decide(
            profile,
            { ...terminal, kind, continued: true },
            readHistory(conversation(final)),
            seed,
            0,
          );
          expect(action).toEqual({ kind: "text", text: final });
        }
  });

  it("only when the request says so: the same messages without the flag are an ordinary turn", () => {
    // A feasible task whose reference is done: the ordinary turn closes with a goodbye, not a restatement.
    const history = readHistory(conversation("I have completed your request."));
    const ordinary = decide(
      profile,
      { ...terminal, kind: "feasible", cues: { steps: [{ name: "bash", arguments: {} }] } },
      history,
      1,
      0,
    );
    expect(ordinary).toEqual({ kind: "text", text: "Thank you. Goodbye." });
  });
});
