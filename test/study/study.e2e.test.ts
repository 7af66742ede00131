import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { planStudy, runStudy, type StudyEvent, type StudyResult } from "../../src/api/study";
import { retailSubset } from "../helpers/task-subset";

/** A small study on a slice of retail: every step of the protocol, one round of two proposals. */
function smallStudy(dir: string, extra = ""): string {
  const { dir: tasks } = retailSubset({ perFamily: 2, heldoutPerFamily: 2, independent: 2 });
  const file = join(dir, "study.yaml");
  writeFileSync(
    file,
    `name: small
seed: 3
concurrency: 4
benchmarks:
  - suite: retail
    tasks: ${tasks}
search: {rounds: 1, proposals_per_round: 2}
independent_reruns: 2
beliefs: {resamples: 200}
challenge: {replicates: 2}
${extra}`,
  );
  return file;
}

describe("hsearch study, end to end on the simulator", () => {
  let result: StudyResult;
  const events: StudyEvent[] = [];

  it("runs every step and writes every table and figure with its counts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hsearch-study-"));
    const file = smallStudy(dir);
    const handle = runStudy(file, { cwd: dir, out: join(dir, "study") });
    handle.on((event) => events.push(event));
    result = await handle.result;
    const ids = result.tables.map((t) => t.id);
    for (const id of [
      "table-11",
      "figure-4",
      "table-12",
      "figure-7",
      "figure-9",
      "figure-8d",
      "figure-11",
      "table-4",
      "table-13",
      "table-14",
      "figure-3",
      "table-5",
      "table-15",
      "table-16",
      "table-6",
      "figure-5",
    ])
      expect(ids).toContain(`${id}-retail`);
    for (const table of result.tables) {
      expect(table.rows.length).toBeGreaterThan(0);
      expect(table.source).toBe("simulator (sim:default) — not a model");
      expect(table.reference).toContain("not shipped with hsearch yet");
      for (const ext of ["md", "csv", "tex"])
        expect(existsSync(join(result.reportDir, "tables", `${table.id}.${ext}`))).toBe(true);
    }
    // Static conditions: one episode per blocked search task, every rate with its counts.
    const statics = result.tables.find((t) => t.id === "table-11-retail");
    expect(statics?.rows.map((r) => r.condition)).toEqual(["A0", "A1", "B", "C", "D"]);
    for (const row of statics?.rows ?? []) expect(row.strict_sa).toMatchObject({ n: 6 });
    // Condition D: the harness writes the deferral — naive M2 counts it, the gated relaxed SA does not.
    const gating = result.tables
      .find((t) => t.id === "figure-4-retail")
      ?.rows.find((r) => r.condition === "D");
    if (gating === undefined) throw new Error("figure 4 has no row of condition D");
    expect((gating.harness_written as { k: number }).k).toBeGreaterThan(0);
    expect((gating.naive_m2 as { k: number }).k).toBeGreaterThan((gating.relaxed_sa as { k: number }).k);
    // Independent tasks run twice each.
    const heldout = result.tables.find((t) => t.id === "table-14-retail");
    const independent = heldout?.rows.find((r) => String(r.split).startsWith("independent"));
    expect(independent?.solve).toMatchObject({ n: 4 });
    const md = readFileSync(join(result.reportDir, "tables", "table-11-retail.md"), "utf8");
    expect(md).toMatch(/\(\d+\/6\)/);
    const page = readFileSync(join(result.reportDir, "index.html"), "utf8");
    expect(page).toContain("Table 16");
    expect(page).toContain("simulator (sim:default) — not a model");
    expect(events.at(-1)).toMatchObject({ type: "finished", hash: result.hash });
    const shares = events.flatMap((e) => (e.type === "progress" ? [e.share] : []));
    expect(shares.at(-1)).toBeCloseTo(1);
  }, 240_000);

  it("spends no more than its plan: rollouts and model calls per step", async () => {
    const plan = await planStudy(result.plan.file, { cwd: result.dir });
    expect(plan.steps.map((s) => s.id)).toEqual(result.spent.map((s) => s.id));
    for (const spent of result.spent) {
      const planned = plan.steps.find((s) => s.id === spent.id);
      if (!planned) throw new Error(`no plan for ${spent.id}`);
      if (spent.id.includes("/search-")) expect(spent.rollouts).toBeLessThanOrEqual(planned.rollouts);
      else expect(spent.rollouts).toBe(planned.rollouts);
      for (const role of ["agent", "customer", "judge", "proposer"] as const)
        expect(spent.calls[role]).toBeLessThanOrEqual(planned.calls[role]);
    }
  });
});
