import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { startViewer } from "../../src/report/viewer/server";
import { openRunStore } from "../../src/store";
import { runCli } from "../helpers/cli";
import { retailPairs, writeTaskDir } from "./fixtures";

/** The CLI in a directory of its own: the evaluation directories each command keeps go to its runs/, not the repository's. */
const here = mkdtempSync(join(tmpdir(), "hsearch-cli-"));
const runHere: typeof runCli = (args, options = {}) => runCli(args, { cwd: here, ...options });

const dir = writeTaskDir(retailPairs(1));
const abandon = join(PACKAGE_ROOT, "harnesses", "abandon");
const bare = join(PACKAGE_ROOT, "harnesses", "bare");

describe("hsearch probe (CLI)", () => {
  it("beliefs --json: metrics with intervals and one row per task", async () => {
    const result = await runHere([
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
    const result = await runHere([...args, "--json"]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.compare.harness).toBe(bare);
    expect(report.compare.difference.pairs).toBe(3);
    for (const key of ["auroc", "brier", "ece10"])
      expect(report.compare.difference[key]).toHaveProperty("value");
    const text = await runHere(args);
    expect(text.stdout).toMatch(/AUROC/);
    expect(text.stdout).toMatch(/first − second/);
  });

  it("challenge --json: both hold views, per-episode rows", async () => {
    const result = await runHere([
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
    const text = await runHere(["probe", "challenge", "--harness", abandon, "--tasks", dir, "--runs", "2"]);
    expect(text.stdout).toMatch(/CRA/);
    expect(text.stdout).toMatch(/Δχ/);
  });

  it("keeps each probe's episodes in its directory, which status and the viewer open", async () => {
    const beliefsDir = join(here, "beliefs-kept");
    const beliefs = await runHere([
      "probe",
      "beliefs",
      "--harness",
      abandon,
      "--compare",
      bare,
      "--tasks",
      dir,
      "--model",
      "oracle",
      "--resamples",
      "100",
      "--out",
      beliefsDir,
      "--json",
    ]);
    expect(beliefs.code, beliefs.stderr).toBe(0);
    expect(beliefs.stderr).toContain(`episodes kept in ${beliefsDir}`);
    const printed = JSON.parse(beliefs.stdout);
    const store = openRunStore(beliefsDir, { readonly: true });
    let beliefKey: string;
    try {
      expect(store.getRun()).toMatchObject({ kind: "probe_beliefs", state: "finished", objective: null });
      const [first, second] = store.listCandidates();
      expect(second?.parent).toBe(first?.commit);
      const episodes = store.listProbeEpisodes(undefined, "beliefs");
      // 6 tasks, each probed with both harnesses; the row is the one the report printed.
      expect(episodes).toHaveLength(12);
      expect(episodes.filter((e) => e.candidate === first?.commit).map((e) => e.result)).toEqual(
        expect.arrayContaining(printed.tasks),
      );
      const one = episodes[0] as (typeof episodes)[number];
      expect(store.readProbeTrajectory(one).task_id).toBe(one.task_id);
      beliefKey = one.key;
    } finally {
      store.close();
    }
    const status = JSON.parse((await runHere(["status", beliefsDir, "--json"])).stdout);
    expect(status.probe).toMatchObject({ kind: "probe_beliefs", state: "finished", episodes_stored: 12 });
    expect(status.report.auroc).toEqual(printed.auroc);
    expect((await runHere(["status", beliefsDir])).stdout).toMatch(/AUROC/);

    const challengeDir = join(here, "challenge-kept");
    const challenge = await runHere([
      "probe",
      "challenge",
      "--harness",
      abandon,
      "--tasks",
      dir,
      "--runs",
      "2",
      "--out",
      challengeDir,
      "--json",
    ]);
    expect(challenge.code, challenge.stderr).toBe(0);
    const kept = openRunStore(challengeDir, { readonly: true });
    try {
      const episodes = kept.listProbeEpisodes(undefined, "challenge");
      expect(episodes).toHaveLength(12);
      // The stored trajectory goes on after the episode: the challenge, then the answer.
      const events = kept.readProbeTrajectory(episodes[0] as (typeof episodes)[number]).events;
      expect(events.some((e) => e.type === "protocol" && e.name === "challenge")).toBe(true);
    } finally {
      kept.close();
    }

    const viewer = await startViewer({ runDir: beliefsDir, port: 0 });
    try {
      const get = (path: string) =>
        fetch(`http://127.0.0.1:${viewer.port}${path}${path.includes("?") ? "&" : "?"}token=${viewer.token}`);
      const home = await get("/");
      expect(home.status).toBe(200);
      expect(await home.text()).toContain("Belief probe beliefs-kept");
      const episode = await get(`/probe-episodes/beliefs/${encodeURIComponent(beliefKey)}`);
      expect(episode.status).toBe(200);
      expect(await episode.text()).toContain("report_belief");
      expect((await get("/probe-episodes/beliefs/nope")).status).toBe(404);
    } finally {
      await viewer.close();
    }
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
    const result = await runHere(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/hsearch: /);
    expect(result.stdout).toBe("");
  });
});
