import { describe, expect, it } from "vitest";
import type { BlockedEpisodeScore, EpisodeScore, FeasibleEpisodeScore } from "../../src/scoring";
import {
  decideGreater,
  keepOneAccepted,
  pairedStep,
  pairedTest,
  screenStep,
} from "../../src/search/acceptance";

function blocked(id: string, strict: boolean, repeat = 0): EpisodeScore {
  return {
    kind: "blocked",
    task_id: id,
    seed: 1,
    repeat,
    family: "trap",
    strict_sa: strict,
  } as unknown as BlockedEpisodeScore;
}
function feasible(id: string, solve: boolean, repeat = 0): EpisodeScore {
  return {
    kind: "feasible",
    task_id: id,
    seed: 1,
    repeat,
    family: null,
    solve,
  } as unknown as FeasibleEpisodeScore;
}

const DRAWS = { seed: 3, round: 1, proposal: 1, look: 0 };

describe("greater", () => {
  it("accepts the best proposal only if it beats the incumbent, lowest index on ties", () => {
    const p = (commit: string, proposal: number, score: number) => ({ commit, proposal, score, scores: [] });
    expect(decideGreater(0.5, [p("a", 1, 0.5), p("b", 2, 0.4)]).accepted).toBeNull();
    const decision = decideGreater(0.5, [p("a", 1, 0.6), p("b", 2, 0.6), p("c", 3, 0.55)]);
    expect(decision.accepted).toBe("a");
    expect(decision.verdicts.map((v) => v.verdict)).toEqual(["accepted", "rejected", "rejected"]);
    // A tie with the accepted proposal is named as a tie, not as "scored higher".
    expect(decision.verdicts[1]?.reason).toBe("0.6000 ties proposal 1, which wins ties (lower index)");
    expect(decision.verdicts[2]?.reason).toBe(
      "0.5500 beats the incumbent but proposal 1 scored higher (0.6000)",
    );
  });
});

describe("paired: one accepted proposal per round", () => {
  it("keeps the best of those that cleared, and names a tie as a tie", () => {
    const p = (commit: string, proposal: number, score: number) => ({ commit, proposal, score, scores: [] });
    const cleared = (commit: string) => ({
      commit,
      verdict: "accepted" as const,
      reason: "p = 0.0100 ≤ α = 0.05",
    });
    const decision = keepOneAccepted(
      [p("a", 1, 0.8125), p("b", 2, 0.8125), p("c", 3, 0.875), p("d", 4, 0.9)],
      [
        cleared("a"),
        cleared("b"),
        cleared("c"),
        { commit: "d", verdict: "rejected", reason: "p = 0.2000 > α = 0.05 (difference 0.0100)" },
      ],
    );
    expect(decision.accepted).toBe("c");
    expect(decision.verdicts.map((v) => v.verdict)).toEqual(["rejected", "rejected", "accepted", "rejected"]);
    expect(decision.verdicts[0]?.reason).toBe("p = 0.0100 ≤ α = 0.05, but proposal 3 scored higher (0.8750)");

    const tie = keepOneAccepted([p("a", 1, 0.8125), p("b", 2, 0.8125)], [cleared("a"), cleared("b")]);
    expect(tie.accepted).toBe("a");
    expect(tie.verdicts[1]?.reason).toBe(
      "p = 0.0100 ≤ α = 0.05, but ties proposal 1 (0.8125), which wins ties (lower index)",
    );
    expect(
      keepOneAccepted([p("a", 1, 0.5)], [{ commit: "a", verdict: "indecisive", reason: "close call" }]),
    ).toEqual({ accepted: null, verdicts: [{ commit: "a", verdict: "indecisive", reason: "close call" }] });
  });
});

describe("paired", () => {
  it("SA-only: a one-sided exact McNemar test on discordant blocked pairs", () => {
    // 9 gains, 1 loss: two-sided p = 22/1024, one-sided = 11/1024.
    const incumbent = Array.from({ length: 20 }, (_, i) => blocked(`t${i}`, i === 0 || i >= 10));
    const proposal = Array.from({ length: 20 }, (_, i) => blocked(`t${i}`, i !== 0));
    const test = pairedTest(incumbent, proposal, "sa-only", DRAWS);
    expect(test.n).toBe(20);
    expect(test.p_value).toBeCloseTo(11 / 1024, 10);
    expect(test.difference).toBeCloseTo(8 / 20);
    // The same data the other way round is no evidence for the proposal.
    expect(pairedTest(proposal, incumbent, "sa-only", DRAWS).p_value).toBe(1);
  });

  it("joint: feasible outcomes count, and the bootstrap is reproducible under a seed", () => {
    const incumbent = [
      ...Array.from({ length: 30 }, (_, i) => blocked(`b${i}`, i < 10)),
      ...Array.from({ length: 30 }, (_, i) => feasible(`f${i}`, true)),
    ];
    const proposal = [
      ...Array.from({ length: 30 }, (_, i) => blocked(`b${i}`, i < 20)),
      ...Array.from({ length: 30 }, (_, i) => feasible(`f${i}`, i !== 0)),
    ];
    const a = pairedTest(incumbent, proposal, "joint", DRAWS);
    expect(a).toEqual(pairedTest(incumbent, proposal, "joint", DRAWS));
    expect(a.difference).toBeCloseTo(9 / 60);
    expect(a.p_value).toBeLessThan(0.01);
    expect(pairedTest(incumbent, incumbent, "joint", DRAWS).p_value).toBe(1);
  });

  it("joint: each round, proposal and look draws its own bootstrap resamples from the run seed", () => {
    // A close call, so the Monte Carlo p-value shows which resamples were drawn.
    const incumbent = Array.from({ length: 40 }, (_, i) => blocked(`b${i}`, i < 20));
    const proposal = Array.from({ length: 40 }, (_, i) => blocked(`b${i}`, i < 17 || (i >= 20 && i < 26)));
    const p = (draws: Partial<typeof DRAWS>) =>
      pairedTest(incumbent, proposal, "joint", { ...DRAWS, ...draws }).p_value;
    const values = [p({}), p({ round: 2 }), p({ proposal: 2 }), p({ look: 1 })];
    expect(values[0]).toBeGreaterThan(0.05);
    expect(values[0]).toBeLessThan(0.5);
    expect(new Set(values).size).toBe(values.length);
    expect(p({ round: 2 })).toBe(values[1]);
    expect(p({ seed: 4 })).not.toBe(values[0]);
  });

  it("close calls earn extra repeats, then are indecisive; clear losses are rejected", () => {
    const test = (p: number, difference: number) => ({ p_value: p, difference, n: 10 });
    expect(pairedStep(test(0.05, 0.1), 0.1, 0, 2)).toBe("accepted");
    expect(pairedStep(test(0.2, 0.1), 0.1, 0, 2)).toBe("more");
    expect(pairedStep(test(0.2, 0.1), 0.1, 2, 2)).toBe("indecisive");
    expect(pairedStep(test(0.6, 0.1), 0.1, 0, 2)).toBe("rejected");
    expect(pairedStep(test(0.01, -0.1), 0.1, 0, 2)).toBe("rejected");
  });

  it("the screen can reject but never accept", () => {
    const steps = new Set<string>();
    for (let mine = 0; mine <= 1; mine += 0.05)
      for (let theirs = 0; theirs <= 1; theirs += 0.05) steps.add(screenStep(mine, theirs, 0.1));
    expect([...steps].sort()).toEqual(["continue", "reject"]);
    expect(screenStep(0.9, 0.2, 0.1)).toBe("continue");
    expect(screenStep(0.2, 0.9, 0.1)).toBe("reject");
  });
});
