import { describe, expect, it } from "vitest";
import {
  cellText,
  type StudyTable,
  stepWaves,
  studyFileSchema,
  studySteps,
  tableCsv,
  tableLatex,
  tableMarkdown,
} from "../../src/study";

const study = (extra: Record<string, unknown> = {}) =>
  studyFileSchema.parse({ benchmarks: [{ suite: "retail" }, { suite: "terminal" }], ...extra });

describe("the study's planner", () => {
  it("gives every benchmark the protocol's steps, each once, with its defaults", () => {
    const steps = studySteps(study());
    const ids = steps.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const benchmark of ["retail", "terminal"]) {
      const mine = steps.filter((s) => s.benchmark === benchmark).map((s) => s.id.split("/")[1]);
      expect(mine).toEqual([
        "static-A0",
        "static-A1",
        "static-B",
        "static-C",
        "static-D",
        "search-sa-only",
        "search-joint",
        "heldout-initial",
        "independent-initial",
        "beliefs-initial",
        "heldout-sa-only",
        "independent-sa-only",
        "beliefs-sa-only",
        "heldout-joint",
        "independent-joint",
        "beliefs-joint",
        "challenge-joint",
      ]);
    }
    const search = steps.find((s) => s.id === "retail/search-joint");
    expect(search?.spec).toMatchObject({
      kind: "search",
      config: { rounds: 8, proposals_per_round: 3, objective: "joint", heldout: { final: false } },
    });
    const independent = steps.find((s) => s.id === "terminal/independent-initial");
    expect(independent?.spec).toMatchObject({ kind: "eval", repeats: 3, tasks: { split: "independent" } });
    const challenge = steps.find((s) => s.id === "retail/challenge-joint");
    expect(challenge?.spec).toMatchObject({
      kind: "challenge",
      runs: 6,
      harness: { selected: "retail/search-joint" },
    });
    expect(steps.find((s) => s.id === "retail/static-D")?.spec).toMatchObject({
      harness: { path: "harnesses/harness-control" },
      tasks: { split: "search", kind: "blocked" },
    });
  });

  it("runs the two searches with seeds of their own, and the steps after a search only once it is done", () => {
    const steps = studySteps(study({ seed: 7 }));
    const seeds = steps.flatMap((s) => (s.spec.kind === "search" ? [s.spec.config.seed] : []));
    expect(seeds).toEqual([7, 8, 7, 8]);
    for (const step of steps) {
      const after = step.spec.kind !== "search" && "harness" in step.spec && "selected" in step.spec.harness;
      expect(step.deps).toEqual(
        after ? [(step.spec as { harness: { selected: string } }).harness.selected] : [],
      );
    }
    const waves = stepWaves(steps);
    expect(waves).toHaveLength(2);
    expect(waves[0]).toContain("retail/search-sa-only");
    expect(waves[0]).toContain("retail/heldout-initial");
    expect(waves[1]).toContain("retail/beliefs-joint");
    expect(waves.flat().sort()).toEqual(steps.map((s) => s.id).sort());
  });

  it("refuses a cycle and two benchmarks of one name", () => {
    expect(() =>
      stepWaves([{ id: "a", benchmark: "x", label: "a", deps: ["a"], spec: studySteps(study())[0]!.spec }]),
    ).toThrow(/cycle/);
    expect(() => studySteps(study({ benchmarks: [{ suite: "retail" }, { suite: "retail" }] }))).toThrow(
      /two benchmarks/,
    );
  });
});

const table: StudyTable = {
  id: "table-x-retail",
  number: "Table 11",
  title: "A, B & C",
  benchmark: "retail",
  source: "simulator (sim:default) — not a model",
  columns: [
    { key: "name", label: "name" },
    { key: "rate", label: "rate" },
    { key: "ci", label: "AUROC" },
  ],
  rows: [
    { name: 'a "quoted", name', rate: { k: 3, n: 4 }, ci: { value: 0.5, ci: [0.25, 0.75] } },
    { name: "b_1 | x", rate: { k: 0, n: 0 }, ci: { value: null, ci: null, reason: "one class only" } },
  ],
  notes: ["a note"],
  reference: "not shipped",
};

describe("a study table in every format", () => {
  it("shows each rate with its counts and each estimate with its interval or why it has none", () => {
    expect(cellText({ k: 3, n: 4 })).toBe("0.750 (3/4)");
    expect(cellText({ k: 0, n: 0 })).toBe("– (0/0)");
    expect(cellText({ value: null, ci: null, reason: "one class only" })).toBe("undefined (one class only)");
    expect(cellText({ mean: 0.5, sd: 0.1 })).toBe("0.500 ± 0.100");
    const md = tableMarkdown(table);
    expect(md).toContain('| a "quoted", name | 0.750 (3/4) | 0.500 [0.250, 0.750] |');
    expect(md).toContain("b_1 \\| x");
    expect(md).toContain("Outcomes of simulator (sim:default) — not a model.");
    expect(md).toContain("- Paper's value: not shipped");
  });

  it("gives counts their own CSV columns and quotes what needs it", () => {
    const lines = tableCsv(table).split("\r\n");
    expect(lines[0]).toBe("name,rate,rate k,rate n,AUROC");
    expect(lines[1]).toBe('"a ""quoted"", name",0.75,3,4,"0.500 [0.250, 0.750]"');
    expect(lines[2]).toBe("b_1 | x,,0,0,undefined (one class only)");
  });

  it("escapes LaTeX's special characters", () => {
    const tex = tableLatex(table);
    expect(tex).toContain("b\\_1 | x");
    expect(tex).toContain("\\caption{A, B \\& C (retail)");
    expect(tex).toContain("\\begin{tabular}{lrr}");
  });
});
