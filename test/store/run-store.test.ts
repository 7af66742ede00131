import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { isHsearchError } from "../../src/core/errors";
import { summarize } from "../../src/scoring/summary";
import { SUMMARY_FORMAT } from "../../src/scoring/summary-schema";
import { createRunDir, openRunStore } from "../../src/store";
import { caught, hsearchErrorOf } from "../helpers/errors";
import {
  addSeedAndProposal,
  episodeScore,
  newStore,
  PROPOSAL,
  rollout,
  SEED,
  summary,
  tempDir,
  tickingClock,
  trajectory,
} from "./fixtures";

describe("run directory", () => {
  it("creates runs/<id>/ with a trajectories folder and refuses an existing one", () => {
    const root = tempDir();
    const paths = createRunDir(root, "20261129-2301-demo-abcd");
    expect(paths.db).toBe(join(root, "20261129-2301-demo-abcd", "run.db"));
    expect(paths.harness).toBe(join(paths.dir, "harness"));
    expect(paths.report).toBe(join(paths.dir, "report.html"));
    expect(existsSync(paths.trajectories)).toBe(true);
    expect(
      isHsearchError(
        caught(() => createRunDir(root, "20261129-2301-demo-abcd")),
        "conflict",
      ),
    ).toBe(true);
    expect(
      isHsearchError(
        caught(() => createRunDir(root, "../escape")),
        "bad_input",
      ),
    ).toBe(true);
  });
});

describe("run and candidates", () => {
  it("records the run once and accepts the same run again on resume", () => {
    const store = newStore();
    const run = store.initRun({
      id: "r",
      name: "demo",
      config: { b: 1, a: [1, 2] },
      seed: 7,
      objective: "sa-only",
    });
    expect(run).toMatchObject({
      id: "r",
      seed: 7,
      objective: "sa-only",
      state: "running",
      config: { a: [1, 2], b: 1 },
    });
    expect(
      store.initRun({ id: "r", name: "demo", config: { a: [1, 2], b: 1 }, seed: 7, objective: "sa-only" }),
    ).toEqual(run);
    const changed = caught(() =>
      store.initRun({ id: "r", name: "demo", config: { a: 1 }, seed: 7, objective: "joint" }),
    );
    expect(isHsearchError(changed, "conflict")).toBe(true);
    store.setRunState("failed", "provider down");
    expect(store.getRun()).toMatchObject({ state: "failed", error: "provider down" });
    expect(store.getRun()?.ended_at).not.toBeNull();
    store.setRunState("running");
    expect(store.getRun()).toMatchObject({ state: "running", ended_at: null, error: null });
  });

  it("adds candidates idempotently and refuses a different one in the same slot", () => {
    const store = newStore();
    addSeedAndProposal(store);
    addSeedAndProposal(store);
    expect(store.listCandidates().map((candidate) => candidate.commit)).toEqual([SEED, PROPOSAL]);
    const other = {
      commit: "c".repeat(40),
      round: 1,
      proposal: 0,
      parent: SEED,
      branch: "round-1/p0",
      proposer: "operators",
      rationale: "Other.",
      tree_hash: "v".repeat(40),
    };
    expect(
      isHsearchError(
        caught(() => store.addCandidate(other)),
        "conflict",
      ),
    ).toBe(true);
    const changed = caught(() => store.addCandidate({ ...other, commit: PROPOSAL }));
    expect(isHsearchError(changed, "conflict")).toBe(true);
  });

  it("stores outcomes, and remembers rejected, invalid, duplicate and uncommitted proposals", () => {
    const store = newStore();
    addSeedAndProposal(store);
    store.setCandidateOutcome(SEED, { state: "evaluated", score: 0.41, summary: summary(4) });
    store.setCandidateOutcome(PROPOSAL, { state: "rejected", score: 0.39, rejected_reason: "0.39 <= 0.41" });
    store.recordProposalFailure({
      round: 1,
      proposal: 1,
      proposer: "llm",
      rationale: "Edit ../x",
      reason: "harness path '../x' refused",
    });
    store.recordProposalFailure({
      round: 1,
      proposal: 1,
      proposer: "llm",
      rationale: "again",
      reason: "again",
    });
    expect(store.getCandidate(SEED)).toMatchObject({
      state: "evaluated",
      score: 0.41,
      summary: summary(4),
    });
    expect(store.searchView().rejectedProposals()).toEqual([
      {
        round: 1,
        proposal: 0,
        commit: PROPOSAL,
        proposer: "operators",
        rationale: "Distil a rule.",
        outcome: "rejected",
        reason: "0.39 <= 0.41",
        score: 0.39,
      },
      {
        round: 1,
        proposal: 1,
        commit: null,
        proposer: "llm",
        rationale: "Edit ../x",
        outcome: "failed",
        reason: "harness path '../x' refused",
        score: null,
      },
    ]);
    expect(
      isHsearchError(
        caught(() => store.setCandidateOutcome("d".repeat(40), { state: "invalid" })),
        "not_found",
      ),
    ).toBe(true);
  });

  it("tracks rounds: start is idempotent, a different incumbent is a conflict", () => {
    const store = newStore();
    addSeedAndProposal(store);
    store.startRound(1, SEED);
    expect(store.startRound(1, SEED).incumbent_before).toBe(SEED);
    expect(
      isHsearchError(
        caught(() => store.startRound(1, PROPOSAL)),
        "conflict",
      ),
    ).toBe(true);
    store.finishRound(1, {
      incumbent_after: PROPOSAL,
      accepted_commit: PROPOSAL,
      decision: { rule: "greater" },
    });
    expect(store.listRounds()).toMatchObject([
      { round: 1, incumbent_before: SEED, incumbent_after: PROPOSAL, accepted_commit: PROPOSAL },
    ]);
    expect(store.getRound(1)?.decision).toEqual({ rule: "greater" });
    expect(
      isHsearchError(
        caught(() => store.finishRound(2, { incumbent_after: SEED, accepted_commit: null, decision: {} })),
        "not_found",
      ),
    ).toBe(true);
  });
});

