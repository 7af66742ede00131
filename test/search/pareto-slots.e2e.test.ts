import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { readTree } from "../../src/git";
import { openRunStore } from "../../src/store";
import { runCli } from "../helpers/cli";
import { retailSubset } from "../helpers/task-subset";

/**
 * `strategy: pareto` with the operators proposer on a retail slice: each proposal draws its own parent from the front
 * (so a round can extend two members), and the last slot of a round merges into its parent the edits another front
 * member made since their common ancestor (GEPA's merge).
 */
describe("the proposal slots of a pareto round", () => {
  it("draws a parent per proposal and merges another front member's edits in the last slot", async () => {
    const work = mkdtempSync(join(tmpdir(), "hsearch-pareto-slots-"));
    const { dir } = retailSubset({ perFamily: 8 });
    const config = join(work, "search.yaml");
    writeFileSync(
      config,
      `name: pareto-slots\nsuites: [retail]\ntasks: ${dir}\nobjective: joint\nseed_harness: ${join(PACKAGE_ROOT, "harnesses", "abandon")}\nrounds: 5\nproposals_per_round: 3\ntask_model: sim:default\nmeta_model: operators\nstrategy: pareto\nseed: 1\nconcurrency: 4\nheldout: {final: false}\n`,
    );
    const runDir = join(work, "run");
    const result = await runCli(["run", config, "--out", runDir]);
    expect(result.code, result.stderr).toBe(0);

    const store = openRunStore(runDir, { readonly: true });
    try {
      const candidates = store.listCandidates();
      const byCommit = new Map(candidates.map((c) => [c.commit, c]));
      const lineage = (commit: string) => {
        const out = new Set<string>();
        for (let at = byCommit.get(commit); at; at = at.parent ? byCommit.get(at.parent) : undefined)
          out.add(at.commit);
        return out;
      };
      const frontBefore = (round: number) =>
        new Set(
          candidates
            .filter((c) => c.round < round && (c.parent === null || c.verdict === "accepted"))
            .map((c) => c.commit),
        );

      // Every parent is a front member of earlier rounds; some round drew two different parents for the proposer.
      let roundsWithTwoParents = 0;
      for (let round = 1; round <= 5; round++) {
        const proposals = candidates.filter((c) => c.round === round);
        for (const proposal of proposals) expect(frontBefore(round).has(proposal.parent ?? "")).toBe(true);
        const drawn = new Set(proposals.filter((c) => c.proposer === "operators").map((c) => c.parent));
        if (drawn.size > 1) roundsWithTwoParents++;
      }
      expect(roundsWithTwoParents).toBeGreaterThan(0);

      // The merges: made without the proposer, in the round's last slot, from a front member outside the parent's
      // lineage; the merged harness carries the donor's edits since the common ancestor.
      const merges = candidates.filter((c) => c.proposer === "pareto-merge");
      expect(merges.length).toBeGreaterThan(0);
      const repo = join(runDir, "harness");
      for (const merge of merges) {
        expect(merge.proposal).toBe(3);
        expect(merge.state).not.toBe("skipped_duplicate");
        const [, donorSha, baseSha] =
          /front member r\d+p\d+ \(([0-9a-f]{12})\) made since the common ancestor ([0-9a-f]{12})/.exec(
            merge.rationale,
          ) ?? [];
        const donor = candidates.find((c) => c.commit.startsWith(donorSha ?? "-"));
        const base = candidates.find((c) => c.commit.startsWith(baseSha ?? "-"));
        if (!donor || !base || !merge.parent)
          throw new Error(`unreadable merge rationale: ${merge.rationale}`);
        expect(frontBefore(merge.round).has(donor.commit)).toBe(true);
        expect(lineage(merge.parent).has(donor.commit)).toBe(false);
        expect(lineage(donor.commit).has(merge.parent)).toBe(false);
        expect(lineage(merge.parent).has(base.commit)).toBe(true);
        expect(lineage(donor.commit).has(base.commit)).toBe(true);
        const baseFiles = await readTree(repo, base.commit);
        const donorFiles = await readTree(repo, donor.commit);
        const mergedFiles = await readTree(repo, merge.commit);
        const parentFiles = await readTree(repo, merge.parent);
        const protocols = (files: Record<string, string>) =>
          (parse(files["harness.yaml"] ?? "") as { protocols: Record<string, { enabled: boolean }> })
            .protocols;
        for (const [name, setting] of Object.entries(protocols(donorFiles)))
          if (setting.enabled !== protocols(baseFiles)[name]?.enabled)
            expect(protocols(mergedFiles)[name]?.enabled, name).toBe(setting.enabled);
        const ruleIds = (files: Record<string, string>) =>
          new Set(((parse(files["playbook.yaml"] ?? "[]") ?? []) as Array<{ id: string }>).map((r) => r.id));
        for (const id of ruleIds(donorFiles))
          if (!ruleIds(baseFiles).has(id)) expect(ruleIds(mergedFiles).has(id), id).toBe(true);
        // A prose file the donor rephrased is taken where the parent still has the ancestor's text.
        for (const path of Object.keys(donorFiles).filter((p) => p.endsWith(".md")))
          if (donorFiles[path] !== baseFiles[path] && parentFiles[path] === baseFiles[path])
            expect(mergedFiles[path], path).toBe(donorFiles[path]);
      }
    } finally {
      store.close();
    }
  }, 240_000);
});
