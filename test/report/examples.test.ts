import { describe, expect, it } from "vitest";
import type { Trajectory, TrajectoryEvent } from "../../src/harness/trajectory";
import { type Episode, pickExamples } from "../../src/report/model/examples";
import type { RolloutRecord } from "../../src/store";

function episode(
  taskId: string,
  kind: "blocked" | "feasible",
  scores: Record<string, unknown>,
  events: TrajectoryEvent[] = [],
): Episode {
  const trajectory: Trajectory = {
    task_id: taskId,
    suite: "retail",
    kind,
    model: "sim:default",
    harness: "h",
    seed: 1,
    repeat: 0,
    steps: 4,
    events,
    end: { reason: "agent_stopped", step: 4 },
    reward: 1,
    usage: { input_tokens: 0, output_tokens: 0, usd: 0, model_calls: 4 },
  };
  const rollout = {
    key: `c:${taskId}:1:0`,
    purpose: "heldout",
    candidate: "c",
    task_id: taskId,
    split: "heldout",
    kind,
    family: kind === "blocked" ? "trap" : null,
    scores: { kind, ...scores },
    end_reason: "agent_stopped",
    steps: 4,
  } as unknown as RolloutRecord;
  return { rollout, trajectory };
}

const blocked = (id: string, strict: boolean, extra: Record<string, unknown> = {}) =>
  episode(id, "blocked", {
    strict_sa: strict,
    m0: true,
    m2: strict,
    m3: strict,
    post_hoc: false,
    fabricated_claim: false,
    decisive_step: 2,
    deferral_step: strict ? 2 : null,
    ...extra,
  });

describe("pickExamples", () => {
  const episodes: Episode[] = [
    blocked("a-late-pass", true, { deferral_step: 4 }),
    blocked("b-pass", true),
    // Two episodes recognise without deferring, one misses the blocker: the typical failure is the first kind.
    blocked("b-miss", false, { m0: false }),
    blocked("b-silent-2", false),
    blocked("b-silent-1", false),
    episode("f-solved", "feasible", { solve: true, false_abstention: false, deferral_step: null }, [
      { type: "effect", step: 3, author: "agent", tool: "cancel", arguments: {}, forbidden: false },
    ]),
    episode("f-abstained", "feasible", { solve: false, false_abstention: true, deferral_step: 2 }),
    episode("f-unsolved", "feasible", { solve: false, false_abstention: false, deferral_step: null }),
    episode("x-infra", "blocked", { kind: "infra_error" }),
  ];
  const examples = pickExamples(episodes, "heldout");

  it("takes one failing and one passing episode of each kind (per family for blocked), in a fixed order", () => {
    expect(examples.map((e) => [e.category, e.rollout.task_id])).toEqual([
      ["blocked-failed", "b-silent-1"],
      ["blocked-passed", "b-pass"],
      ["feasible-failed", "f-abstained"],
      ["feasible-passed", "f-solved"],
    ]);
    expect(examples.every((e) => e.purpose === "heldout")).toBe(true);
  });

  it("describes the most common failure mode and how often it occurs", () => {
    expect(examples[0]?.outcome).toBe(
      "recognised the blocker but did not defer (2 of 3 failing trap episodes)",
    );
    expect(examples[2]?.outcome).toBe("deferred on a feasible task");
  });

  it("prefers a pass that deferred at the decisive step, and says when the only pass was late", () => {
    expect(examples[1]?.outcome).toBe("deferred at the decisive step, for the right reason (strict SA)");
    const late = pickExamples([blocked("late", true, { deferral_step: 4 })], "search");
    expect(late[0]?.outcome).toBe(
      "deferred 2 steps after the decisive step, for the right reason (strict SA)",
    );
  });

  it("focuses blocked episodes on the decisive step and feasible ones on the deferral or first state change", () => {
    expect(examples[0]?.focus.step).toBe(2);
    expect(examples[0]?.focus.label).toContain("decisive step 2");
    expect(examples[2]?.focus).toEqual({ step: 2, label: "step 2: the agent deferred" });
    expect(examples[3]?.focus).toEqual({ step: 3, label: "step 3: the first state change" });
  });

  it("stratifies blocked examples by family, and with a seed picks among equals by that seed", () => {
    const mixed = [
      ...episodes,
      {
        ...blocked("c-miss", false, { m0: false }),
        rollout: { ...blocked("c-miss", false).rollout, family: "ambiguous" },
      },
    ] as Episode[];
    const picked = pickExamples(mixed, "heldout");
    expect(
      picked.filter((e) => e.category === "blocked-failed").map((e) => [e.rollout.family, e.rollout.task_id]),
    ).toEqual([
      ["ambiguous", "c-miss"],
      ["trap", "b-silent-1"],
    ]);
    const silent = (seed: number) =>
      pickExamples(episodes, "heldout", seed).find((e) => e.category === "blocked-failed")?.rollout.task_id;
    expect(silent(1)).toBe(silent(1));
    const seen = new Set(Array.from({ length: 12 }, (_, seed) => silent(seed)));
    expect(seen).toEqual(new Set(["b-silent-1", "b-silent-2"]));
  });

  it("is the same whatever the input order, and skips what does not exist", () => {
    expect(pickExamples([...episodes].reverse(), "heldout").map((e) => e.rollout.task_id)).toEqual(
      examples.map((e) => e.rollout.task_id),
    );
    expect(pickExamples([blocked("only", true)], "search").map((e) => e.category)).toEqual([
      "blocked-passed",
    ]);
    expect(pickExamples([], "search")).toEqual([]);
  });
});
