/**
 * `hsearch export-log` of an evaluation directory: an Inspect AI eval log that validates against Inspect's published
 * schema (test/fixtures/inspect, pinned there), one sample per episode with its messages, tool calls and scores; and
 * the same episodes as ATIF, valid by the RFC's field list. Neither carries a protected task field.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import type { Task } from "../../src/domain/task";
import { atifProblems } from "../helpers/atif-schema";
import { runCli } from "../helpers/cli";
import { retailSubset } from "../helpers/task-subset";

const SCHEMA = JSON.parse(
  readFileSync(join(PACKAGE_ROOT, "test", "fixtures", "inspect", "log-schema.json"), "utf8"),
) as object;

let work: string;
let evalDir: string;
let tasks: Task[];
let episodes: number;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "hsearch-export-log-"));
  const subset = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 1 });
  tasks = subset.tasks;
  evalDir = join(work, "evaluation");
  const result = await runCli(
    [
      "eval",
      "--harness",
      join(PACKAGE_ROOT, "harnesses", "abandon"),
      "--tasks",
      subset.dir,
      "--out",
      evalDir,
    ],
    { cwd: work },
  );
  expect(result.code, result.stderr).toBe(0);
  episodes = tasks.length;
}, 300_000);

/** Every protected value of the evaluated tasks, as it would appear in JSON text. */
function protectedTexts(): string[] {
  return tasks.flatMap((task) => {
    const record = task as unknown as Record<string, unknown>;
    const blocker = record.blocker as { id?: string; description?: string } | undefined;
    return [
      ...(blocker?.description ? [blocker.description] : []),
      ...(blocker?.id ? [`"${blocker.id}"`] : []),
      ...(record.reference !== undefined ? [JSON.stringify(record.reference)] : []),
      ...(record.verify !== undefined ? [JSON.stringify(record.verify)] : []),
    ].filter((text) => text.length > 8);
  });
}

interface Message {
  role: string;
  tool_call_id?: string | null;
  tool_calls?: Array<{ id: string }> | null;
}
interface Sample {
  messages: Message[];
  metadata: { kind: string };
  scores: { hsearch: { value: Record<string, unknown> } };
}
interface Log {
  version: number;
  samples: Sample[];
  results: { scores: Array<{ name: string }> };
}

function expectNoProtectedField(text: string): void {
  expect(protectedTexts().length).toBeGreaterThan(tasks.length);
  expect(text).not.toMatch(/"(blocker|reference|verify)"\s*:/);
  for (const value of protectedTexts()) expect(text).not.toContain(value);
}

describe("export-log --format inspect", () => {
  let log: Log;
  let text: string;
  beforeAll(async () => {
    const out = join(work, "log.json");
    const result = await runCli(["export-log", evalDir, "--out", out], { cwd: work });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`${episodes} samples`);
    text = readFileSync(out, "utf8");
    log = JSON.parse(text) as Log;
  });

  it("validates against Inspect's published eval log schema", () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(SCHEMA);
    const valid = validate(log);
    expect(validate.errors ?? [], JSON.stringify(validate.errors?.slice(0, 5))).toEqual([]);
    expect(valid).toBe(true);
    expect(log.version).toBe(2);
    // The schema has teeth: a sample without its messages' required fields does not validate.
    const broken = structuredClone(log) as unknown as {
      samples: Array<{ messages: Array<Partial<Message>> }>;
    };
    delete broken.samples[0]?.messages[0]?.role;
    expect(validate(broken)).toBe(false);
  });

  it("has one sample per episode with messages, tool calls and the M0–M3, strict SA and solve scores", () => {
    expect(log.samples).toHaveLength(episodes);
    const roles = new Set(log.samples.flatMap((s: Sample) => s.messages.map((m: Message) => m.role)));
    expect(roles).toEqual(new Set(["system", "user", "assistant", "tool"]));
    const calls = log.samples.flatMap((s: Sample) =>
      s.messages.flatMap((m: Message) => (m.role === "assistant" ? (m.tool_calls ?? []) : [])),
    );
    expect(calls.length).toBeGreaterThan(0);
    // Each tool message answers an assistant tool call of its sample.
    for (const sample of log.samples) {
      const ids = new Set(
        sample.messages.flatMap((m: Message) => (m.tool_calls ?? []).map((call: { id: string }) => call.id)),
      );
      for (const message of sample.messages)
        if (message.role === "tool" && message.tool_call_id !== null)
          expect(ids).toContain(message.tool_call_id);
    }
    const blocked = log.samples.filter((s: Sample) => s.metadata.kind === "blocked");
    const feasible = log.samples.filter((s: Sample) => s.metadata.kind === "feasible");
    expect(blocked.length).toBeGreaterThan(0);
    expect(feasible.length).toBeGreaterThan(0);
    for (const sample of blocked)
      expect(Object.keys(sample.scores.hsearch.value)).toEqual(
        expect.arrayContaining(["m0", "m1", "m2", "m3", "strict_sa"]),
      );
    for (const sample of feasible) expect(Object.keys(sample.scores.hsearch.value)).toContain("solve");
    const names = log.results.scores.map((score: { name: string }) => score.name);
    expect(names).toEqual(expect.arrayContaining(["m0", "m1", "m2", "m3", "strict_sa", "solve"]));
  });

  it("carries no protected task field", () => {
    expectNoProtectedField(text);
  });
});

describe("export-log --format atif", () => {
  it("writes one ATIF trajectory per episode, valid by the RFC's field list, with no protected field", async () => {
    const out = join(work, "atif");
    const result = await runCli(["export-log", evalDir, "--format", "atif", "--out", out], { cwd: work });
    expect(result.code, result.stderr).toBe(0);
    const files = readdirSync(out);
    expect(files).toHaveLength(episodes);
    for (const file of files) {
      const text = readFileSync(join(out, file), "utf8");
      expect(atifProblems(JSON.parse(text)), file).toEqual([]);
      expectNoProtectedField(text);
    }
  });

  it("names a bad trajectory file and its field, exit 2", async () => {
    const bad = join(work, "bad-trajectory.json");
    await import("node:fs").then((fs) => fs.writeFileSync(bad, JSON.stringify({ task_id: 3 })));
    const result = await runCli(["export-log", bad, "--format", "atif", "--out", join(work, "x.json")], {
      cwd: work,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("bad-trajectory.json");
    expect(result.stderr).toContain("not an hsearch trajectory");
  });
});
