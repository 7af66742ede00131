/**
 * `hsearch tasks pair` through the real CLI: bad input exits 2 naming the file or flag; and end to end on the
 * Harbor-format fixtures of test/fixtures/harbor-pair — import, pair, validate, the oracle on the suite, and
 * `hsearch run search-configs/tb2-joint.yaml` with the simulator on it.
 */
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { runCli } from "../helpers/cli";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";
import { realisticOpenAI, roleOfRequest } from "../helpers/realistic-openai";

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "harbor-pair");
const RETAIL_TASK = join(PACKAGE_ROOT, "tasks", "retail", "search");
const temps: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "hsearch-pair-cli-"));
  temps.push(dir);
  return dir;
}

/** Every file under a directory with its contents, to show nothing was rewritten. */
function listTree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      files[path] = readFileSync(path, "utf8");
    }
  return files;
}

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** The fixtures (or some of them) imported as feasible tasks into DIR/imported. */
async function imported(dir: string, only?: string[]): Promise<string> {
  const harbor = join(dir, "harbor");
  mkdirSync(harbor);
  for (const name of only ?? readdirSync(FIXTURES))
    cpSync(join(FIXTURES, name), join(harbor, name), { recursive: true });
  const result = await runCli(["tasks", "import-harbor", harbor, "--out", join(dir, "imported")], {
    cwd: dir,
  });
  expect(result.code, result.stderr).toBe(0);
  return join(dir, "imported");
}

