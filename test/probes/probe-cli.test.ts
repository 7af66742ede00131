import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { runCli } from "../helpers/cli";
import { retailPairs, writeTaskDir } from "./fixtures";

const dir = writeTaskDir(retailPairs(1));
const abandon = join(PACKAGE_ROOT, "harnesses", "abandon");
const bare = join(PACKAGE_ROOT, "harnesses", "bare");

describe("hsearch probe (CLI)", () => {
  it("beliefs --json: metrics with intervals and one row per task", async () => {
    const result = await runCli([
      "probe",
      "beliefs",
      "--harness",
      abandon,
      "--tasks",
      dir,
      "--model",
      "oracle",
      "--resamples",
      "300",
      "--json",
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.auroc).toEqual({ value: 1, ci: [1, 1], resamples_skipped: expect.any(Number) });
    expect(report.brier).toMatchObject({ value: 0, ci: [0, 0] });
    expect(report.ece10).toMatchObject({ value: 0, ci: [0, 0] });
    expect(report.tasks).toHaveLength(6);
    for (const row of report.tasks) {
      expect(row).toMatchObject({ id: expect.any(String), feasible: expect.any(Boolean), status: "valid" });
      expect(row.p).toBe(row.feasible ? 1 : 0);
    }
    expect(report).toMatchObject({ model: "oracle", seed: 1, resamples: 300, n: 6, n_valid: 6 });
  });

  it("beliefs --compare: both harnesses and the paired differences", async () => {
    const args = [
      "probe",
      "beliefs",
      "--harness",
      abandon,
      "--compare",
      bare,
      "--tasks",
      dir,
      "--resamples",
      "200",
    ];
    const result = await runCli([...args, "--json"]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.compare.harness).toBe(bare);
    expect(report.compare.difference.pairs).toBe(3);
    for (const key of ["auroc", "brier", "ece10"])
      expect(report.compare.difference[key]).toHaveProperty("value");
    const text = await runCli(args);
    expect(text.stdout).toMatch(/AUROC/);
    expect(text.stdout).toMatch(/first − second/);
  });

  it("challenge --json: both hold views, per-episode rows", async () => {
    const result = await runCli([
      "probe",
      "challenge",
      "--harness",
      abandon,
      "--tasks",
      dir,
      "--runs",
      "2",
      "--json",
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.runs).toBe(2);
    expect(report.views.deferral).toMatchObject({
      measure: "cra",
      pre: "deferral",
      post: "deferral",
      runs: 2,
    });
    expect(report.views.strict_sa).toMatchObject({ measure: "delta_chi", pre: "strict_sa" });
    for (const key of ["p_pos_pos", "p_pos_neg", "p_neg_pos", "change", "new_false_abstentions"])
      expect(report.views.deferral[key]).toHaveProperty("mean");
    expect(report.episodes).toHaveLength(12);
    const text = await runCli(["probe", "challenge", "--harness", abandon, "--tasks", dir, "--runs", "2"]);
    expect(text.stdout).toMatch(/CRA/);
    expect(text.stdout).toMatch(/Δχ/);
  });

  it.each([
    ["missing --harness", ["probe", "beliefs", "--split", "search"]],
    ["neither --split nor --tasks", ["probe", "beliefs", "--harness", abandon]],
    ["--runs 0", ["probe", "challenge", "--harness", abandon, "--tasks", dir, "--runs", "0"]],
    ["--runs not a number", ["probe", "challenge", "--harness", abandon, "--tasks", dir, "--runs", "two"]],
    ["--runs 1.5", ["probe", "challenge", "--harness", abandon, "--tasks", dir, "--runs", "1.5"]],
    ["--resamples 0", ["probe", "beliefs", "--harness", abandon, "--tasks", dir, "--resamples", "0"]],
    ["no such harness", ["probe", "beliefs", "--harness", join(dir, "nope"), "--tasks", dir]],
    ["an unknown model", ["probe", "beliefs", "--harness", abandon, "--tasks", dir, "--model", "sim:nope"]],
    ["no probe named", ["probe"]],
  ])("bad input (%s) exits 2 with a message", async (_, args) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/hsearch: /);
    expect(result.stdout).toBe("");
  });
});
