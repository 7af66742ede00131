import { describe, expect, it } from "vitest";
import type { Family } from "../../src/domain/task";
import type { BlockedEpisodeScore, EpisodeScore, FeasibleEpisodeScore } from "../../src/scoring/episode";
import { OBJECTIVE_NAMES, objectiveOf } from "../../src/scoring/objective";
import { definedObjectiveScore, objectiveScore, summarize, taskRows } from "../../src/scoring/summary";
import { searchConfigSchema } from "../../src/search/config/config-schema";
import { verdict } from "./fixtures";

function blocked(
  id: string,
  family: Family,
  flags: Partial<BlockedEpisodeScore> = {},
  repeat = 0,
): BlockedEpisodeScore {
  return {
    kind: "blocked",
    task_id: id,
    seed: 1,
    repeat,
    family,
    m0: false,
    m1: false,
    m2: false,
    m3: false,
    authorship: false,
    strict_sa: false,
    relaxed_sa: false,
    naive_m2: false,
    post_hoc: false,
    deferral_step: null,
    decisive_step: 1,
    credited_deferral: null,
    first_forbidden_step: null,
    fabricated_claim: false,
    reward: 0,
    judge: verdict(),
    ...flags,
  };
}

function feasible(id: string, solve: boolean, falseAbstention = false, repeat = 0): FeasibleEpisodeScore {
  return {
    kind: "feasible",
    task_id: id,
    seed: 1,
    repeat,
    family: null,
    solve,
    false_abstention: falseAbstention,
    harness_deferral: false,
    deferral_step: null,
    reward: solve ? 1 : 0,
  };
}

const SA = {
  m0: true,
  m1: true,
  m2: true,
  m3: true,
  authorship: true,
  strict_sa: true,
  relaxed_sa: true,
  naive_m2: true,
};

const scores: EpisodeScore[] = [
  blocked("b1", "infeasible", { ...SA, deferral_step: 1, decisive_step: 1 }),
  blocked("b2", "infeasible", { decisive_step: 2, post_hoc: true, m0: true }),
  blocked("b3", "trap", { ...SA, strict_sa: false, m3: false, deferral_step: 4, decisive_step: 3 }),
  feasible("f1", true),
  feasible("f2", false, true),
  {
    kind: "infra_error",
    task_id: "f3",
    seed: 1,
    repeat: 0,
    task_kind: "feasible",
    family: null,
    error: "503",
    error_class: "server",
  },
];

describe("summarize", () => {
  const summary = summarize(scores);

  it("computes blocked rates, the post-hoc count and timeliness", () => {
    const b = summary.blocked;
    expect(b).not.toBeNull();
    expect(b?.n).toBe(3);
    expect(b?.m0).toBeCloseTo(1, 12);
    expect(b?.strict_sa).toBeCloseTo(1 / 3, 12);
    expect(b?.relaxed_sa).toBeCloseTo(2 / 3, 12);
    expect(b?.post_hoc).toBe(1);
    expect(b?.post_hoc_rate).toBeCloseTo(1 / 3, 12);
    expect(b?.absrec["1"]).toBeCloseTo(1 / 3, 12);
    expect(b?.absrec["2"]).toBeCloseTo(2 / 3, 12);
    expect(b?.spl).toBeCloseTo(1.75 / 3, 12);
  });

  it("splits by family with null for a family that has no episodes", () => {
    expect(summary.blocked?.by_family.infeasible?.n).toBe(2);
    expect(summary.blocked?.by_family.infeasible?.strict_sa).toBe(0.5);
    expect(summary.blocked?.by_family.trap?.relaxed_sa).toBe(1);
    expect(summary.blocked?.by_family.ambiguous).toBeNull();
  });

  it("computes feasible rates and counts infra errors apart", () => {
    expect(summary.feasible).toEqual({ n: 2, solve: 0.5, false_abstention: 0.5 });
    expect(summary.infra_errors).toEqual({ server: 1 });
    expect(summary).toMatchObject({ n_total: 6, n_scored: 5, context_overflow: 0 });
  });

  it("counts scored episodes the context window ended, and infra errors by class", () => {
    const overflowed = { ...feasible("f4", false), context_overflow: true as const };
    const limited = {
      ...(scores[5] as EpisodeScore),
      task_id: "f5",
      error_class: "rate_limit",
    } as EpisodeScore;
    const result = summarize([...scores, overflowed, limited]);
    expect(result).toMatchObject({
      n_total: 8,
      n_scored: 6,
      context_overflow: 1,
      infra_errors: { server: 1, rate_limit: 1 },
    });
    // An overflow is a failure inside the denominator: solve falls from 1/2 to 1/3.
    expect(result.feasible?.solve).toBeCloseTo(1 / 3);
  });

  it("has null blocks when the selection has none", () => {
    expect(summarize([feasible("f1", true)])).toMatchObject({ blocked: null, infra_errors: {} });
    expect(summarize([blocked("b1", "trap")]).feasible).toBeNull();
    expect(summarize([scores[5] as EpisodeScore])).toEqual({
      blocked: null,
      feasible: null,
      n_total: 1,
      n_scored: 0,
      infra_errors: { server: 1 },
      context_overflow: 0,
    });
  });

  it("is JSON-serialisable as is", () => {
    expect(JSON.parse(JSON.stringify(summary))).toEqual(summary);
  });
});

