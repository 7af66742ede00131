import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { startViewer } from "../../src/report/viewer/server";
import { openRunStore } from "../../src/store";
import { runCli, runCliJson } from "../helpers/cli";
import { compiledCli } from "../helpers/compiled-package";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";
import { expectSameRun, finished, runSummary } from "../helpers/run-summary";
import { signalAtRollouts, withSignalPreload } from "../helpers/signal-at-rollouts";
import { retailSubset } from "../helpers/task-subset";

/**
 * `meta_model: convolve` end to end: offline (the simulator's reflector and curator) on the retail and terminal
 * suites, resumed after SIGKILL, and with both roles on models behind a local OpenAI-compatible server.
 */
const bare = join(PACKAGE_ROOT, "harnesses", "bare");

// Every directory a test makes (runs, task slices) lives under one of these, removed when the file is done.
const scratchDirs: string[] = [];
afterAll(() => {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function scratch(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
}
const configText = (tasks: string | null, suite: string, extra = "") =>
  `name: convolve\nsuites: [${suite}]\n${tasks ? `tasks: ${tasks}\n` : ""}objective: joint\nseed_harness: ${bare}\nrounds: 3\nproposals_per_round: 2\ntask_model: sim:default\nmeta_model: convolve\nseed: 5\nconcurrency: 4\n${extra}`;

function playbookAt(runDir: string, commit: string): string {
  return execFileSync("git", ["-C", join(runDir, "harness"), "show", `${commit}:playbook.yaml`], {
    encoding: "utf8",
  });
}

function store0(runDir: string) {
  const store = openRunStore(runDir, { readonly: true });
  try {
    return store.listCandidates();
  } finally {
    store.close();
  }
}

describe.each([
  { suite: "retail", trajectories: 8 },
  { suite: "terminal", trajectories: 20 },
])("meta_model: convolve offline on $suite", ({ suite, trajectories }) => {
  let work: string;
  let runDir: string;
  beforeAll(async () => {
    work = scratch(`hsearch-convolve-${suite}-`);
    // The whole suite: a small slice rarely accepts twice in a row, and counters advance on an accepted parent.
    writeFileSync(
      join(work, "search.yaml"),
      configText(null, suite, `proposer: {trajectories: ${trajectories}}\n`),
    );
    runDir = join(work, "run");
    const run = await runCli(["run", join(work, "search.yaml"), "--out", runDir], { cwd: work });
    expect(run.code, run.stderr).toBe(0);
  }, 600_000);

  it("proposes playbook deltas with helpful/harmful counters, shown by diff and the report", async () => {
    const store = openRunStore(runDir, { readonly: true });
    try {
      const proposals = store.listCandidates().filter((c) => c.round > 0);
      expect(proposals.length).toBeGreaterThan(0);
      for (const c of proposals) {
        expect(c.proposer).toBe("convolve");
        expect(c.rationale).toMatch(/^CONVOLVE: (add|sharpen|merge|retire) /);
      }
      const rounds = store.listEvents().filter((e) => e.kind === "convolve_round");
      expect(rounds.length).toBe(3);
      for (const event of rounds) {
        // proposer.trajectories caps what the reflector reads.
        expect((event.data.drawn as string[]).length).toBeLessThanOrEqual(trajectories);
        expect((event.data.drawn as string[]).length).toBeGreaterThan(0);
      }
      const accepted = proposals.filter((c) => c.verdict === "accepted");
      expect(accepted.length).toBeGreaterThan(0);
      const last = accepted.at(-1);
      expect(playbookAt(runDir, last?.commit ?? "")).toMatch(/helpful: \d+\n\s+harmful: \d+/);
      // A child of an accepted proposal carries its parent's entries with counters advanced by the parent's episodes.
      const later = proposals.filter((c) => accepted.some((a) => a.commit === c.parent));
      expect(later.length).toBeGreaterThan(0);
      expect(later.some((c) => /helpful: [1-9]|harmful: [1-9]/.test(playbookAt(runDir, c.commit)))).toBe(
        true,
      );
    } finally {
      store.close();
    }
    const diff = await runCli(["diff", runDir], { cwd: work });
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain("+++ b/playbook.yaml");
    expect(diff.stdout).toMatch(/^\+ {2}helpful: \d+$/m);
    const report = await runCli(["report", runDir, "--out", join(work, "report.html")], { cwd: work });
    expect(report.code, report.stderr).toBe(0);
    expect(readFileSync(join(work, "report.html"), "utf8")).toMatch(/\+ {2}helpful: \d+/);
    const accepted = store0(runDir).find((c) => c.verdict === "accepted" && c.round > 0)?.commit ?? "";
    const viewer = await startViewer({ runDir, port: 0 });
    try {
      const page = await fetch(
        `http://127.0.0.1:${viewer.port}/candidates/${accepted}?token=${viewer.token}`,
      );
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/\+ {2}helpful: \d+/);
    } finally {
      await viewer.close();
    }
  }, 120_000);
});

describe("meta_model: convolve resumed after SIGKILL", () => {
  it("ends where an uninterrupted run ends, with the same playbook", async () => {
    const cli = await compiledCli();
    const work = scratch("hsearch-convolve-resume-");
    const { dir } = retailSubset({
      perFamily: 6,
      heldoutPerFamily: 2,
      independent: 2,
      into: join(work, "tasks"),
    });
    const config = join(work, "search.yaml");
    writeFileSync(config, configText(dir, "retail"));
    const clean = join(work, "clean", "run");
    const run = await runCli(["run", config, "--out", clean], { cwd: work });
    expect(run.code, run.stderr).toBe(0);
    const reference = runSummary(clean);
    // The same run name as the reference: a run's commits carry its id.
    const killedDir = join(work, "killed", "run");
    const child: ChildProcess = spawn(
      process.execPath,
      [...withSignalPreload(cli), "run", config, "--out", killedDir],
      {
        cwd: work,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, ...signalAtRollouts(Math.floor(reference.total * 0.55)) },
      },
    );
    const killed = await finished(child);
    expect(killed.signal, killed.stderr).toBe("SIGKILL");
    const resumed = await runCli(["run", "--resume", killedDir], { cwd: work });
    expect(resumed.code, resumed.stderr).toBe(0);
    expectSameRun(killedDir, reference);
    const selected = reference.selected ?? "";
    expect(playbookAt(killedDir, selected)).toBe(playbookAt(clean, selected));
  }, 600_000);
});

