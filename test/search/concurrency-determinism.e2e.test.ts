import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { openRunStore } from "../../src/store";
import { runCli } from "../helpers/cli";
import { retailSubset } from "../helpers/task-subset";

/**
 * Same config and seed ⇒ the same run, whatever order rollouts finish in: one rollout at a time and six at once
 * complete in different orders, yet every proposal, parent, score, verdict, round decision and final evaluation is the
 * same (concurrency is the only difference; commits are the same because the run ids are). Both strategies, a race
 * and early rejection (their stops too).
 */
function outcome(runDir: string) {
  const store = openRunStore(runDir, { readonly: true });
  try {
    return {
      candidates: store
        .listCandidates()
        .map((c) => [c.commit, c.round, c.proposal, c.parent, c.rationale, c.state, c.verdict, c.score]),
      rounds: store
        .listRounds()
        .map((r) => [r.round, r.incumbent_before, r.incumbent_after, r.accepted_commit, r.decision]),
      evaluations: store.listEvaluations().map((e) => [e.candidate, e.purpose, e.summary]),
      rollouts: store
        .listCandidates()
        .flatMap((c) => store.listRollouts(c.commit).map((r) => [c.commit, r.key, r.scores])),
      raceOrders: store
        .listEvents()
        .filter((e) => e.kind === "race_order")
        .map((e) => e.data),
    };
  } finally {
    store.close();
  }
}

/** Race settings: the seeded order, and the informative order with successive halving. */
const RACE: Record<string, string> = {
  race: "strategy: greedy\nacceptance: {rule: race, batch: 3, min_tasks: 6, margin: 0.2}",
  "race-informative-halving":
    "strategy: greedy\nacceptance: {rule: race, batch: 3, min_tasks: 6, margin: 0.2, order: informative, halving: {keep: 0.5, first: 3}}",
  "early-reject": "strategy: greedy\nacceptance: {rule: greater, early_reject: true}",
};

describe("a search does not depend on the order its rollouts finish in", () => {
  for (const strategy of ["greedy", "pareto", "race", "race-informative-halving", "early-reject"] as const)
    it(`strategy ${strategy}: concurrency 1 and 6 give the same run`, async () => {
      const work = mkdtempSync(join(tmpdir(), "hsearch-order-"));
      const { dir } = retailSubset({ perFamily: 3 });
      const runs = [];
      for (const concurrency of [1, 6]) {
        const root = join(work, `c${concurrency}`);
        mkdirSync(root);
        const config = join(root, "search.yaml");
        writeFileSync(
          config,
          `name: order\nsuites: [retail]\ntasks: ${dir}\nobjective: joint\nseed_harness: ${join(PACKAGE_ROOT, "harnesses", "bare")}\nrounds: 3\nproposals_per_round: 2\ntask_model: sim:default\n${RACE[strategy] ?? `strategy: ${strategy}`}\nseed: 7\nconcurrency: ${concurrency}\n`,
        );
        const result = await runCli(["run", config, "--out", join(root, "run")]);
        expect(result.code, result.stderr).toBe(0);
        runs.push(outcome(join(root, "run")));
      }
      expect(runs[0]?.candidates.length).toBeGreaterThan(3);
      expect(runs[1]).toEqual(runs[0]);
      if (strategy !== "greedy" && strategy !== "pareto") {
        // The race (or early rejection) stopped some proposal before the whole search split (else this test would not
        // test its stops).
        const store = openRunStore(join(work, "c1", "run"), { readonly: true });
        try {
          const searched = store.listCandidates().map((c) => store.listRollouts(c.commit, "search").length);
          expect(Math.min(...searched)).toBeLessThan(Math.max(...searched));
          // No proposal was accepted on fewer search tasks than min_tasks (6).
          for (const c of store.listCandidates())
            if (c.round > 0 && c.verdict === "accepted")
              expect(store.listRollouts(c.commit, "search").length).toBeGreaterThanOrEqual(6);
          if (strategy === "race-informative-halving") {
            // Some round drew a weighted order (candidates had disagreed), and halving dropped some proposal.
            const orders = runs[0]?.raceOrders ?? [];
            expect(orders.some((o) => Array.isArray(o.weights))).toBe(true);
            const reasons = store.listRounds().flatMap((r) => JSON.stringify(r.decision));
            expect(reasons.join("\n")).toContain("dropped by halving");
          }
        } finally {
          store.close();
        }
      }
    }, 300_000);
});
