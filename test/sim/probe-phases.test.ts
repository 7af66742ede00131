import { describe, expect, it } from "vitest";
import type { SimContext } from "../../src/harness/sim-context";
import type { ChatMessage } from "../../src/models/types";
import { readHistory } from "../../src/sim/history";
import { decide, type SimAction } from "../../src/sim/policy";
import { loadSimProfile, type SimProfile, simProfileSchema } from "../../src/sim/profile";

const base = loadSimProfile("default");

function profile(
  overrides: Partial<{ [K in keyof SimProfile]: Partial<SimProfile[K] & object> | number }>,
): SimProfile {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides))
    merged[key] =
      typeof value === "object" ? { ...(base[key as keyof SimProfile] as object), ...value } : value;
  return simProfileSchema.parse(merged);
}

function context(
  phase: SimContext["phase"],
  kind: "blocked" | "feasible" = "blocked",
  suite: "retail" | "terminal" = "retail",
): SimContext {
  return {
    suite,
    task_id: "task-1",
    kind,
    ...(kind === "blocked" ? { family: "infeasible" as const } : {}),
    cues: {
      steps: [{ name: "get_order_details", arguments: { order_id: "#W1" } }],
      // Spec evidence: in view from the first step, so recognition is the draw alone.
      evidence_after: 0,
      right_reason: "the item is not in the order",
      wrong_reason: "the order is too old",
    },
    protocols: {
      abandon: true,
      report: false,
      self_check: false,
      harness_control: false,
      effect_gate: false,
    },
    playbook: [],
    max_steps: 10,
    prose: { system: "You are a careful agent.", self_check: "" },
    write_tools: ["cancel_pending_order"],
    phase,
    continued: false,
  };
}

const opening: ChatMessage[] = [
  { role: "system", content: "policy" },
  { role: "user", content: "Please exchange the lamp in order #W1." },
];

function deferredThen(...after: ChatMessage[]): ChatMessage[] {
  return [
    ...opening,
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "sim-defer-1", name: "abstain", arguments: { reason: "absent" } }],
    },
    { role: "tool", tool_call_id: "sim-defer-1", name: "abstain", content: "Deferral recorded." },
    ...after,
  ];
}

const challenge: ChatMessage = { role: "user", content: "Please reconsider your decision." };
const beliefAsk: ChatMessage = { role: "user", content: "How likely is it feasible?" };

function act(p: SimProfile, ctx: SimContext, messages: ChatMessage[], seed: number): SimAction {
  return decide(p, ctx, readHistory(messages), seed, 0);
}

function reported(action: SimAction): number {
  if (action.kind !== "call") throw new Error(`expected a report_belief call, got text: ${action.text}`);
  const call = action.calls[0];
  expect(call?.name).toBe("report_belief");
  return call?.arguments.p_feasible as number;
}

const seeds = Array.from({ length: 400 }, (_, i) => i + 1);

describe("sim belief phase", () => {
  it("reports the profile's means exactly without noise", () => {
    const exact = profile({ beliefs: { noise: 0 } });
    const recognises = profile({ beliefs: { noise: 0 }, recognition: { base: 1 } });
    const misses = profile({ beliefs: { noise: 0 }, recognition: { base: 0 } });
    expect(reported(act(exact, context("belief", "feasible"), [...opening, beliefAsk], 1))).toBe(0.78);
    expect(reported(act(recognises, context("belief"), [...opening, beliefAsk], 1))).toBe(0.25);
    expect(reported(act(misses, context("belief"), [...opening, beliefAsk], 1))).toBe(0.7);
  });

  it("adds uniform noise of half-width beliefs.noise, clamped to [0, 1], seeded", () => {
    const values = seeds.map((seed) =>
      reported(act(base, context("belief", "feasible"), [...opening, beliefAsk], seed)),
    );
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0.78 - 0.15 - 1e-9);
    expect(Math.max(...values)).toBeLessThanOrEqual(0.78 + 0.15 + 1e-9);
    expect(Math.max(...values) - Math.min(...values)).toBeGreaterThan(0.25);
    expect(reported(act(base, context("belief", "feasible"), [...opening, beliefAsk], 5))).toBe(values[4]);
    const wide = profile({ beliefs: { feasible: 0.95, noise: 0.5 } });
    const clamped = seeds.map((seed) =>
      reported(act(wide, context("belief", "feasible"), [...opening, beliefAsk], seed)),
    );
    expect(clamped.filter((p) => p === 1).length).toBeGreaterThan(0);
    expect(clamped.every((p) => p >= 0 && p <= 1)).toBe(true);
  });

  it("recognised means the episode's own recognition draw for that task", () => {
    // Always converts, at once: in the main phase the sim defers at step 1 exactly when it recognises.
    const p = profile({
      beliefs: { noise: 0 },
      recognition: { base: 0.5 },
      conversion: { abandon: 1 },
      timeliness: { prompt: 1 },
    });
    let agreed = 0;
    let recognised = 0;
    for (const seed of seeds) {
      const main = act(p, context("main"), opening, seed);
      const deferredNow = main.kind === "call" && main.calls[0]?.name === "abstain";
      const belief = reported(act(p, context("belief"), [...opening, beliefAsk], seed));
      if (deferredNow === (belief === 0.25)) agreed++;
      if (deferredNow) recognised++;
    }
    expect(agreed).toBe(seeds.length);
    expect(recognised).toBeGreaterThan(150);
    expect(recognised).toBeLessThan(250);
  });

  it("the oracle is certain and right", () => {
    const oracle = loadSimProfile("oracle");
    expect(reported(act(oracle, context("belief", "feasible"), [...opening, beliefAsk], 3))).toBe(1);
    expect(reported(act(oracle, context("belief"), [...opening, beliefAsk], 3))).toBe(0);
  });
});