describe("meta_model: convolve with reflector and curator models (OpenAI wire)", () => {
  let server: FakeOpenAIServer | undefined;
  afterAll(async () => server?.close());

  it("retries and records an invalid reply of either role, meters both, and never sends a protected field", async () => {
    const calls = { reflector: 0, curator: 0 };
    server = await startFakeOpenAIServer((request: RecordedRequest) => {
      const body = request.body as { model: string; messages: Array<{ content: string }> };
      const prompt = body.messages.map((m) => m.content).join("\n");
      const role = prompt.startsWith("You are the reflector") ? "reflector" : "curator";
      expect(body.model).toBe(role === "reflector" ? "refl" : "cur");
      const n = calls[role]++;
      // The first reply of each role is not the format asked for.
      if (n === 0) return openaiCompletion({ content: "I think the agent should stop earlier." });
      if (role === "reflector") {
        const key = /^### (\S+) — /m.exec(prompt)?.[1] ?? "none";
        return openaiCompletion({
          content: JSON.stringify({
            lessons: [
              {
                kind: "signal",
                signal: "no longer available",
                family: "infeasible",
                then: "abstain",
                step: 2,
                evidence: [key],
                lesson: "an item that is no longer available cannot be ordered",
              },
            ],
          }),
        });
      }
      return openaiCompletion({
        content: `\`\`\`json\n${JSON.stringify({
          deltas: [
            {
              op: "add",
              id: `unavailable-${n}`,
              family: "infeasible",
              signals: ["no longer available"],
              then: "abstain",
              lesson: "stop when the item is gone",
            },
          ],
        })}\n\`\`\``,
      });
    });
    const work = scratch("hsearch-convolve-llm-");
    const { dir, tasks } = retailSubset({ perFamily: 3, heldoutPerFamily: 2, into: join(work, "tasks") });
    const config = join(work, "search.yaml");
    writeFileSync(
      config,
      configText(
        dir,
        "retail",
        "models:\n  reflector: {spec: 'openai:refl', temperature: 0.1}\n  curator: {spec: 'openai:cur'}\n",
      ).replace("rounds: 3", "rounds: 2"),
    );
    const runDir = join(work, "run");
    const env = { ...process.env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: server.baseURL };
    const result = await runCli(["run", config, "--out", runDir], { env, cwd: work });
    expect(result.code, result.stderr).toBe(0);

    const store = openRunStore(runDir, { readonly: true });
    try {
      const invalid = store.listEvents().filter((e) => e.kind === "convolve_invalid_reply");
      expect(invalid.map((e) => e.data.role).sort()).toEqual(["curator", "reflector"]);
      for (const e of invalid) expect(String(e.data.reason)).toMatch(/holds no JSON object/);
      const proposals = store.listCandidates().filter((c) => c.round > 0);
      expect(proposals[0]?.rationale).toContain(
        "add 'unavailable-1' [infeasible] abstain on no longer available",
      );
    } finally {
      store.close();
    }
    const db = new Database(join(runDir, "run.db"), { readonly: true });
    try {
      const roles = db.prepare("SELECT role, model FROM model_calls ORDER BY id").all();
      expect(roles).toContainEqual({ role: "reflector", model: "openai:refl" });
      expect(roles).toContainEqual({ role: "curator", model: "openai:cur" });
    } finally {
      db.close();
    }
    const reflectorBodies = server.requests
      .map((r) => r.body as { model: string; temperature?: number })
      .filter((b) => b.model === "refl");
    for (const body of reflectorBodies) expect(body.temperature).toBe(0.1);
    // No held-out task and no protected field (blocker, reference, verify) reached either role.
    const sent = JSON.stringify(server.requests.map((r) => r.body));
    for (const task of tasks) {
      if (task.split !== "search") expect(sent).not.toContain(task.id);
      if (task.blocker) expect(sent).not.toContain(task.blocker.description);
      if (task.verify) expect(sent).not.toContain(JSON.stringify(task.verify));
    }
    const status = await runCliJson(["status", runDir], { cwd: work });
    expect(status.json.usage.by_role.reflector.calls).toBeGreaterThan(0);
  }, 300_000);
});