describe("rollouts", () => {
  it("stores a batch with columns from the trajectory and reads each trajectory back", () => {
    const store = newStore();
    addSeedAndProposal(store);
    const batch = [
      rollout(SEED, "t1"),
      rollout(SEED, "t2", { trajectory: { kind: "feasible", family: undefined } }),
    ];
    expect(store.recordRollouts(SEED, batch)).toEqual({ inserted: 2, skipped: 0 });
    const stored = store.listRollouts(SEED, "search");
    expect(
      stored.map((row) => [row.task_id, row.kind, row.family, row.steps, row.usd, row.end_reason]),
    ).toEqual([
      ["t1", "blocked", "trap", 4, 0.002, "deferred"],
      ["t2", "feasible", null, 4, 0.002, "deferred"],
    ]);
    expect(stored.map((row) => row.scores)).toEqual(batch.map((entry) => entry.scores));
    expect(store.readTrajectory(stored[1] as (typeof stored)[number])).toEqual(batch[1]?.trajectory);
    expect(stored[0]?.trajectory_file).toBe(`trajectories/${SEED}.jsonl`);
  });

  it("is idempotent: the same keys recorded again are neither stored nor appended twice", () => {
    const store = newStore();
    addSeedAndProposal(store);
    store.recordRollouts(SEED, [rollout(SEED, "t1"), rollout(SEED, "t2")]);
    const file = join(store.paths.dir, `trajectories/${SEED}.jsonl`);
    const before = readFileSync(file, "utf8");
    expect(
      store.recordRollouts(SEED, [rollout(SEED, "t1"), rollout(SEED, "t2"), rollout(SEED, "t3")]),
    ).toEqual({
      inserted: 1,
      skipped: 2,
    });
    expect(store.countRollouts("search")).toBe(3);
    const after = readFileSync(file, "utf8");
    expect(after.startsWith(before)).toBe(true);
    expect(after.split("\n").filter((line) => line.length > 0)).toHaveLength(3);
    expect(store.rolloutKeys(SEED, "search")).toEqual(
      new Set(["t1", "t2", "t3"].map((task) => rollout(SEED, task).key)),
    );
  });

  it("keeps held-out rollouts of the same key apart from diagnostics, in their own files", () => {
    const store = newStore();
    addSeedAndProposal(store);
    store.recordRollouts(SEED, [rollout(SEED, "h1", { purpose: "diagnostic" })]);
    expect(store.recordRollouts(SEED, [rollout(SEED, "h1", { purpose: "heldout" })])).toEqual({
      inserted: 1,
      skipped: 0,
    });
    expect(store.listRollouts(SEED).map((row) => [row.purpose, row.trajectory_file])).toEqual([
      ["diagnostic", `trajectories/${SEED}.diagnostic.jsonl`],
      ["heldout", `trajectories/${SEED}.heldout.jsonl`],
    ]);
  });

  it("refuses a batch with a wrong purpose/split pair, an unknown candidate or a repeated key, writing nothing", () => {
    const store = newStore();
    addSeedAndProposal(store);
    const leak = rollout(SEED, "h1", { purpose: "search", split: "heldout" });
    expect(
      isHsearchError(
        caught(() => store.recordRollouts(SEED, [rollout(SEED, "t1"), leak])),
        "bad_input",
      ),
    ).toBe(true);
    const twice = [rollout(SEED, "t1"), rollout(SEED, "t1")];
    expect(
      isHsearchError(
        caught(() => store.recordRollouts(SEED, twice)),
        "bad_input",
      ),
    ).toBe(true);
    const unknown = "d".repeat(40);
    expect(
      isHsearchError(
        caught(() => store.recordRollouts(unknown, [rollout(unknown, "t1")])),
        "not_found",
      ),
    ).toBe(true);
    expect(store.countRollouts()).toBe(0);
    expect(existsSync(join(store.paths.dir, `trajectories/${SEED}.jsonl`))).toBe(false);
  });

  it("records an infrastructure error from the trajectory's end", () => {
    const store = newStore();
    addSeedAndProposal(store);
    const failed = rollout(SEED, "t1", {
      trajectory: { end: { reason: "infra_error", step: 2, error: "HTTP 503" }, reward: null },
    });
    store.recordRollouts(SEED, [failed]);
    expect(store.listRollouts(SEED)[0]).toMatchObject({
      infra_error: "HTTP 503",
      reward: null,
      end_reason: "infra_error",
    });
  });
});