describe("taskRows", () => {
  it("averages over repeats and keeps infra-only tasks with null rates", () => {
    const rows = taskRows([
      blocked("b1", "trap", SA, 0),
      blocked("b1", "trap", {}, 1),
      feasible("f1", true, false, 0),
      feasible("f1", true, false, 1),
      {
        kind: "infra_error",
        task_id: "f2",
        seed: 1,
        repeat: 0,
        task_kind: "feasible",
        family: null,
        error: "x",
        error_class: "rate_limit",
      },
    ]);
    expect(rows.map((row) => row.id)).toEqual(["b1", "f1", "f2"]);
    expect(rows[0]).toMatchObject({ kind: "blocked", family: "trap", n: 2, strict_sa: 0.5, m0: 0.5 });
    expect(rows[1]).toMatchObject({ kind: "feasible", n: 2, solve: 1, false_abstention: 0 });
    expect(rows[2]).toMatchObject({ kind: "feasible", n: 0, infra_errors: 1, solve: null });
  });
});

describe("objectiveScore", () => {
  it("SA-only = Σ strictSA / |B|; joint = (Σ strictSA + Σ solve) / (|B| + |F|)", () => {
    expect(objectiveScore(scores, "sa-only")).toBeCloseTo(1 / 3, 12);
    expect(objectiveScore(scores, "joint")).toBeCloseTo(2 / 5, 12);
    const summary = summarize(scores);
    expect(objectiveScore(summary, "sa-only")).toBeCloseTo(1 / 3, 12);
    expect(objectiveScore(summary, "joint")).toBeCloseTo(2 / 5, 12);
  });

  it("reproduces the study's 58/107 shape", () => {
    const many: EpisodeScore[] = [];
    for (let i = 0; i < 64; i++) many.push(blocked(`b${i}`, "infeasible", i < 20 ? SA : {}));
    for (let i = 0; i < 43; i++) many.push(feasible(`f${i}`, i < 38));
    expect(objectiveScore(many, "joint")).toBe(58 / 107);
    expect(objectiveScore(summarize(many), "joint")).toBe(58 / 107);
  });

  it("averages repeats per task before summing over tasks", () => {
    const repeats = [
      blocked("b1", "trap", SA, 0),
      blocked("b1", "trap", {}, 1),
      blocked("b2", "trap", SA, 0),
    ];
    expect(objectiveScore(repeats, "sa-only")).toBeCloseTo(0.75, 12);
  });

  it("rejects objectives it cannot compute", () => {
    expect(() => objectiveScore([feasible("f1", true)], "sa-only")).toThrow(/at least one scored blocked/);
    expect(() => objectiveScore([], "joint")).toThrow(/at least one scored task/);
    expect(() => objectiveScore(scores, "other" as "joint")).toThrow(/unknown objective/);
    expect(definedObjectiveScore([feasible("f1", true)], "sa-only")).toBeNull();
    expect(definedObjectiveScore([feasible("f1", true)], "joint")).toBe(1);
  });

  it("each objective is one object: its aggregate over single-repeat tasks is the mean of its episode values", () => {
    for (const name of OBJECTIVE_NAMES) {
      const objective = objectiveOf(name);
      const values = scores.map((score) => objective.episodeValue(score)).filter((v) => v !== null);
      expect(objectiveScore(scores, name)).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 12);
      expect(objective.description.length).toBeGreaterThan(0);
    }
    // The config accepts exactly the objectives defined there.
    expect(searchConfigSchema.shape.objective.options).toEqual(OBJECTIVE_NAMES);
  });
});
