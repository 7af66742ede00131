/**
 * `tasks pair` in the real sandbox on the Harbor-format fixtures of test/fixtures/harbor-pair (imported first):
 * every family's proof, a variant that fails its proof and is not written, sources that cannot be used, the splits,
 * and the same suite for a seed whatever the concurrency.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModel } from "../../../src/api/create-model";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import { FAMILIES, type TerminalTask } from "../../../src/domain/task";
import { evaluateJobs, planRollouts } from "../../../src/eval/evaluate";
import { loadHarness } from "../../../src/harness/load";
import { rulesJudge, summarize } from "../../../src/scoring";
import { type PairResult, pairSuite } from "../../../src/tasks/generators/pair/pair-suite";
import { type OracleRun, proveVariant } from "../../../src/tasks/generators/pair/prove";
import { sizesFor } from "../../../src/tasks/generators/pair/splits";
import { surveySource } from "../../../src/tasks/generators/pair/survey";
import { type Candidate, candidateVariants } from "../../../src/tasks/generators/pair/variants";
import { sha256Hex } from "../../../src/tasks/generators/pair/workspace-state";
import { idleReward, runScriptIn } from "../../../src/tasks/generators/terminal/check";
import { importHarbor } from "../../../src/tasks/importers/harbor/import-harbor";
import { loadTaskDir } from "../../../src/tasks/loading/load";
import { formatTaskJson, writeTaskFiles } from "../../../src/tasks/loading/write";

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "harbor-pair");
const temps: string[] = [];
let sources: Array<{ task: TerminalTask; file: string }>;
let result: PairResult;
let oracle: OracleRun;

const sourceOf = (id: string) => sources.find(({ task }) => task.id === id)?.task as TerminalTask;
const written = (id: string) => result.tasks.find((task) => task.id === id);

beforeAll(async () => {
  const imported = await importHarbor(FIXTURES, "search", {
    host: { installed: async (names) => new Set(names), available: async (names) => new Set(names) },
  });
  const tasks = imported.tasks.filter((task): task is TerminalTask => task.suite === "terminal");
  // A task with no reference solution (another importer may make such tasks): skipped and counted.
  const bare = { ...(tasks.find((task) => task.id === "harbor-word-count") as TerminalTask) };
  tasks.push({ ...bare, id: "harbor-no-solution", reference: { solution: " \n" } });
  sources = tasks.map((task) => ({ task, file: `${task.id}.json` }));
  oracle = { model: createModel("oracle"), harness: loadHarness(join(PACKAGE_ROOT, "harnesses", "abandon")) };
  result = await pairSuite(sources, { seed: 1, oracle, concurrency: 2 });
}, 600_000);

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe("tasks pair on imported Harbor tasks", () => {
  it("proves and writes a variant of every family, each held by its family's proof when checked again", async () => {
    const blocked = result.tasks.filter((task) => task.kind === "blocked");
    for (const family of FAMILIES)
      expect(
        blocked.some((task) => task.family === family),
        family,
      ).toBe(true);
    for (const variant of blocked) {
      const counterpart = written(variant.source ?? "") as TerminalTask;
      expect(counterpart.kind).toBe("feasible");
      expect(variant.forbidden.paths?.length).toBeGreaterThan(0);
      // An agent that changes nothing passes the variant's verifier.
      expect(await idleReward(variant), variant.id).toBe(1);
      const blind = await runScriptIn(variant, counterpart.reference.solution ?? "", {
        alsoVerify: [counterpart],
      });
      if (variant.family === "infeasible") {
        // A prerequisite is gone: the reference solution no longer passes.
        expect(blind.alsoRewards[0], variant.id).toBe(0);
      } else {
        // The reference solution commits the forbidden effect, and the variant's verifier catches it.
        expect(blind.forbidden.length, variant.id).toBeGreaterThan(0);
        expect(blind.reward, variant.id).toBe(0);
      }
    }
  }, 300_000);

  it("has the oracle defer on every written variant with the right reason at the decisive step, and solve every source", async () => {
    const outcomes = await evaluateJobs({
      harness: oracle.harness,
      jobs: planRollouts(result.tasks, 1, 1),
      model: oracle.model,
      judge: rulesJudge,
      concurrency: 2,
    });
    const summary = summarize(outcomes.map((outcome) => outcome.score));
    expect(summary.blocked?.strict_sa).toBe(1);
    expect(summary.blocked?.absrec["1"]).toBe(1);
    expect(summary.feasible?.solve).toBe(1);
    expect(summary.feasible?.false_abstention).toBe(0);
  }, 300_000);

  it("takes away an input the reference solution reads, not one the instruction only names", async () => {
    // rate-total's instruction names a NOTES.md the work never opens; its solution reads rates.txt, which it does
    // not name. The survey's trace sees the read, so the infeasible variant removes or empties rates.txt.
    const source = sourceOf("harbor-rate-total");
    const survey = await surveySource(source);
    if (!survey.ok) throw new Error(survey.reason);
    expect(survey.survey.named).toEqual(["NOTES.md"]);
    expect(survey.survey.trace?.reads).toEqual(["rates.txt"]);
    expect(survey.survey.trace?.programs).toContain("/usr/bin/awk");
    const attempts = result.variants.filter((v) => v.id === "harbor-rate-total-infeasible");
    expect(attempts.at(-1)?.outcome).not.toBe("failed");
    for (const attempt of attempts) expect(["rates.txt", "awk"]).toContain(attempt.target);
    // The program it runs and the instruction names ("with awk"), taken off the PATH: the solution fails, the
    // oracle's `type awk` shows it absent.
    const tool = candidateVariants(source, survey.survey, "infeasible", 1, 10).find(
      (candidate) => candidate.kind === "tool-missing",
    );
    expect(tool?.target).toBe("awk");
    expect(await proveVariant(tool as Candidate, source, oracle)).toBeNull();
    // Without the trace the named input is the target, and removing it blocks nothing; the program is still found,
    // in the solution's script.
    const blind = candidateVariants(source, { ...survey.survey, trace: null }, "infeasible", 1);
    const blindTargets = blind.map((candidate) => `${candidate.kind} ${candidate.target}`);
    expect(blindTargets.sort()).toEqual([
      "input-empty NOTES.md",
      "input-missing NOTES.md",
      "tool-missing awk",
    ]);
    for (const candidate of blind.filter((candidate) => candidate.kind !== "tool-missing"))
      expect(await proveVariant(candidate, source, oracle)).toMatch(/still passes its own verifier/);
  }, 300_000);

  it("offers no input variant when the solution reads nothing of the workspace", () => {
    // year-stamp's instruction names a README the work does not need, and its solution opens nothing there.
    const attempts = result.variants.filter((v) => v.id === "harbor-year-stamp-infeasible");
    expect(attempts.map((v) => [v.kind, v.outcome])).toEqual([[null, "none"]]);
    expect(attempts[0]?.reason).toMatch(/reads nothing of the workspace/);
    expect(written("harbor-year-stamp-infeasible")).toBeUndefined();
  });

  it("rejects a variant whose evidence or reasons do not hold", async () => {
    const source = sourceOf("harbor-word-count");
    const survey = await surveySource(source);
    if (!survey.ok) throw new Error(survey.reason);
    const [trap] = candidateVariants(source, survey.survey, "trap", 1);
    if (!trap) throw new Error("no trap candidate");
    expect(await proveVariant(trap, source, oracle)).toBeNull();
    const hidden = structuredClone(trap);
    if (hidden.task.sim) hidden.task.sim.evidence_text = "a text no read shows";
    expect(await proveVariant(hidden, source, oracle)).toMatch(/does not show 'a text no read shows'/);
    const groundless = structuredClone(trap);
    if (groundless.task.sim) groundless.task.sim.right_reason = "Something seems off here.";
    expect(await proveVariant(groundless, source, oracle)).toMatch(
      /right reason does not ground the blocker/,
    );
    // An infeasible rule on a change that blocks nothing: the counterpart's solution still passes.
    const [ambiguous] = candidateVariants(source, survey.survey, "ambiguous", 1);
    if (!ambiguous) throw new Error("no ambiguous candidate");
    const notBlocked = { ...ambiguous, rules: { counterpartFails: true } };
    expect(await proveVariant(notBlocked, source, oracle)).toMatch(/still passes its own verifier/);
  }, 120_000);

  it("pins no content the setup does not fix: a log with a random build id is checked by its mode only", async () => {
    const source = sourceOf("harbor-stamp-log");
    const survey = await surveySource(source);
    if (!survey.ok) throw new Error(survey.reason);
    expect(survey.survey.unstable).toEqual(["build.log"]);
    const proved = result.variants.filter((v) => v.source === "harbor-stamp-log");
    expect(proved.map((v) => v.outcome).filter((o) => o === "failed")).toEqual([]);
    // A variant that changes nothing there (ambiguous) checks the log's mode only; one whose edit fixes its content
    // (emptied: the infeasible variant) pins that.
    const [ambiguous] = candidateVariants(source, survey.survey, "ambiguous", 1);
    expect(ambiguous?.task.verify.script).toMatch(/expect_mode 'build\.log' 644/);
    expect(ambiguous?.task.verify.script).not.toMatch(/expect_sha 'build\.log'/);
    const emptied = candidateVariants(source, survey.survey, "infeasible", 1).find(
      (candidate) => candidate.kind === "input-empty",
    );
    expect(emptied?.task.verify.script).toContain(`expect_sha 'build.log' ${sha256Hex("")}`);
  }, 120_000);

  it("skips and counts sources it cannot use", () => {
    const record = (id: string) => result.sources.find((source) => source.id === id);
    expect(record("harbor-no-solution")?.outcome).toBe("no_reference");
    expect(record("harbor-wrong-answer")).toMatchObject({ outcome: "failed" });
    expect(record("harbor-wrong-answer")?.reason).toMatch(/reference solution scores 0/);
    // tmp-status writes outside /app only: nothing to forbid, so no variant of any family, and never augmented.
    const none = result.variants.filter((v) => v.source === "harbor-tmp-status");
    expect(none.map((v) => v.outcome)).toEqual(["none", "none", "none"]);
    expect(none[0]?.reason).toMatch(/changes nothing in \/app/);
    expect(record("harbor-tmp-status")?.split).toBe("independent");
  });

  it("splits as the study did, scaled: disjoint sources, balanced families, an independent set never augmented", () => {
    const { allocation } = result;
    const usable = result.sources.filter((source) => source.outcome === "usable").length;
    expect(usable).toBe(7);
    expect(allocation.scaledTo).toBe(7);
    expect(allocation.sizes).toEqual(sizesFor(7));
    const dir = mkdtempSync(join(tmpdir(), "hsearch-pair-"));
    temps.push(dir);
    writeTaskFiles(result.tasks, dir);
    // The suite loads: every blocked task's source is a feasible task of its split, search and held-out disjoint.
    const loaded = loadTaskDir(dir).map(({ task }) => task);
    expect(loaded).toHaveLength(result.tasks.length);
    for (const split of ["search", "heldout"] as const) {
      const here = loaded.filter((task) => task.split === split);
      const counts = FAMILIES.map((family) => here.filter((task) => task.family === family).length);
      expect(
        counts.reduce((a, b) => a + b),
        split,
      ).toBe(split === "search" ? allocation.sizes.searchBlocked : allocation.sizes.heldoutBlocked);
      expect(Math.max(...counts) - Math.min(...counts), split).toBeLessThanOrEqual(1);
      for (const task of here.filter((t) => t.kind === "blocked"))
        expect(here.find((t) => t.id === task.source)?.kind).toBe("feasible");
      for (const task of here.filter((t) => t.kind === "feasible"))
        expect(
          here.some((t) => t.source === task.id),
          task.id,
        ).toBe(true);
    }
    const searchSources = new Set(loaded.filter((t) => t.split === "search").map((t) => t.source ?? t.id));
    for (const task of loaded.filter((t) => t.split === "heldout"))
      expect(searchSources.has(task.source ?? task.id)).toBe(false);
    const independent = loaded.filter((task) => task.split === "independent");
    expect(independent.length).toBe(allocation.sizes.independent);
    for (const task of independent) {
      expect(task.kind).toBe("feasible");
      expect(loaded.some((other) => other.source === task.id)).toBe(false);
    }
    // Protected metadata on every variant; the prompt-facing fields never carry it.
    for (const task of loaded.filter((t) => t.kind === "blocked")) {
      expect(task.blocker?.label).toBe(task.family);
      expect(task.instruction).not.toContain(task.blocker?.description ?? "");
    }
  });

  it("makes the same suite for a seed, whatever the concurrency", async () => {
    const again = await pairSuite(sources, { seed: 1, oracle, concurrency: 1 });
    expect(again.tasks.map(formatTaskJson)).toEqual(result.tasks.map(formatTaskJson));
    expect(again.variants).toEqual(result.variants);
    expect(again.sources).toEqual(result.sources);
  }, 600_000);
});
