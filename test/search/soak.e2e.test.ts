import { beforeAll, describe, expect, it } from "vitest";
import { compiledCli } from "../helpers/compiled-package";
import { runSoak } from "../helpers/soak";

/** The compiled CLI (test/helpers/compiled-package.ts), which the soak starts and kills as child processes. */
let cli: string[];
beforeAll(async () => {
  cli = await compiledCli();
}, 300_000);

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
      cli,
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

  /**
   * The same search run through two workers, one of them SIGKILLed at 3 seeded points (counts of the run's answered
   * calls, so each lands) and restarted, against the uninterrupted single-process run.
   */
  it("with a worker SIGKILLed at seeded points and restarted, run --workers ends on the single-process run's selection and content", async () => {
    const { uninterrupted, killed, lost } = await runSoak({
      cli,
      kills: 3,
      seed: 2,
      latencyMs: 5,
      faultRate: 0.2,
      callTimeoutSeconds: 1,
      rounds: 1,
      proposalsPerRound: 2,
      // Few rollouts in flight: calls answered but not yet stored when a kill is armed count against its draw.
      concurrency: 4,
      tasks: { perFamily: 1, heldoutPerFamily: 1, independent: 2 },
      workers: { concurrency: 2, stallSeconds: 3 },
    });
    expect(killed.kills).toBe(3);
    expect(killed.starts).toBe(4);
    expect(killed.state).toBe("finished");
    expect(killed.selected).toBe(uninterrupted.selected);
    expect(killed.contentHash).toBe(uninterrupted.contentHash);
    expect(lost).toBe(0);
    expect(killed.rollouts.size).toBe(uninterrupted.rollouts.size);
    expect(killed.infraErrors).toBeGreaterThan(0);
    expect(killed.infraErrors).toBe(uninterrupted.infraErrors);
    // Every stored rollout was run by a worker (a killed one's unfinished rollouts again by the other or its restart).
    const workers = killed.workers ?? { victim: 0, partner: 0 };
    expect(workers.victim + workers.partner).toBeGreaterThanOrEqual(killed.rollouts.size);
    expect(killed.faults.hang).toBeGreaterThan(0);
    console.info(
      `worker soak: 3 kills; rollouts run by the victim ${workers.victim}, the partner ${workers.partner}, ${killed.rollouts.size} stored; ${killed.infraErrors} infra errors in each run`,
    );
  }, 600_000);
});
