import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import { searchConfig, writeSearchConfig } from "../helpers/search-config";
import { retailSubset } from "../helpers/task-subset";

let work: string;
let finished: string;

/** Every file of a directory with the hash of its bytes: a read-only command must leave this exactly as it was. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[path.slice(dir.length + 1)] = createHash("sha256").update(readFileSync(path)).digest("hex");
  }
  return out;
}

let copies = 0;
function damagedCopy(damage: (db: string) => void): string {
  const dir = join(work, `damaged-${copies++}`);
  cpSync(finished, dir, { recursive: true });
  damage(join(dir, "run.db"));
  return dir;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "hsearch-damaged-"));
  const config = writeSearchConfig(
    join(work, "search.yaml"),
    searchConfig({ name: "damaged", tasks: retailSubset({ perFamily: 1 }).dir, seed: 2 }),
  );
  finished = join(work, "finished");
  const run = await runCli(["run", config, "--out", finished], { cwd: work });
  if (run.code !== 0) throw new Error(run.stderr);
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

const DAMAGES: Array<[string, (db: string) => void, RegExp]> = [
  ["an empty run.db", (db) => truncateSync(db, 0), /run\.db is damaged: the file is empty/],
  ["a truncated run.db", (db) => truncateSync(db, 8192), /run\.db is damaged/],
  ["a run.db that is not SQLite", (db) => writeFileSync(db, "x".repeat(4096)), /not an SQLite database/],
  [
    "a run.db overwritten in the middle",
    (db) => {
      const bytes = readFileSync(db);
      bytes.fill(0x5a, 4096, bytes.length - 1);
      writeFileSync(db, bytes);
    },
    /run\.db is damaged/,
  ],
  [
    "an edited stored config",
    (db) => {
      const handle = new Database(db);
      handle.prepare("UPDATE run SET config_json = json_set(config_json, '$.rounds', 'many')").run();
      handle.close();
    },
    /run\.db: field 'rounds': run\.db is damaged: the stored config does not validate/,
  ],
  [
    "a short text file as run.db",
    (db) => writeFileSync(db, "hello\n"),
    /run\.db is damaged: not an SQLite database/,
  ],
  ["a run.db with a table dropped", (db) => sql(db, "DROP TABLE rounds"), /table 'rounds' is missing/],
  [
    "a run.db with a column dropped",
    (db) => sql(db, "ALTER TABLE candidates DROP COLUMN rationale"),
    /table 'candidates' lacks column 'rationale TEXT'/,
  ],
  [
    "a run.db whose candidate score is text",
    (db) => sql(db, "UPDATE candidates SET score = 'abc'"),
    /run\.db is damaged: candidate [0-9a-f]{40} at score: /,
  ],
];

function sql(db: string, statement: string): void {
  const handle = new Database(db);
  handle.exec(statement);
  handle.close();
}

describe("a damaged run directory", () => {
  it.each(DAMAGES)(
    "%s: status, diff, export and report exit 2 naming run.db and change nothing",
    async (_name, damage, message) => {
      const dir = damagedCopy(damage);
      const before = snapshot(dir);
      for (const args of [
        ["status", dir],
        ["diff", dir],
        ["export", dir, "--out", join(work, `export-${copies}`)],
        ["report", dir, "--out", join(work, `report-${copies}.html`)],
      ]) {
        const result = await runCli(args, { cwd: work });
        expect(result.code, `${args[0]}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toMatch(message);
        expect(result.stderr).not.toMatch(/\n\s+at /);
        expect(snapshot(dir), args[0]).toEqual(before);
      }
    },
  );

  it("a rollout whose counts are text: status and report, which read rollouts, exit 2 naming it", async () => {
    const dir = damagedCopy((db) => sql(db, "UPDATE rollouts SET steps = 'many'"));
    const before = snapshot(dir);
    for (const args of [
      ["status", dir],
      ["report", dir, "--out", join(work, `report-${copies}.html`)],
    ]) {
      const result = await runCli(args, { cwd: work });
      expect(result.code, `${args[0]}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(/run\.db is damaged: rollout \w+\/\S+ at steps: /);
      expect(snapshot(dir), args[0]).toEqual(before);
    }
  });

  it("run --resume of a damaged run.db exits 2 naming it", async () => {
    const dir = damagedCopy((db) => writeFileSync(db, "not a database at all, just text\n".repeat(10)));
    const result = await runCli(["run", "--resume", dir], { cwd: work });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/run\.db is damaged: not an SQLite database/);
    const dropped = damagedCopy((db) => sql(db, "DROP TABLE evaluations"));
    const resumed = await runCli(["run", "--resume", dropped], { cwd: work });
    expect(resumed.code, resumed.stderr).toBe(2);
    expect(resumed.stderr).toMatch(/run\.db is damaged: table 'evaluations' is missing/);
  });

  it("a finished run is read without writing a byte (no -wal/-shm left behind)", async () => {
    const dir = damagedCopy(() => {});
    const before = snapshot(dir);
    const result = await runCli(["status", dir], { cwd: work });
    expect(result.code).toBe(0);
    expect(snapshot(dir)).toEqual(before);
  });
});
