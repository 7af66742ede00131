import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readTree } from "../../src/git";
import { parseHarness } from "../../src/harness/load";
import { compilePattern } from "../../src/harness/playbook-match";
import type { BlockedEpisodeScore } from "../../src/scoring";
import { decisiveExcerpt } from "../../src/search/proposers/digest";
import { openRunStore } from "../../src/store";
import { runStatus } from "../../src/store/run-status";
import { runDemo } from "../helpers/demo-run";

/**
 * The shipped demo (R0 + 8 × 3, operators, sim:default): every round has its 3 proposals, and every rule it accepts
 * describes a blocker — a template shared by the decisive observations of several search tasks — never a data value
 * copied from one task (like `"country": "USA"` or `"city": "Indianapolis"`).
 */
describe("the demo search", () => {
  it("makes 3 proposals in each of its 8 rounds, and accepts only rules that generalise", async () => {
    // The demo run that test/search/demo-determinism.e2e.test.ts pins, made once per suite run.
    const { runDir: out } = await runDemo();
    const store = openRunStore(out, { readonly: true });
    try {
      const status = runStatus(store);
      for (let round = 1; round <= 8; round++)
        expect(status.rounds[round]?.proposals.length, `round ${round}`).toBe(3);
      expect(store.listEvents().some((e) => e.kind === "operators_exhausted")).toBe(false);

      const repo = join(out, "harness");
      const selected = store.listRounds().at(-1)?.incumbent_after ?? "";
      const accepted = store.listCandidates().filter((c) => c.verdict === "accepted");
      const view = store.searchView();
      // The decisive observations of the search split's blocked episodes, by task.
      const excerpts = new Map<string, string>();
      for (const rollout of view.rollouts(selected)) {
        const score = rollout.scores as unknown as BlockedEpisodeScore;
        if (score.kind !== "blocked") continue;
        const trajectory = view.trajectory(selected, rollout.key);
        excerpts.set(score.task_id, decisiveExcerpt(trajectory.events, score.decisive_step, score.family));
      }
      const rules = new Map<string, string[]>();
      for (const candidate of [...accepted.map((c) => c.commit), selected]) {
        const harness = parseHarness(await readTree(repo, candidate), candidate);
        for (const rule of harness.playbook) rules.set(rule.id, rule.when.any);
      }
      expect(rules.size).toBeGreaterThan(0);
      for (const [id, patterns] of rules)
        for (const pattern of patterns) {
          // A template, not a value: a regex with no id, number or JSON key/value pair in it …
          expect(pattern, id).toMatch(/^\/.+\/i$/);
          expect(pattern, id).not.toMatch(/\d|#|": "/);
          // … matching the decisive observation of at least two different tasks.
          const fires = compilePattern(pattern);
          const tasks = [...excerpts].filter(([, text]) => fires(text)).map(([task]) => task);
          expect(tasks.length, `${id} ${pattern}`).toBeGreaterThanOrEqual(2);
        }
    } finally {
      store.close();
    }
  }, 300_000);
});