describe("evaluations, usage and events", () => {
  it("stores held-out and independent summaries, replacing on resume", () => {
    const store = newStore();
    addSeedAndProposal(store);
    store.putEvaluation({
      candidate: PROPOSAL,
      purpose: "heldout",
      split: "heldout",
      round: null,
      summary: summary(5, { objective: 0.5 }),
    });
    store.putEvaluation({
      candidate: PROPOSAL,
      purpose: "heldout",
      split: "heldout",
      round: null,
      summary: summary(5, { objective: 0.55 }),
    });
    store.putEvaluation({
      candidate: SEED,
      purpose: "independent",
      split: "independent",
      round: null,
      summary: summary(7, { objective: null, role: "seed" }),
    });
    expect(store.getEvaluation(PROPOSAL, "heldout", "heldout")?.summary).toEqual(
      summary(5, { objective: 0.55 }),
    );
    expect(store.listEvaluations().map((row) => [row.purpose, row.candidate])).toEqual([
      ["heldout", PROPOSAL],
      ["independent", SEED],
    ]);
  });

  it("sums usage by role and model over sessions; a session's rows are replaced, unknown cost stays unknown", () => {
    const store = newStore();
    const row = (role: string, model: string, calls: number, usd: number | null) => ({
      role,
      model,
      calls,
      cached_calls: 1,
      input_tokens: 100 * calls,
      output_tokens: 10 * calls,
      cache_read_tokens: 5,
      cache_write_tokens: 0,
      usd,
    });
    const first = store.beginUsageSession();
    store.putSessionUsage(first, [row("agent", "openai:a", 1, 0.001)]);
    // The same session later: its totals so far replace the earlier snapshot.
    store.putSessionUsage(first, [row("agent", "openai:a", 3, 0.003), row("proposer", "openai:p", 1, 0.01)]);
    const second = store.beginUsageSession();
    expect(second).toBe(first + 1);
    store.putSessionUsage(second, [row("agent", "openai:a", 2, 0.002), row("judge", "openai:x", 1, null)]);
    expect(store.usageTotals()).toEqual([
      {
        ...row("agent", "openai:a", 5, 0.005),
        cached_calls: 2,
        cache_read_tokens: 10,
        usd: expect.closeTo(0.005, 10),
      },
      row("judge", "openai:x", 1, null),
      row("proposer", "openai:p", 1, 0.01),
    ]);
    expect(store.totalUsd()).toBeCloseTo(0.015, 10);
    expect(store.totalUsd(second)).toBeCloseTo(0.013, 10);
    // The proposer's call log keeps a keyed call once.
    const call = {
      role: "proposer",
      model: "openai:p",
      round: 1,
      call_key: "r1p",
      input_tokens: 9,
      output_tokens: 3,
      usd: 0.01,
    };
    expect(store.recordModelCall(call)).toBe(true);
    expect(store.recordModelCall(call)).toBe(false);
  });

  it("a finished run told it is finished again keeps its end time", () => {
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const store = newStore({ clock: () => new Date(clock) });
    store.initRun({ id: "r", name: "demo", config: {}, seed: 1, objective: "joint" });
    store.setRunState("finished");
    const ended = store.getRun()?.ended_at;
    clock += 60_000;
    store.setRunState("finished");
    expect(store.getRun()?.ended_at).toBe(ended);
    store.setRunState("running");
    expect(store.getRun()?.ended_at).toBeNull();
  });

  it("logs events in order and lists those after an id", () => {
    const store = newStore();
    const first = store.logEvent({ kind: "early_stop", data: { round: 1, patience: 2 } });
    store.logEvent({ kind: "round", data: { round: 1, incumbent: "abc", score: 0.5, accepted: null } });
    expect(store.listEvents().map((event) => event.kind)).toEqual(["early_stop", "round"]);
    expect(store.listEvents({ afterId: first })).toMatchObject([{ kind: "round", data: { score: 0.5 } }]);
  });

  it("runs several calls in one transaction that rolls back as a whole", () => {
    const store = newStore();
    addSeedAndProposal(store);
    expect(() =>
      store.transaction(() => {
        store.setCandidateOutcome(PROPOSAL, { state: "evaluated", score: 0.6 });
        store.startRound(1, "e".repeat(40));
      }),
    ).toThrow(/FOREIGN KEY/);
    expect(store.getCandidate(PROPOSAL)?.state).toBe("pending");
  });
});

