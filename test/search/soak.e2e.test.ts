import { describe, expect, it } from "vitest";
import { runSoak } from "../helpers/soak";

/**
 * A small soak (the figures of the full one are bench/soak.ts's): a search with `openai:` models against a server
 * failing a fifth of first calls in every way a provider fails (a hung connection included, ended by the run's
 * `limits.model_call_seconds`) and refusing one task's customer outright, SIGKILLed at 3 seeded points and resumed
 * each time, ends where the uninterrupted search ends.
 */
describe("soak: SIGKILLs and provider faults", () => {
  it("resumes to the uninterrupted run's selection and content, no rollout lost, the same infra errors", async () => {
    const kills = 3;
    const { uninterrupted, killed, lost } = await runSoak({
      kills,
      seed: 1,
      latencyMs: 5,
      faultRate: 0.2,
      callTimeoutSeconds: 1,
      rounds: 1,
      proposalsPerRound: 2,
      concurrency: 8,
      tasks: { perFamily: 1, heldoutPerFamily: 1, independent: 2 },
    });
    expect(killed.kills).toBe(kills);
    expect(killed.state).toBe("finished");
    expect(killed.selected).toBe(uninterrupted.selected);
    expect(killed.contentHash).toBe(uninterrupted.contentHash);
    expect(lost).toBe(0);
    expect(killed.rollouts.size).toBe(uninterrupted.rollouts.size);
    // The refused customer's rollouts are infrastructure errors, counted alike in both runs; every other fault was
    // absorbed by a retry (a hung call by the client's timeout).
    expect(uninterrupted.refused).toBeGreaterThan(0);
    expect(uninterrupted.infraErrors).toBeGreaterThan(0);
    expect(killed.infraErrors).toBe(uninterrupted.infraErrors);
    expect(killed.faults.hang).toBeGreaterThan(0);
    expect(Object.values(killed.faults).reduce((a, b) => a + b, 0)).toBeGreaterThan(5);
  }, 600_000);
});