describe("hsearch tasks pair: bad input", () => {
  let source: string;
  beforeAll(async () => {
    source = await imported(tempDir(), ["word-count"]);
  });

  it("exits 2 on a directory with no tasks, naming it", async () => {
    const empty = tempDir();
    const result = await runCli(["tasks", "pair", empty, "--out", join(tempDir(), "out")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(empty);
    expect(result.stderr).toMatch(/no task files/);
  });

  it("exits 2 on a task that is not a feasible terminal task, naming the file and field", async () => {
    const dir = tempDir();
    cpSync(source, dir, { recursive: true });
    const retail = readdirSync(RETAIL_TASK).find(
      (name) => name.endsWith(".json") && !/-(infeasible|ambiguous|trap)\.json$/.test(name),
    ) as string;
    cpSync(join(RETAIL_TASK, retail), join(dir, "search", retail));
    const result = await runCli(["tasks", "pair", dir, "--out", join(tempDir(), "out")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(join(dir, "search", retail));
    expect(result.stderr).toMatch(/field 'suite'.*terminal tasks; this one is a retail task/);

    const blocked = tempDir();
    mkdirSync(join(blocked, "search"));
    for (const name of ["terminal-csv-totals-01.json", "terminal-csv-totals-01-trap.json"])
      cpSync(join(PACKAGE_ROOT, "tasks", "terminal", "search", name), join(blocked, "search", name));
    const refused = await runCli(["tasks", "pair", blocked, "--out", join(tempDir(), "out")]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(join(blocked, "search", "terminal-csv-totals-01-trap.json"));
    expect(refused.stderr).toMatch(/field 'kind'/);
  });

  it("exits 2 on a bad --seed or --concurrency, and on an --out that would replace its own sources", async () => {
    for (const [flag, value] of [
      ["--seed", "-1"],
      ["--seed", "1.5"],
      ["--concurrency", "0"],
    ] as const) {
      const result = await runCli(["tasks", "pair", source, "--out", join(tempDir(), "out"), flag, value]);
      expect(result.code, `${flag} ${value}`).toBe(2);
      expect(result.stderr).toContain(flag);
    }
    const inside = await runCli(["tasks", "pair", source, "--out", join(source, "paired")]);
    expect(inside.code).toBe(2);
    expect(inside.stderr).toMatch(/--out .* lies inside the sources/);
  });

  it("exits 2, rewriting nothing, when --out is the sources through a symlink (either way round)", async () => {
    const dir = tempDir();
    const copy = join(dir, "imported");
    cpSync(source, copy, { recursive: true });
    const link = join(dir, "link");
    symlinkSync(copy, link);
    const before = listTree(copy);
    for (const [input, out] of [
      [link, copy],
      [copy, link],
      [copy, join(link, "paired")],
    ] as const) {
      const result = await runCli(["tasks", "pair", input, "--out", out]);
      expect(result.code, `${input} --out ${out}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(/--out .* once links are followed/);
      expect(listTree(copy)).toEqual(before);
    }
  });

  it("exits 2 on --resume with no cache, or with a cache that holds none of these sources", async () => {
    const off = await runCli([
      "tasks",
      "pair",
      source,
      "--out",
      join(tempDir(), "out"),
      "--resume",
      "--no-cache",
    ]);
    expect(off.code).toBe(2);
    expect(off.stderr).toMatch(/--resume needs the cache/);
    const empty = tempDir();
    const none = await runCli([
      "tasks",
      "pair",
      source,
      "--out",
      join(tempDir(), "out"),
      "--resume",
      "--cache",
      empty,
    ]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(empty);
    expect(none.stderr).toMatch(/holds no survey of these sources/);
  });

  it("exits 2 on a task file that does not validate, naming it", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "search"));
    writeFileSync(join(dir, "search", "broken.json"), '{"id": "broken", "suite": "terminal"}\n');
    const result = await runCli(["tasks", "pair", dir, "--out", join(tempDir(), "out")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(join(dir, "search", "broken.json"));
  });
});

describe("hsearch tasks pair, end to end", () => {
  let work: string;
  let pair: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    work = tempDir();
    const source = await imported(work);
    pair = await runCli(["tasks", "pair", source, "--out", "tasks/tb2", "--seed", "1", "--cache", "cache"], {
      cwd: work,
    });
  }, 600_000);

  it("writes a suite, printing progress and a summary by family and outcome", () => {
    expect(pair.code, pair.stderr).toBe(0);
    expect(pair.stderr).toMatch(/proving sources \d+\/8/);
    expect(pair.stderr).toMatch(/proving variants \d+\/21/);
    expect(pair.stderr).toMatch(/proving variants \d+\/21 .*, about \d+(s| min) left\)/);
    expect(pair.stdout).toMatch(/source harbor-wrong-answer: failed: the reference solution scores 0/);
    // year-stamp's solution opens nothing of its workspace (the survey's trace): no input to take away.
    expect(pair.stdout).toMatch(
      /no variant harbor-year-stamp-infeasible: the reference solution reads nothing of the workspace/,
    );
    expect(pair.stdout).toMatch(
      /sources: 8 read, 7 proved, 1 failed their proof, 0 without a reference solution/,
    );
    expect(pair.stdout).toMatch(/^family +written +unused +failed +none +proved$/m);
    expect(pair.stdout).toMatch(/^infeasible +\d+ +\d+ +\d+ +2 +[5-7]$/m);
    expect(pair.stdout).toMatch(
      /wrote \d+ tasks to tasks\/tb2 \(search: \d+ blocked \(\d\/\d\/\d\) \+ \d+ feasible, heldout: \d+ blocked .* \+ \d+ feasible, independent: \d+ feasible\): proportionally smaller than the study's \(scaled to 7 of its 88 sources/,
    );
    expect(pair.stdout).toMatch(/cache: 0 surveys and proofs reused from .*cache, \d+ run and kept there/);
  });

  it("runs no survey and no proof a second time: the cache gives the same suite", async () => {
    const before = listTree(join(work, "tasks", "tb2"));
    const started = Date.now();
    const again = await runCli(
      [
        "tasks",
        "pair",
        "imported",
        "--out",
        "tasks/tb2",
        "--seed",
        "1",
        "--cache",
        "cache",
        "--resume",
        "--json",
      ],
      { cwd: work },
    );
    expect(again.code, again.stderr).toBe(0);
    const { cache } = JSON.parse(again.stdout);
    expect(cache).toMatchObject({ dir: join(work, "cache"), computed: 0 });
    expect(cache.reused).toBeGreaterThan(0);
    expect(listTree(join(work, "tasks", "tb2"))).toEqual(before);
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);

  it("writes tasks that validate, on which the oracle defers on every blocked task and solves every feasible one", async () => {
    const validate = await runCli(["tasks", "validate", "tasks/tb2"], { cwd: work });
    const files = Object.keys(listTree(join(work, "tasks", "tb2")));
    expect(validate.stdout).toBe(`${files.length} tasks ok\n`);
    const blockedFiles = files.filter((file) => /-(infeasible|ambiguous|trap)\.json$/.test(file)).length;
    const evaluated = await runCli(
      ["eval", "--harness", "harnesses/abandon", "--tasks", "tasks/tb2", "--model", "oracle", "--json"],
      { cwd: work },
    );
    expect(evaluated.code, evaluated.stderr).toBe(0);
    const report = JSON.parse(evaluated.stdout) as {
      summary: { blocked: { n: number; strict_sa: number }; feasible: { n: number; solve: number } };
    };
    expect(report.summary.blocked).toMatchObject({ n: blockedFiles, strict_sa: 1 });
    expect(report.summary.feasible).toMatchObject({ n: files.length - blockedFiles, solve: 1 });
  }, 120_000);

  it("runs search-configs/tb2-joint.yaml with the simulator on the suite", async () => {
    const config = join(PACKAGE_ROOT, "search-configs", "tb2-joint.yaml");
    const run = await runCli(["run", config, "--out", "runs/tb2", "--json"], { cwd: work });
    expect(run.code, run.stderr).toBe(0);
    const status = await runCli(["status", "runs/tb2", "--json"], { cwd: work });
    const report = JSON.parse(status.stdout) as {
      state: string;
      rounds: unknown[];
      heldout: Record<string, unknown>;
      selected: { score: number | null } | null;
    };
    expect(report.state).toBe("finished");
    expect(report.rounds.length).toBeGreaterThan(1);
    expect(report.selected?.score).toBeGreaterThan(0);
    expect(Object.keys(report.heldout).length).toBeGreaterThan(0);
  }, 600_000);

  it("runs tb2-joint through the OpenAI path: the agent's tool calls run in the sandbox, the proposer is asked", async () => {
    // A server that behaves like OpenAI's for gpt-5 names (no temperature); the agent lists the workspace with the
    // bash tool, then answers in text; the proposer proposes a harmless edit. No real model is reachable here.
    const realistic = realisticOpenAI({ proposal: true });
    const agentTurn = (request: RecordedRequest) => {
      const messages = (request.body as { messages: Array<{ role: string }> }).messages;
      if (roleOfRequest(request) !== "agent" || messages.some((m) => m.role === "assistant"))
        return realistic(request);
      return openaiCompletion({ toolCalls: [{ name: "bash", arguments: { command: "ls -la /app" } }] });
    };
    const server: FakeOpenAIServer = await startFakeOpenAIServer(agentTurn);
    try {
      const base = readFileSync(join(PACKAGE_ROOT, "search-configs", "tb2-joint.yaml"), "utf8");
      const config = join(work, "tb2-openai.yaml");
      writeFileSync(
        config,
        base
          .replace(/^task_model: .*$/m, "task_model: openai:gpt-5-mini")
          .replace(/^meta_model: .*$/m, "meta_model: openai:gpt-5")
          .replace(/^rounds: .*$/m, "rounds: 1")
          .replace(/^proposals_per_round: .*$/m, "proposals_per_round: 1"),
      );
      const env = { ...process.env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: server.baseURL };
      const run = await runCli(["run", config, "--out", "runs/tb2-openai"], { cwd: work, env });
      expect(run.code, run.stderr).toBe(0);
      const status = await runCli(["status", "runs/tb2-openai", "--json"], { cwd: work });
      const report = JSON.parse(status.stdout) as {
        state: string;
        rounds: Array<{ proposals?: unknown[] }>;
        selected: { score: number | null } | null;
      };
      expect(report.state).toBe("finished");
      expect(report.selected?.score).not.toBeNull();
      const bodies = server.requests.map((request) => JSON.stringify(request.body));
      expect(bodies.every((body) => !body.includes('"temperature"'))).toBe(true);
      // The tool result the agent got back is the sandbox's listing of the task's /app.
      const toolResults = server.requests.flatMap((request) =>
        (request.body as { messages: Array<{ role: string; content: string | null }> }).messages.filter(
          (m) => m.role === "tool",
        ),
      );
      expect(toolResults.length).toBeGreaterThan(0);
      expect(toolResults.some((m) => /total \d+/.test(m.content ?? ""))).toBe(true);
      expect(server.requests.some((request) => roleOfRequest(request) === "proposer")).toBe(true);
    } finally {
      await server.close();
    }
  }, 600_000);

  it("prints one record per variant with --json, and writes nothing when no suite can be made", async () => {
    const dir = tempDir();
    const two = await imported(dir, ["word-count", "config-port"]);
    const result = await runCli(["tasks", "pair", two, "--out", "paired", "--json", "--cache", "cache"], {
      cwd: dir,
    });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      scaled_to: number;
      study_sizes: boolean;
      variants: Array<{ id: string; family: string; outcome: string; split?: string }>;
    };
    expect(report.scaled_to).toBe(2);
    expect(report.study_sizes).toBe(false);
    expect(report.variants).toHaveLength(6);
    expect(report.variants.filter((v) => v.outcome === "written")).toHaveLength(2);
    for (const v of report.variants) expect(["written", "unused"]).toContain(v.outcome);

    const lone = await imported(tempDir(), ["tmp-status"]);
    const nothing = await runCli(["tasks", "pair", lone, "--out", join(dir, "paired"), "--no-cache"], {
      cwd: dir,
    });
    expect(nothing.code).toBe(1);
    expect(nothing.stdout).toMatch(/no suite could be made .* nothing written/);
    expect(readdirSync(join(dir, "paired", "search")).length).toBe(2);
  }, 300_000);
});
