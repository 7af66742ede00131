import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createModel } from "../../src/api/create-model";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { createRng } from "../../src/core/rng";
import type { Suite } from "../../src/domain/task";
import { evaluateJobs, planRollouts } from "../../src/eval/evaluate";
import { loadHarness } from "../../src/harness/load";
import { compilePattern } from "../../src/harness/playbook-match";
import { objectiveScore, rulesJudge } from "../../src/scoring";
import { buildDigest } from "../../src/search/proposers/digest";
import { runOperators } from "../../src/search/proposers/operator-library";
import { retailSubset } from "../helpers/task-subset";

/**
 * Every stopping rule the offline proposer distils, in every family of both suites, describes a blocker: a template
 * over the shared wording of several failing tasks' decisive observations (an error kind, a phrase of the request),
 * never a value copied from one task's data (`"country": "USA"`, `"city": "Indianapolis"`, an order id). Checked on
 * the proposals themselves — a superset of what a search accepts — from the seed harness's real search-split episodes
 * with `sim:default`, every failure of every cell in the digest.
 */
async function distilledRules(suite: Suite) {
  const { tasks } = retailSubset({
    suites: [suite],
    perFamily: suite === "terminal" ? 8 : 10,
    independent: 0,
  });
  const search = tasks.filter((task) => task.split === "search");
  const harness = loadHarness(join(PACKAGE_ROOT, "harnesses", "abandon"));
  const outcomes = await evaluateJobs({
    harness,
    jobs: planRollouts(search, 1, 1),
    model: createModel("sim:default"),
    judge: rulesJudge,
    concurrency: 8,
  });
  const digest = buildDigest(
    outcomes.map(({ trajectory, score }) => ({ trajectory, score })),
    objectiveScore(
      outcomes.map((o) => o.score),
      "joint",
    ),
    { seed: 1, examplesPerCell: 100 },
  );
  const { proposals } = runOperators({
    harness,
    digest,
    tried: new Set(),
    count: 1000,
    rng: createRng(1, "rules"),
    round: 1,
  });
  const rules = proposals
    .filter((p) => p.operator === "distil_rule")
    .map((p) => {
      const match = /rule '([a-z]+)-[^']*'.*fits (\/.+\/i) \(/.exec(p.rationale);
      return { family: match?.[1] ?? "", pattern: match?.[2] ?? "", rationale: p.rationale };
    });
  return { rules, digest };
}

describe("distilled rules describe blockers, in every family of both suites", () => {
  for (const [suite, families] of [
    ["retail", ["ambiguous", "infeasible"]],
    ["terminal", ["infeasible", "trap"]],
  ] as const)
    it(`${suite}: templates shared by several failing tasks, never one task's data value`, async () => {
      const { rules, digest } = await distilledRules(suite);
      // Families whose failures are written in prose, error messages or a record's state field get rules (retail's
      // trap blocker — an order of another user — is a comparison no pattern over one record can express).
      for (const family of families)
        expect(
          rules.some((rule) => rule.family === family),
          `${suite} ${family}: ${rules.map((r) => r.rationale).join("\n")}`,
        ).toBe(true);
      expect(rules.length).toBeGreaterThan(0);
      for (const { family, pattern, rationale } of rules) {
        expect(pattern, rationale).toMatch(/^\/.+\/i$/);
        // A record's state field: a top-level key and one or several lower-case word values, never an id or a name.
        const state = /^\/"([a-z_]+)":\\s\*"(?:\(\?:)?([a-z|\\s+]+)\)?"\/i$/.exec(pattern);
        if (state) {
          expect(state[2], rationale).not.toMatch(/\d|[A-Z]/);
          const fires = compilePattern(pattern);
          const tasks = new Set(
            digest.failures.filter((f) => f.family === family && fires(f.excerpt)).map((f) => f.task_id),
          );
          expect(tasks.size, rationale).toBeGreaterThanOrEqual(2);
          continue;
        }
        // No id, number, JSON key/value pair or capitalised name: those are one task's data.
        expect(pattern.replace(/\\[bsS]/g, ""), rationale).not.toMatch(/\d|#|":|[A-Z]/);
        const words = pattern
          .slice(1, -2)
          .replace(/\\[bsS][+*]?/g, " ")
          .replace(/[()?:|\\]/g, " ")
          .split(/\s+/)
          .filter(Boolean);
        expect(words.length, rationale).toBeGreaterThanOrEqual(2);
        for (const word of words) expect(word, rationale).toBe(word.toLowerCase());
        // It fits the decisive observations of at least two different failing tasks of its family.
        const fires = compilePattern(pattern);
        const tasks = new Set(
          digest.failures.filter((f) => f.family === family && fires(f.excerpt)).map((f) => f.task_id),
        );
        expect(tasks.size, rationale).toBeGreaterThanOrEqual(2);
      }
    }, 300_000);
});
