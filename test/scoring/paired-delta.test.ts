import { describe, expect, it } from "vitest";
import type { EpisodeScore } from "../../src/scoring/episode";
import { pairedObjectiveDelta, type TaskEpisode } from "../../src/scoring/pairing";

const blocked = (task_id: string, strict_sa: boolean): TaskEpisode => ({
  task_id,
  scores: { kind: "blocked", strict_sa } as EpisodeScore,
});
const feasible = (task_id: string, solve: boolean): TaskEpisode => ({
  task_id,
  scores: { kind: "feasible", solve } as EpisodeScore,
});
const infra = (task_id: string): TaskEpisode => ({
  task_id,
  scores: { kind: "infra_error" } as EpisodeScore,
});

describe("paired objective delta", () => {
  it("is the mean of per-task differences over the tasks both scored, repeats averaged per task", () => {
    // b1: 0.5 → 1 (+0.5); b2: 0 → 0; f1: 1 → 0 (−1) under joint; b3 only scored by the child
    const before = [blocked("b1", true), blocked("b1", false), blocked("b2", false), feasible("f1", true)];
    const after = [blocked("b1", true), blocked("b1", true), blocked("b2", false), feasible("f1", false)];
    after.push(blocked("b3", true), infra("b2"));
    const joint = pairedObjectiveDelta(before, after, "joint", { seed: 1, resamples: 500 });
    expect(joint?.tasks).toBe(3);
    expect(joint?.delta).toBeCloseTo(-0.5 / 3, 12);
    // SA-only does not count feasible tasks
    const sa = pairedObjectiveDelta(before, after, "sa-only", { seed: 1, resamples: 500 });
    expect(sa?.tasks).toBe(2);
    expect(sa?.delta).toBeCloseTo(0.25, 12);
    expect(sa && sa.low <= sa.delta && sa.delta <= sa.high).toBe(true);
  });

  it("is clear only when the interval excludes 0, and reproducible under a seed", () => {
    const tasks = Array.from({ length: 40 }, (_, i) => `t${i}`);
    const before = tasks.map((t) => blocked(t, false));
    const gains = tasks.map((t, i) => blocked(t, i < 30));
    const clear = pairedObjectiveDelta(before, gains, "sa-only", { seed: 7 });
    expect(clear).toMatchObject({ tasks: 40, delta: 0.75, clear: true });
    expect(clear?.low).toBeGreaterThan(0);
    expect(pairedObjectiveDelta(before, gains, "sa-only", { seed: 7 })).toEqual(clear);
    const mixed = tasks.map((t, i) => blocked(t, i % 2 === 0));
    const beforeMixed = tasks.map((t, i) => blocked(t, i % 4 === 0));
    const unclear = pairedObjectiveDelta(mixed, beforeMixed, "sa-only", { seed: 7 });
    expect(unclear?.delta).toBeCloseTo(-0.25, 12);
    const tie = pairedObjectiveDelta(mixed, mixed, "sa-only", { seed: 7 });
    expect(tie).toMatchObject({ delta: 0, low: 0, high: 0, clear: false });
  });

  it("is null when no task was scored by both", () => {
    expect(
      pairedObjectiveDelta([blocked("a", true)], [blocked("b", true)], "sa-only", { seed: 1 }),
    ).toBeNull();
    expect(pairedObjectiveDelta([infra("a")], [blocked("a", true)], "sa-only", { seed: 1 })).toBeNull();
  });
});