describe("contentHash", () => {
  function fillRun(clockStart: string, resumeMidway: boolean): string {
    const dir = createRunDir(tempDir(), "run").dir;
    let store = openRunStore(dir, { clock: tickingClock(clockStart) });
    addSeedAndProposal(store);
    store.logEvent({ kind: "config", data: { file: null } });
    store.recordRollouts(SEED, [rollout(SEED, "t1")]);
    if (resumeMidway) {
      // A crash after the trajectory line was fsynced but before its row committed leaves an orphan line.
      store.appendTrajectories(SEED, "search", [
        { key: rollout(SEED, "t2").key, trajectory: rollout(SEED, "t2").trajectory },
      ]);
      store.close();
      store = openRunStore(dir, { clock: tickingClock("2030-01-01T00:00:00Z") });
      addSeedAndProposal(store);
    }
    store.recordRollouts(SEED, [rollout(SEED, "t1"), rollout(SEED, "t2")]);
    store.setCandidateOutcome(SEED, { state: "evaluated", score: 0.5 });
    const hash = store.contentHash();
    store.close();
    return hash;
  }

  it("is equal for an interrupted-and-resumed run and an uninterrupted one, whatever the clock", () => {
    expect(fillRun("2026-01-01T00:00:00Z", true)).toBe(fillRun("2027-06-01T00:00:00Z", false));
  });

  it("changes when a result changes", () => {
    const store = newStore();
    addSeedAndProposal(store);
    const before = store.contentHash();
    store.setCandidateOutcome(SEED, { state: "evaluated", score: 0.5 });
    expect(store.contentHash()).not.toBe(before);
  });
});

