import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { planStudy, runStudy, type StudyResult } from "../../src/api/study";
import { studySteps } from "../../src/study";
import { runCli } from "../helpers/cli";
import { retailSubset } from "../helpers/task-subset";

/**
 * `search.convolve: true`: the study runs a CONVOLVE search beside harness search's two (the joint search's seed
 * harness, tasks, budget and seed; only the proposer differs), evaluates its selection on held-out and compares the
 * two methods in a table of its own, with counts; `--plan` counts its rollouts and the reflector's and curator's calls.
 */
const work = mkdtempSync(join(tmpdir(), "hsearch-study-convolve-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const { dir: tasks } = retailSubset({
  perFamily: 2,
  heldoutPerFamily: 2,
  independent: 1,
  into: join(work, "tasks"),
});
function study(name: string, extra = ""): string {
  const file = join(work, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
seed: 3
concurrency: 4
${extra}benchmarks:
  - suite: retail
    tasks: ${tasks}
    initial: harnesses/bare
search: {rounds: 2, proposals_per_round: 2, convolve: true}
independent_reruns: 1
beliefs: {resamples: 100}
challenge: {replicates: 1}
`,
  );
  return file;
}

describe("a study with search.convolve", () => {
  let result: StudyResult;

  it("runs a CONVOLVE search beside the joint one and reports both methods on held-out with counts", async () => {
    result = await runStudy(study("cv"), { cwd: work, out: join(work, "cv") }).result;
    const ids = result.plan.steps.map((s) => s.id);
    expect(ids).toContain("retail/search-convolve");
    expect(ids).toContain("retail/heldout-convolve");
    const config = JSON.parse(readFileSync(join(work, "cv", "study.json"), "utf8")) as {
      study: Parameters<typeof studySteps>[0];
    };
    const searches = studySteps(config.study).flatMap((s) =>
      s.spec.kind === "search" ? [{ id: s.id, config: s.spec.config }] : [],
    );
    const joint = searches.find((s) => s.id === "retail/search-joint")?.config;
    const convolve = searches.find((s) => s.id === "retail/search-convolve")?.config;
    // The same search but for its proposer (and its name).
    expect(convolve).toEqual({ ...joint, name: "cv-retail-convolve", meta_model: "convolve" });

    const table = result.tables.find((t) => t.id === "convolve-retail");
    if (!table) throw new Error("no CONVOLVE table");
    expect(table.source).toBe("simulator (sim:default) — not a model");
    expect(table.rows.map((r) => r.harness)).toEqual([
      "initial (R0)",
      "selected, SA-only",
      "selected, joint",
      "selected, CONVOLVE (joint)",
    ]);
    const heldout = result.tables.find((t) => t.id === "table-14-retail");
    const initialHeldout = heldout?.rows.find((r) => r.harness === "initial (R0)" && r.split === "heldout");
    if (!initialHeldout) throw new Error("Table 14 has no held-out row of the initial harness");
    for (const row of table.rows) {
      // Every held-out blocked and feasible episode is counted, for each harness.
      expect(row.absrec1).toMatchObject({ n: (initialHeldout.strict_sa as { n: number }).n });
      expect(row.solve).toMatchObject({ n: (initialHeldout.solve as { n: number }).n });
      const at1 = row.absrec1 as { k: number };
      const at3 = row.absrec3 as { k: number };
      expect(at3.k).toBeGreaterThanOrEqual(at1.k);
      expect(typeof row.spl).toBe("number");
    }
    const [initial, , , curated] = table.rows;
    expect(initial?.search_rollouts).toBeNull();
    expect(curated?.proposer).toBe("convolve (reflector offline, curator offline)");
    expect(curated?.search_rollouts).toBeGreaterThan(0);
    // The same outcomes as Table 14 for the harnesses both show.
    expect(initial?.strict_sa).toEqual(initialHeldout.strict_sa);
    const md = readFileSync(join(result.reportDir, "tables", "convolve-retail.md"), "utf8");
    expect(md).toMatch(/\| selected, CONVOLVE \(joint\) \| convolve [^\n]*\(\d+\/\d+\)/);
    expect(readFileSync(join(result.reportDir, "index.html"), "utf8")).toContain(
      "Harness search against CONVOLVE",
    );
  }, 400_000);

  it("spends no more than its plan, the CONVOLVE steps included", async () => {
    const plan = await planStudy(result.plan.file, { cwd: work });
    for (const id of ["retail/search-convolve", "retail/heldout-convolve"]) {
      const planned = plan.steps.find((s) => s.id === id);
      const spent = result.spent.find((s) => s.id === id);
      if (!planned || !spent) throw new Error(`no plan or spend for ${id}`);
      expect(spent.rollouts).toBeGreaterThan(0);
      if (id.includes("search-")) expect(spent.rollouts).toBeLessThanOrEqual(planned.rollouts);
      else expect(spent.rollouts).toBe(planned.rollouts);
    }
  });

  it("--plan counts the reflector's and curator's calls when they are models", async () => {
    const file = study("roles", "models: {reflector: 'openai:refl', curator: 'openai:cur'}\n");
    const plan = await planStudy(file, { cwd: work });
    const step = plan.steps.find((s) => s.id === "retail/search-convolve");
    // Two rounds, one ask of each role a round, up to three replies each.
    expect(step?.calls).toMatchObject({ reflector: 6, curator: 6, proposer: 0 });
    expect(plan.total.calls).toMatchObject({ reflector: 6, curator: 6 });
    const text = await runCli(["study", file, "--plan"], { cwd: work });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/reflector calls +curator calls/);
    expect(text.stdout).toMatch(/retail\/search-convolve +\d+ +\d+ +0 +0 +0 +6 +6/);
    const offline = await planStudy(study("offline"), { cwd: work });
    expect(offline.total.calls).toMatchObject({ reflector: 0, curator: 0 });
  });
});
