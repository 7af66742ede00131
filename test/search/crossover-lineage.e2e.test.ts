import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hashJson } from "../../src/core/canonical-json";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { readTree } from "../../src/git";
import { operatorMaterial } from "../../src/search/proposers/proposer-input";
import { openRunStore } from "../../src/store";
import { runCli } from "../helpers/cli";
import { retailSubset } from "../helpers/task-subset";

/**
 * Crossover donors under pareto: the edits of another lineage are taken since the common ancestor of the two
 * lineages (its nearest ancestor that is also an ancestor of the parent), with the gain measured from there; a donor
 * whose parent is in the lineage (always so under greedy) gives just its own edit.
 */
describe("crossover material", () => {
  it("takes another lineage's edits since the common ancestor", async () => {
    const work = mkdtempSync(join(tmpdir(), "hsearch-lineage-"));
    const { dir } = retailSubset({ perFamily: 4 });
    mkdirSync(join(work, "c"));
    const config = join(work, "c", "search.yaml");
    writeFileSync(
      config,
      `name: lineage\nsuites: [retail]\ntasks: ${dir}\nobjective: joint\nseed_harness: ${join(PACKAGE_ROOT, "harnesses", "bare")}\nrounds: 5\nproposals_per_round: 3\ntask_model: sim:default\nstrategy: pareto\nseed: 2\nconcurrency: 6\n`,
    );
    const runDir = join(work, "c", "run");
    const result = await runCli(["run", config, "--out", runDir]);
    expect(result.code, result.stderr).toBe(0);
    const store = openRunStore(runDir, { readonly: true });
    const repo = join(runDir, "harness");
    try {
      const view = store.searchView();
      const all = view.candidates();
      const byCommit = new Map(all.map((c) => [c.commit, c]));
      const ancestorsOf = (commit: string) => {
        const out: string[] = [];
        for (let at = byCommit.get(commit); at; at = at.parent ? byCommit.get(at.parent) : undefined)
          out.push(at.commit);
        return out;
      };
      let viaAncestor = 0;
      for (const parent of all.filter((c) => c.score !== null)) {
        const lineage = new Set(ancestorsOf(parent.commit));
        const { donors } = await operatorMaterial(view, repo, parent.commit, 99);
        for (const donor of donors) {
          expect(lineage.has(donor.commit)).toBe(false);
          const record = byCommit.get(donor.commit);
          const base = ancestorsOf(donor.commit).find((c) => c !== donor.commit && lineage.has(c)) ?? "";
          expect(donor.base ?? record?.parent).toBe(base);
          expect(donor.base === undefined).toBe(base === record?.parent);
          expect(hashJson(donor.parentFiles)).toBe(hashJson(await readTree(repo, base)));
          expect(donor.gain).toBeCloseTo((record?.score ?? 0) - (byCommit.get(base)?.score ?? 0), 10);
          expect(donor.gain).toBeGreaterThan(0);
          if (donor.base) viaAncestor++;
        }
      }
      // The run had lineages that branched more than one step apart.
      expect(viaAncestor).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  }, 300_000);
});