describe("the typed read boundary", () => {
  /** A store with one search rollout of the seed, and a raw connection to its run.db. */
  function storeWithRollout() {
    const store = newStore();
    addSeedAndProposal(store);
    store.recordRollouts(SEED, [rollout(SEED, "t1")]);
    const raw = new Database(store.paths.db);
    return { store, raw, close: () => raw.close() };
  }

  it("refuses a rollout whose scores are not JSON or not a score, naming run.db and the record", () => {
    const { store, raw, close } = storeWithRollout();
    const key = store.listRollouts(SEED, "search")[0]?.key ?? "";
    raw.prepare("UPDATE rollouts SET scores_json = ? WHERE key = ?").run("{not json", key);
    const notJson = hsearchErrorOf(() => store.listRollouts(SEED, "search"));
    expect(notJson.code).toBe("bad_input");
    expect(notJson.location.file).toBe(store.paths.db);
    expect(notJson.message).toBe(
      `run.db is damaged: rollout search/${key}: scores_json is not JSON; the run was left as it is`,
    );
    raw.prepare("UPDATE rollouts SET scores_json = ? WHERE key = ?").run('{"kind": "blocked"}', key);
    expect(hsearchErrorOf(() => store.searchView().rollouts(SEED)).message).toMatch(
      new RegExp(`^run\\.db is damaged: rollout search/${key}: scores_json at task_id: `),
    );
    close();
  });

  it("writes summaries with their format and reads them back without it; an unversioned one of format 1's shape reads", () => {
    const { store, raw, close } = storeWithRollout();
    store.setCandidateOutcome(SEED, { state: "evaluated", score: 0.5, summary: summary(3) });
    const column = () =>
      JSON.parse(
        (
          raw.prepare("SELECT summary_json FROM candidates WHERE commit_sha = ?").get(SEED) as {
            summary_json: string;
          }
        ).summary_json,
      );
    expect(column().format).toBe(SUMMARY_FORMAT);
    expect(store.getCandidate(SEED)?.summary).toEqual(summary(3));
    // Written before summaries were versioned: no format member, format 1's fields (timely_recall, no absrec1/3),
    // read as format 2 (AbsRec@1 and @3 from the AbsRec table).
    const withBlocked = summarize([episodeScore(trajectory("t1")), episodeScore(trajectory("t2"))]);
    const { blocked, ...rest } = withBlocked;
    if (!blocked) throw new Error("the fixture has blocked episodes");
    const v1 = (rates: Record<string, unknown>) => {
      const { absrec1, absrec3, ...others } = rates;
      return { ...others, timely_recall: absrec1 };
    };
    const { by_family, ...all } = blocked;
    const formatOne = {
      ...rest,
      blocked: {
        ...v1(all),
        by_family: Object.fromEntries(Object.entries(by_family).map(([f, r]) => [f, r && v1(r)])),
      },
    };
    raw
      .prepare("UPDATE candidates SET summary_json = ? WHERE commit_sha = ?")
      .run(JSON.stringify(formatOne), SEED);
    expect(store.getCandidate(SEED)?.summary).toEqual(withBlocked);
    expect(store.getCandidate(SEED)?.summary).toMatchObject({ blocked: { absrec1: 0, absrec3: 1 } });
    raw
      .prepare("UPDATE candidates SET summary_json = ? WHERE commit_sha = ?")
      .run(JSON.stringify({ ...formatOne, format: 1 }), SEED);
    expect(store.getCandidate(SEED)?.summary).toEqual(withBlocked);
    close();
  });

  it("refuses a summary with a changed field or a later format, naming run.db, the record and the field", () => {
    const { store, raw, close } = storeWithRollout();
    store.setCandidateOutcome(SEED, { state: "evaluated", score: 0.5, summary: summary(3) });
    const { n_scored, ...rest } = summary(3);
    const write = (value: object) =>
      raw
        .prepare("UPDATE candidates SET summary_json = ? WHERE commit_sha = ?")
        .run(JSON.stringify(value), SEED);
    // A build that called `n_scored` `scored`: read as undefined before, an error now.
    write({ ...rest, scored: n_scored, format: 1 });
    const renamed = hsearchErrorOf(() => store.getCandidate(SEED));
    expect(renamed.code).toBe("bad_input");
    expect(renamed.location).toMatchObject({ file: store.paths.db, field: "summary_json.n_scored" });
    expect(renamed.message).toMatch(
      new RegExp(`^run\\.db is damaged: candidate ${SEED}: summary_json at n_scored: `),
    );
    // The same through the search view (what a proposer reads).
    expect(hsearchErrorOf(() => store.searchView().candidates()).location.field).toBe(
      "summary_json.n_scored",
    );
    write({ ...summary(3), format: 3 });
    const later = hsearchErrorOf(() => store.listCandidates());
    expect(later.location).toMatchObject({ file: store.paths.db, field: "summary_json.format" });
    expect(later.message).toContain("summary_json has format 3; this hsearch reads formats 1 and 2");

    write(summary(3));
    store.putEvaluation({
      candidate: SEED,
      purpose: "heldout",
      split: "heldout",
      round: null,
      summary: summary(2),
    });
    raw
      .prepare("UPDATE evaluations SET summary_json = ? WHERE candidate_commit = ?")
      .run(JSON.stringify({ ...summary(2), blocked: { n: 2 } }), SEED);
    const evaluation = hsearchErrorOf(() => store.listEvaluations());
    expect(evaluation.location.field).toBe("summary_json.blocked.m0");
    expect(evaluation.message).toContain(`evaluation ${SEED} heldout/heldout: summary_json at blocked.m0`);
    close();
  });

  it("refuses a run whose objective is not one of the objectives", () => {
    const { store, raw, close } = storeWithRollout();
    raw.prepare("UPDATE run SET objective = 'speed'").run();
    const error = hsearchErrorOf(() => store.getRun());
    expect(error.message).toMatch(/^run\.db is damaged: run: objective: /);
    expect(error.location.file).toBe(store.paths.db);
    close();
  });
});

