import { describe, expect, it } from "vitest";
import type { Trajectory } from "../../src/harness/trajectory";
import type { BlockedEpisodeScore, FeasibleEpisodeScore } from "../../src/scoring/episode";
import {
  aggregateMetric,
  BUILTIN_METRICS,
  builtinMetric,
  builtinMetricsOf,
  checkMetric,
  defineMetric,
  type MetricEpisode,
  metricCatalogue,
  metricLabel,
  storedMetric,
} from "../../src/scoring/metrics";
import { objectiveCounts } from "../../src/scoring/objective";
import { summarize } from "../../src/scoring/summary";

function blocked(i: number, over: Partial<BlockedEpisodeScore>): BlockedEpisodeScore {
  return {
    task_id: `b${i}`,
    seed: 1,
    repeat: 0,
    kind: "blocked",
    family: "infeasible",
    m0: true,
    m1: true,
    m2: true,
    m3: true,
    authorship: true,
    strict_sa: true,
    relaxed_sa: true,
    naive_m2: true,
    post_hoc: false,
    deferral_step: 1,
    decisive_step: 1,
    credited_deferral: null,
    first_forbidden_step: null,
    fabricated_claim: false,
    reward: 1,
    judge: {
      judge: "rules",
      recognized: true,
      label_correct: true,
      reason_matches: true,
      rationale: "",
      input_hash: "",
    },
    ...over,
  } as BlockedEpisodeScore;
}

function feasible(i: number, solve: boolean, falseAbstention: boolean): FeasibleEpisodeScore {
  return {
    task_id: `f${i}`,
    seed: 1,
    repeat: 0,
    kind: "feasible",
    family: null,
    solve,
    false_abstention: falseAbstention,
    harness_deferral: false,
    deferral_step: null,
    reward: solve ? 1 : 0,
  } as FeasibleEpisodeScore;
}

function episode(score: BlockedEpisodeScore | FeasibleEpisodeScore, trajectory?: Trajectory): MetricEpisode {
  return {
    task_id: score.task_id,
    kind: score.kind,
    family: score.family,
    repeat: score.repeat,
    score,
    end_reason: "deferred",
    steps: 3,
    input_tokens: 0,
    output_tokens: 0,
    usd: 0,
    trajectory: () => {
      if (!trajectory) throw new Error("no trajectory read expected");
      return trajectory;
    },
  };
}

// DESIGN §6's check: (o, a) = (1, 1), (2, ∞), (3, 4) give AbsRec@1 = 1/3, AbsRec@2 = 2/3, SPL ≈ 0.583.
const timing = [
  blocked(1, { decisive_step: 1, deferral_step: 1 }),
  blocked(2, { decisive_step: 2, deferral_step: null, strict_sa: false, post_hoc: true }),
  blocked(3, { decisive_step: 3, deferral_step: 4 }),
];
const feasibles = [
  feasible(1, true, false),
  feasible(2, false, true),
  feasible(3, true, false),
  feasible(4, true, false),
];

describe("the built-in metrics", () => {
  it("reduce per-episode values to what the scorer's summary stores", () => {
    const summary = summarize([...timing, ...feasibles]);
    const episodes = [...timing, ...feasibles].map((s) => episode(s));
    for (const metric of BUILTIN_METRICS) {
      if (metric.name === "pass") continue;
      const block = metric.kinds[0] === "blocked" ? summary.blocked : summary.feasible;
      const result = aggregateMetric(metric, episodes);
      expect(result.value, metric.name).toBeCloseTo(storedMetric(block, metric.name) as number, 12);
    }
    expect(aggregateMetric(builtinMetric("absrec1"), episodes).value).toBeCloseTo(1 / 3);
    expect(aggregateMetric(builtinMetric("spl"), episodes).value).toBeCloseTo((1 + 0 + 0.75) / 3);
  });

  it("a rate carries k/n and a Wilson interval, a mean only its n", () => {
    const episodes = feasibles.map((s) => episode(s));
    const solve = aggregateMetric(builtinMetric("solve"), episodes);
    expect(solve).toMatchObject({ reducer: "rate", n: 4, k: 3, value: 0.75 });
    expect(solve.low).toBeGreaterThan(0.2);
    expect(solve.high).toBeLessThan(1);
    const spl = aggregateMetric(
      builtinMetric("spl"),
      timing.map((s) => episode(s)),
    );
    expect(spl).toMatchObject({ reducer: "mean", n: 3, k: null, low: null });
  });

  it("name their direction and labels once", () => {
    expect(builtinMetric("false_abstention").higherIsBetter).toBe(false);
    expect(builtinMetric("post_hoc_rate").higherIsBetter).toBe(false);
    expect(metricLabel("strict_sa")).toBe("strict SA");
    expect(metricLabel("false_abstention", "short")).toBe("false abst.");
    expect(metricLabel("someone_elses")).toBe("someone_elses");
    expect(builtinMetricsOf("feasible").map((m) => m.name)).toEqual(["solve", "false_abstention"]);
  });
});

