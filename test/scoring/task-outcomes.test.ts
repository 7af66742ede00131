import { describe, expect, it } from "vitest";
import {
  countedEpisodes,
  type EpisodeScore,
  pairedOutcomeValues,
  pairedTaskDifferences,
  taskOutcomes,
} from "../../src/scoring";

const score = (task: string, kind: "blocked" | "feasible" | "infra_error", value: boolean, repeat = 0) =>
  ({ task_id: task, kind, repeat, strict_sa: value, solve: value }) as unknown as EpisodeScore;

describe("per-task outcomes and paired differences under an objective", () => {
  it("counts the last score of a (task, repeat), never an uncounted or infrastructure-error one", () => {
    const scores = [
      score("a", "blocked", false),
      score("a", "blocked", true),
      score("b", "feasible", true),
      score("c", "infra_error", true),
    ];
    expect(
      countedEpisodes(scores, "joint").map((s) => [s.task_id, s.kind === "blocked" ? s.strict_sa : s.kind]),
    ).toEqual([
      ["a", true],
      ["b", "feasible"],
    ]);
    expect([...taskOutcomes(scores, "sa-only")]).toEqual([["a", [1]]]);
  });

  it("pairs by task and repeat: a task's difference is the mean over the repeats both sides scored", () => {
    const first = [
      score("t", "blocked", false, 0),
      score("t", "blocked", false, 1),
      score("t", "blocked", true, 2),
      score("u", "feasible", true),
    ];
    const second = [
      score("t", "blocked", true, 0),
      score("t", "infra_error", false, 1),
      score("t", "blocked", true, 2),
      score("v", "feasible", true),
    ];
    expect(pairedOutcomeValues(first, second, "joint")).toEqual([
      { task_id: "t", repeat: 0, first: 0, second: 1 },
      { task_id: "t", repeat: 2, first: 1, second: 1 },
    ]);
    expect([...pairedTaskDifferences(first, second, "joint")]).toEqual([["t", 0.5]]);
    expect([...pairedTaskDifferences(second, first, "joint")]).toEqual([["t", -0.5]]);
  });
});
