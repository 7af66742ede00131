/**
 * The pairing cache in the real sandbox, on two Harbor-format fixtures: a second `tasks pair` runs no survey and no
 * proof and makes the same suite; another seed reuses the surveys; a run cut short (entries lost) redoes only those.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModel } from "../../../src/api/create-model";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import type { TerminalTask } from "../../../src/domain/task";
import { loadHarness } from "../../../src/harness/load";
import { type PairResult, pairSuite } from "../../../src/tasks/generators/pair/pair-suite";
import { defaultPairCacheDir, diskPairCache } from "../../../src/tasks/generators/pair/proof-cache";
import type { OracleRun } from "../../../src/tasks/generators/pair/prove";
import { importHarbor } from "../../../src/tasks/importers/harbor/import-harbor";
import { formatTaskJson } from "../../../src/tasks/loading/write";

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "harbor-pair");
const KEEP = new Set(["harbor-word-count", "harbor-rate-total", "harbor-sales-report"]);
let sources: Array<{ task: TerminalTask; file: string }>;
let oracle: OracleRun;
let dir: string;
let first: PairResult;
let firstStats: { reused: number; computed: number };

const same = (a: PairResult, b: PairResult) => {
  expect(b.tasks.map(formatTaskJson)).toEqual(a.tasks.map(formatTaskJson));
  expect(b.variants).toEqual(a.variants);
  expect(b.sources).toEqual(a.sources);
};

function entries(kind: string): string[] {
  const root = join(dir, kind);
  return readdirSync(root).flatMap((sub) =>
    readdirSync(join(root, sub)).map((name) => join(root, sub, name)),
  );
}

beforeAll(async () => {
  const imported = await importHarbor(FIXTURES, "search", {
    host: { installed: async (names) => new Set(names), available: async (names) => new Set(names) },
  });
  sources = imported.tasks
    .filter((task): task is TerminalTask => task.suite === "terminal" && KEEP.has(task.id))
    .map((task) => ({ task, file: `${task.id}.json` }));
  oracle = { model: createModel("oracle"), harness: loadHarness(join(PACKAGE_ROOT, "harnesses", "abandon")) };
  dir = mkdtempSync(join(tmpdir(), "hsearch-pair-cache-"));
  const cache = diskPairCache(dir);
  first = await pairSuite(sources, { seed: 1, oracle, concurrency: 2, cache });
  firstStats = cache.stats();
}, 600_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the tasks pair cache", () => {
  it("keeps every survey and proof of the first run, and a second run runs none of them", async () => {
    expect(firstStats.reused).toBe(0);
    expect(entries("surveys")).toHaveLength(3);
    expect(firstStats.computed).toBe(3 + entries("proofs").length);
    const cache = diskPairCache(dir);
    const started = Date.now();
    const second = await pairSuite(sources, { seed: 1, oracle, concurrency: 2, cache });
    expect(cache.stats()).toEqual({ reused: firstStats.computed, computed: 0 });
    same(first, second);
    // No sandbox was started: reading the entries back takes well under a second.
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 60_000);

  it("reuses the surveys for another seed", async () => {
    const cache = diskPairCache(dir);
    await pairSuite(sources, { seed: 2, oracle, concurrency: 2, cache });
    const { reused, computed } = cache.stats();
    expect(reused).toBeGreaterThanOrEqual(3);
    expect(computed).toBeLessThan(firstStats.computed);
  }, 600_000);

  it("after an interruption redoes only what was lost, and a damaged entry is recomputed", async () => {
    const proofs = entries("proofs");
    const lost = proofs.slice(0, 2);
    for (const file of lost) rmSync(file);
    const [damaged] = entries("surveys");
    writeFileSync(damaged as string, "{ not json");
    const cache = diskPairCache(dir);
    const resumed = await pairSuite(sources, { seed: 1, oracle, concurrency: 2, cache });
    same(first, resumed);
    expect(cache.stats().computed).toBeLessThanOrEqual(lost.length + 1);
    expect(cache.stats().computed).toBeGreaterThanOrEqual(1);
    expect(cache.hasSurvey(sources[0]?.task as TerminalTask)).toBe(true);
  }, 600_000);

  it("lives under XDG_CACHE_HOME, else ~/.cache", () => {
    expect(defaultPairCacheDir({ XDG_CACHE_HOME: "/x/cache" })).toBe("/x/cache/hsearch/tasks-pair");
    expect(defaultPairCacheDir({})).toMatch(/\.cache\/hsearch\/tasks-pair$/);
  });
});