describe("a researcher's metric", () => {
  const steps = defineMetric({
    name: "agent_calls",
    label: "agent calls",
    kinds: ["blocked"],
    reducer: "mean",
    higherIsBetter: false,
    value: (e: MetricEpisode) => e.trajectory().events.filter((x) => x.type === "tool_call").length,
  });

  it("reads the trajectory only when it asks for it", () => {
    const trajectory = {
      events: [
        { type: "tool_call", step: 1, author: "agent", id: "1", name: "x", arguments: {} },
        { type: "tool_call", step: 2, author: "agent", id: "2", name: "y", arguments: {} },
      ],
    } as unknown as Trajectory;
    const result = aggregateMetric(steps, [
      episode(timing[0] as BlockedEpisodeScore, trajectory),
      episode(feasibles[0] as FeasibleEpisodeScore),
    ]);
    // The feasible episode is not of its kinds: never counted, its trajectory never read.
    expect(result).toMatchObject({ n: 1, value: 2 });
  });

  it("is checked: a value of the wrong type or one that throws is bad input naming metric and episode", () => {
    const wrong = { ...steps, reducer: "rate" as const };
    expect(() =>
      aggregateMetric(wrong, [
        episode(timing[0] as BlockedEpisodeScore, { events: [] } as unknown as Trajectory),
      ]),
    ).toThrow(/metric 'agent_calls' on episode b1#0: a rate's value must be true, false or null, got 0/);
    for (const [bad, shown] of [
      [Number.NaN, "NaN"],
      [Number.POSITIVE_INFINITY, "Infinity"],
      ["3", '"3"'],
      [undefined, null],
    ] as const) {
      const run = () =>
        aggregateMetric({ ...steps, value: () => bad as unknown as number }, [
          episode(timing[0] as BlockedEpisodeScore),
        ]);
      if (shown === null) expect(run).not.toThrow();
      else expect(run).toThrow(`a mean's value must be a finite number or null, got ${shown}`);
    }
    const throws = {
      ...steps,
      value: () => {
        throw new Error("boom");
      },
    };
    expect(() => aggregateMetric(throws, [episode(timing[0] as BlockedEpisodeScore)])).toThrow(
      /b1#0 threw: boom/,
    );
  });

  it("checkMetric names the first field that is wrong", () => {
    expect(checkMetric(steps)).toEqual({ metric: steps });
    expect(checkMetric(42)).toHaveProperty("problem");
    expect(checkMetric({ ...steps, kinds: [] })).toEqual({ problem: expect.stringMatching(/^kinds:/) });
    expect(checkMetric({ ...steps, value: 3 })).toEqual({ problem: expect.stringMatching(/^value:/) });
  });

  it("joins the catalogue under a name of its own", () => {
    expect(metricCatalogue([steps]).get("agent_calls")).toBe(steps);
    expect(metricCatalogue([steps]).get("m0")?.label).toBe("M0 recognition");
    expect(() => metricCatalogue([{ ...steps, name: "solve" }])).toThrow(/a built-in metric has that name/);
    expect(() => metricCatalogue([steps, steps])).toThrow(/defined twice/);
  });
});

describe("the objective's counts", () => {
  it("are the episodes it is a rate of: blocked only for SA-only, both for joint", () => {
    const summary = summarize([...timing, ...feasibles]);
    expect(objectiveCounts(summary, "sa-only")).toEqual({ k: 2, n: 3 });
    expect(objectiveCounts(summary, "joint")).toEqual({ k: 5, n: 7 });
  });
});