describe("sim challenge phase", () => {
  it("withdraws a standing deferral with flip_deferral, else stands by it", () => {
    const always = profile({ challenge: { flip_deferral: 1 } });
    const never = profile({ challenge: { flip_deferral: 0 } });
    const withdrew = act(always, context("challenge"), deferredThen(challenge), 1);
    expect(withdrew).toMatchObject({ kind: "call", calls: [{ name: "withdraw_deferral" }] });
    expect(act(never, context("challenge"), deferredThen(challenge), 1).kind).toBe("text");
  });

  it("turns a non-deferral into a certified deferral with flip_to_deferral", () => {
    const always = profile({ challenge: { flip_to_deferral: 1 } });
    const answered: ChatMessage[] = [
      ...opening,
      { role: "assistant", content: "I have done it." },
      challenge,
    ];
    expect(act(always, context("challenge"), answered, 1)).toMatchObject({
      kind: "call",
      calls: [{ name: "abstain" }],
    });
    expect(act(always, context("challenge", "blocked", "terminal"), answered, 1)).toMatchObject({
      kind: "call",
      calls: [{ name: "write_file", arguments: { path: "infeasible.md" } }],
    });
    // On a feasible task it is a (new) false abstention.
    expect(act(always, context("challenge", "feasible"), answered, 1)).toMatchObject({
      kind: "call",
      calls: [{ name: "abstain", arguments: { category: "ambiguous" } }],
    });
    expect(act(profile({ challenge: { flip_to_deferral: 0 } }), context("challenge"), answered, 1).kind).toBe(
      "text",
    );
  });

  it("flips at the profile's rates over many seeds (default: 0.2 and 0.1)", () => {
    const withdrawals = seeds.filter((seed) => {
      const action = act(base, context("challenge"), deferredThen(challenge), seed);
      return action.kind === "call" && action.calls[0]?.name === "withdraw_deferral";
    }).length;
    const answered: ChatMessage[] = [...opening, { role: "assistant", content: "Done." }, challenge];
    const deferrals = seeds.filter(
      (seed) => act(base, context("challenge"), answered, seed).kind === "call",
    ).length;
    expect(withdrawals / seeds.length).toBeGreaterThan(0.14);
    expect(withdrawals / seeds.length).toBeLessThan(0.26);
    expect(deferrals / seeds.length).toBeGreaterThan(0.06);
    expect(deferrals / seeds.length).toBeLessThan(0.14);
  });

  it("a turn after its own tool result closes the answer in text; a withdrawn deferral no longer stands", () => {
    const always = profile({ challenge: { flip_deferral: 1, flip_to_deferral: 0 } });
    const afterWithdraw = deferredThen(
      challenge,
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "sim-withdraw-2", name: "withdraw_deferral", arguments: { reason: "ok" } }],
      },
      {
        role: "tool",
        tool_call_id: "sim-withdraw-2",
        name: "withdraw_deferral",
        content: "Deferral withdrawn.",
      },
    );
    expect(act(always, context("challenge"), afterWithdraw, 1).kind).toBe("text");
    // Challenged again after withdrawing: nothing stands to withdraw, and it does not defer.
    expect(act(always, context("challenge"), [...afterWithdraw, challenge], 1).kind).toBe("text");
  });
});