describe("rejected parameters", () => {
  const temperature = {
    model: "openai:prod-gpt-5-mini",
    role: "agent" as const,
    parameter: "temperature",
    replacement: null,
    message: "Unsupported value: 'temperature' does not support 0 with this model.",
  };
  const maxTokens = {
    ...temperature,
    role: "judge" as const,
    parameter: "max_tokens",
    replacement: "max_completion_tokens",
  };

  it("keeps one row per model and parameter, in the order learnt, for a reader opened later", () => {
    const store = newStore();
    expect(store.recordRejectedParameter(temperature)).toBe(true);
    expect(store.recordRejectedParameter(maxTokens)).toBe(true);
    expect(store.recordRejectedParameter({ ...temperature, role: "customer" })).toBe(false);
    expect(store.rejectedParameters()).toEqual([temperature, maxTokens]);
    store.close();
    const reader = openRunStore(store.paths.dir, { readonly: true });
    expect(reader.rejectedParameters()).toEqual([temperature, maxTokens]);
    reader.close();
  });

  it("refuses a row whose role is not a model role, naming run.db", () => {
    const store = newStore();
    store.recordRejectedParameter(temperature);
    const raw = new Database(store.paths.db);
    raw.prepare("UPDATE rejected_parameters SET role = 'boss'").run();
    raw.close();
    const error = hsearchErrorOf(() => store.rejectedParameters());
    expect(error.message).toMatch(
      /^run\.db is damaged: rejected parameter openai:prod-gpt-5-mini temperature at role: /,
    );
    store.close();
  });
});
