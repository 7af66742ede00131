import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { isHsearchError } from "../../src/core/errors";
import type { SuiteName } from "../../src/domain/task";
import { createRunDir, MIGRATIONS, openRunStore } from "../../src/store";
import { caught } from "../helpers/errors";
import { addSeedAndProposal, rollout, SEED, tempDir } from "./fixtures";

function runDir(): string {
  return createRunDir(tempDir(), "run-1").dir;
}

describe("migrations", () => {
  it("creates the whole schema on an empty run directory, in WAL mode with foreign keys on", () => {
    const dir = runDir();
    const store = openRunStore(dir);
    expect(store.schemaVersion()).toBe(MIGRATIONS.length);
    store.close();
    const db = new Database(join(dir, "run.db"), { readonly: true });
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>
    )
      .map((row) => row.name)
      .filter((name) => !name.startsWith("sqlite_"));
    expect(tables.sort()).toEqual(
      [
        "candidates",
        "evaluations",
        "events",
        "model_calls",
        "probe_episodes",
        "proposal_failures",
        "rejected_parameters",
        "role_usage",
        "rollouts",
        "rounds",
        "run",
        "schema_version",
      ].sort(),
    );
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  it("enforces foreign keys: a rollout or round cannot name an unknown candidate", () => {
    const store = openRunStore(runDir());
    expect(() => store.startRound(1, "f".repeat(40))).toThrow(/FOREIGN KEY/);
    store.close();
  });

  it("migrates an older database step by step and keeps its data", () => {
    const dir = runDir();
    const v1 = ["CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)"];
    const v2 = [...v1, "ALTER TABLE notes ADD COLUMN tag TEXT NOT NULL DEFAULT 'none'"];
    openRunStore(dir, { migrations: v1 }).close();
    const raw = new Database(join(dir, "run.db"));
    raw.prepare("INSERT INTO notes (text) VALUES ('kept')").run();
    raw.close();
    const store = openRunStore(dir, { migrations: v2 });
    expect(store.schemaVersion()).toBe(2);
    store.close();
    const db = new Database(join(dir, "run.db"), { readonly: true });
    expect(db.prepare("SELECT text, tag FROM notes").all()).toEqual([{ text: "kept", tag: "none" }]);
    expect(db.prepare("SELECT version FROM schema_version ORDER BY version").all()).toEqual([
      { version: 1 },
      { version: 2 },
    ]);
    db.close();
  });

  it("an older run's usage is carried into role_usage: the agent from its rollouts, the rest from model_calls", () => {
    const dir = runDir();
    openRunStore(dir, { migrations: MIGRATIONS.slice(0, 3) }).close();
    const raw = new Database(join(dir, "run.db"));
    raw
      .prepare(
        `INSERT INTO candidates (commit_sha, round, proposal, branch, proposer, rationale, tree_hash, created_at)
         VALUES ('c', 0, 0, 'main', 'seed', 'seed', 't', 'x')`,
      )
      .run();
    const rollout = raw.prepare(
      `INSERT INTO rollouts (key, purpose, candidate_commit, task_id, split, kind, model, seed, repeat, scores_json,
         end_reason, steps, input_tokens, output_tokens, usd, model_calls, trajectory_file, trajectory_offset,
         trajectory_length, trajectory_sha256, created_at)
       VALUES (?, 'search', 'c', ?, 'search', 'feasible', 'openai:a', 1, 0, '{}', 'done', 1, 100, 10, 0.5, 2,
         'f', 0, 1, 'h', 'x')`,
    );
    rollout.run("k1", "t1");
    rollout.run("k2", "t2");
    raw
      .prepare(
        `INSERT INTO model_calls (role, model, input_tokens, output_tokens, usd, created_at)
         VALUES ('proposer', 'openai:p', 900, 300, 0.25, 'x')`,
      )
      .run();
    raw.close();
    const store = openRunStore(dir);
    expect(store.usageTotals()).toEqual([
      {
        role: "agent",
        model: "openai:a",
        calls: 4,
        cached_calls: 0,
        input_tokens: 200,
        output_tokens: 20,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        usd: 1,
      },
      {
        role: "proposer",
        model: "openai:p",
        calls: 1,
        cached_calls: 0,
        input_tokens: 900,
        output_tokens: 300,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        usd: 0.25,
      },
    ]);
    // A resumed old run starts a session after the carried-over one.
    expect(store.beginUsageSession()).toBe(1);
    store.close();
  });

  it("a run from before evaluations were stored reads back as a search with its objective; an evaluation has none", () => {
    const dir = runDir();
    const old = openRunStore(dir, { migrations: MIGRATIONS.slice(0, 5) });
    const raw = new Database(join(dir, "run.db"));
    raw
      .prepare(
        `INSERT INTO run (singleton, id, name, created_at, config_json, config_hash, seed, objective, state, active_ms)
         VALUES (1, 'run-1', 'old', 'x', '{}', 'h', 3, 'sa-only', 'finished', 12)`,
      )
      .run();
    raw.close();
    old.close();
    const store = openRunStore(dir);
    expect(store.getRun()).toMatchObject({
      id: "run-1",
      kind: "search",
      objective: "sa-only",
      seed: 3,
      active_ms: 12,
    });
    store.close();
    const evaluation = openRunStore(createRunDir(tempDir(), "eval-1").dir);
    expect(
      evaluation.initRun({ id: "eval-1", kind: "eval", name: "e", config: { a: 1 }, seed: 1 }),
    ).toMatchObject({
      kind: "eval",
      objective: null,
    });
    // The same directory resumed as another kind is a conflict, not a silent mix of records.
    expect(() =>
      evaluation.initRun({ id: "eval-1", name: "e", config: { a: 1 }, seed: 1, objective: "joint" }),
    ).toThrow(/holds run eval-1/);
    evaluation.close();
  });

  it("rolls back a failing migration as a whole", () => {
    const dir = runDir();
    const broken = ["CREATE TABLE a (x INTEGER)", "CREATE TABLE b (y INTEGER); SELECT * FROM missing_table"];
    expect(() => openRunStore(dir, { migrations: broken })).toThrow(/missing_table/);
    const db = new Database(join(dir, "run.db"), { readonly: true });
    expect(db.prepare("SELECT MAX(version) AS v FROM schema_version").get()).toEqual({ v: 1 });
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'b'").get()).toBeUndefined();
    db.close();
  });

  it("refuses a database newer than the code with a conflict", () => {
    const dir = runDir();
    openRunStore(dir, { migrations: [...MIGRATIONS, "CREATE TABLE future (x INTEGER)"] }).close();
    const error = caught(() => openRunStore(dir));
    expect(isHsearchError(error, "conflict")).toBe(true);
    expect((error as Error).message).toContain(`schema version ${MIGRATIONS.length + 1}`);
    expect(
      isHsearchError(
        caught(() => openRunStore(dir, { readonly: true })),
        "conflict",
      ),
    ).toBe(true);
  });

  it("a rollout stored before rollouts had a suite column reads its suite from its trajectory line", () => {
    const dir = runDir();
    const store = openRunStore(dir);
    addSeedAndProposal(store);
    // Named like a retail task, but its trajectory says terminal: the suite is read, never guessed from the id.
    store.recordRollouts(SEED, [
      rollout(SEED, "retail-lookalike", { trajectory: { suite: "terminal" } }),
      rollout(SEED, "acme-1", { trajectory: { suite: "acme" as SuiteName } }),
    ]);
    store.close();
    const raw = new Database(join(dir, "run.db"));
    expect(raw.prepare("SELECT suite FROM rollouts ORDER BY task_id").all()).toEqual([
      { suite: "acme" },
      { suite: "terminal" },
    ]);
    // The database as the previous schema version wrote it: no suite column.
    raw.exec(
      `ALTER TABLE rollouts DROP COLUMN suite; DELETE FROM schema_version WHERE version = ${MIGRATIONS.length}`,
    );
    raw.close();
    const suites = (reader: ReturnType<typeof openRunStore>) =>
      reader.listRollouts(SEED).map((r) => [r.task_id, r.suite]);
    const expected = [
      ["acme-1", "acme"],
      ["retail-lookalike", "terminal"],
    ];
    const readOnly = openRunStore(dir, { readonly: true });
    expect(suites(readOnly)).toEqual(expected);
    readOnly.close();
    const migrated = openRunStore(dir);
    expect(migrated.schemaVersion()).toBe(MIGRATIONS.length);
    expect(suites(migrated)).toEqual(expected);
    migrated.close();
    const column = new Database(join(dir, "run.db"));
    expect(column.prepare("SELECT suite FROM rollouts ORDER BY task_id").all()).toEqual([
      { suite: null },
      { suite: null },
    ]);
    column.close();
  });

  it("a read-only open reads an older database through a migrated copy in memory, leaving the file as it was", () => {
    const dir = runDir();
    openRunStore(dir).close();
    const before = readFileSync(join(dir, "run.db"));
    const newerCode = [...MIGRATIONS, "CREATE TABLE later (x INTEGER)"];
    const upgraded = openRunStore(dir, { readonly: true, migrations: newerCode });
    expect(upgraded.schemaVersion()).toBe(newerCode.length);
    expect(() => upgraded.logEvent({ kind: "config", data: { file: null } })).toThrow(/readonly/);
    upgraded.close();
    expect(readFileSync(join(dir, "run.db")).equals(before)).toBe(true);
    expect(openRunStore(dir, { readonly: true }).schemaVersion()).toBe(MIGRATIONS.length);
    openRunStore(dir, { migrations: newerCode }).close();
    const tooNew = caught(() => openRunStore(dir, { readonly: true }));
    expect(isHsearchError(tooNew, "conflict")).toBe(true);
    expect((tooNew as Error).message).toContain("newer than this hsearch knows");
    const current = runDir();
    openRunStore(current).close();
    const reader = openRunStore(current, { readonly: true });
    expect(() => reader.logEvent({ kind: "config", data: { file: null } })).toThrow(/readonly/);
    reader.close();
  });

  it("reports a missing run directory as not_found", () => {
    expect(
      isHsearchError(
        caught(() => openRunStore(join(tempDir(), "nope"))),
        "not_found",
      ),
    ).toBe(true);
  });
});
