import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { planRun } from "../../src/api/plan";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { closeRequestCaches } from "../../src/models/cache";
import { runCli } from "../helpers/cli";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";
import { type SearchConfigFile, searchConfig, writeSearchConfig } from "../helpers/search-config";
import { retailSubset } from "../helpers/task-subset";

/**
 * `hsearch run --plan` for `meta_model: convolve`: the reflector and curator are counted as the proposer is (bounds
 * per round, the roles' replies per ask), and the pilot measures one round of them on their models.
 */
const work = mkdtempSync(join(tmpdir(), "hsearch-convolve-plan-"));
let server: FakeOpenAIServer | undefined;
afterAll(async () => {
  closeRequestCaches();
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

const { dir: tasks } = retailSubset({
  perFamily: 3,
  heldoutPerFamily: 1,
  independent: 1,
  into: join(work, "tasks"),
});
const bare = join(PACKAGE_ROOT, "harnesses", "bare");
function config(name: string, overrides: Partial<SearchConfigFile>): string {
  return writeSearchConfig(
    join(work, `${name}.yaml`),
    searchConfig({
      name,
      tasks,
      seed_harness: bare,
      rounds: 5,
      proposals_per_round: 2,
      seed: 3,
      concurrency: 4,
      ...overrides,
    }),
  );
}
const withRoles: Partial<SearchConfigFile> = {
  meta_model: "convolve",
  models: { reflector: { spec: "openai:refl" }, curator: { spec: "openai:cur" } },
};

describe("run --plan with meta_model: convolve", () => {
  it("bounds the reflector and curator calls per round; offline roles and other proposers make none", async () => {
    const plan = await planRun(config("roles", withRoles));
    expect(plan.models).toMatchObject({ reflector: "openai:refl", curator: "openai:cur", proposer: null });
    expect(plan.real).toBe(true);
    // Five rounds, one ask of each role a round, up to three replies an ask.
    expect(plan.calls.reflector).toMatchObject({ max: 15, expected: 5 });
    expect(plan.calls.curator).toMatchObject({ max: 15, expected: 5 });
    const pareto = await planRun(config("pareto", { ...withRoles, strategy: "pareto" }));
    expect(pareto.calls.reflector).toMatchObject({ max: 5 * 2 * 3, expected: null });
    const offline = await planRun(config("offline", { meta_model: "convolve" }));
    expect([offline.calls.reflector, offline.calls.curator, offline.real]).toEqual([null, null, false]);
    const operators = await planRun(config("operators", { meta_model: "operators" }));
    expect([operators.calls.reflector, operators.calls.curator]).toEqual([null, null]);
    const text = await runCli(["run", "--plan", config("roles", withRoles)], { cwd: work });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/ {2}reflector 15: 5 rounds × 3 replies/);
    expect(text.stdout).toMatch(/ {2}curator 15: 5 rounds × 3 replies/);
  });

  it("the pilot measures one round of both roles on their models and scales it to the plan", async () => {
    const asked = { reflector: 0, curator: 0 };
    server = await startFakeOpenAIServer((request: RecordedRequest) => {
      const body = request.body as { messages: Array<{ content: string }> };
      const prompt = body.messages.map((m) => m.content).join("\n");
      const role = prompt.startsWith("You are the reflector") ? "reflector" : "curator";
      asked[role]++;
      const content =
        role === "reflector"
          ? JSON.stringify({
              lessons: [
                {
                  kind: "signal",
                  signal: "no longer available",
                  family: "infeasible",
                  then: "abstain",
                  step: 2,
                  evidence: [/^### (\S+) — /m.exec(prompt)?.[1] ?? "none"],
                  lesson: "an item that is gone cannot be ordered",
                },
              ],
            })
          : JSON.stringify({
              deltas: [
                {
                  op: "add",
                  id: "gone",
                  family: "infeasible",
                  signals: ["no longer available"],
                  then: "abstain",
                  lesson: "stop when the item is gone",
                },
              ],
            });
      return openaiCompletion({ content, usage: { prompt_tokens: 1000, completion_tokens: 100 } });
    });
    const env = { ...process.env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: server.baseURL };
    // Every search task: the bare harness fails enough of them on the simulator for the reflector to read.
    const plan = await planRun(config("pilot", withRoles), { pilot: 12, env, cwd: work });
    expect(asked).toEqual({ reflector: 1, curator: 1 });
    const roles = plan.estimate?.basis.roles;
    expect(roles?.proposed).toBe(true);
    expect(roles?.from).toMatch(/drawn for the reflector/);
    for (const role of ["reflector", "curator"] as const) {
      expect(roles?.spend[role]).toMatchObject({ calls: 1, input_tokens: 1000, output_tokens: 100 });
      // Expected: one a round; at most: every reply of every round at the pilot's tokens per call.
      expect(plan.estimate?.expected[role]).toMatchObject({ calls: 5, input_tokens: 5000 });
      expect(plan.estimate?.atMost[role]).toMatchObject({ calls: 15, output_tokens: 1500 });
    }
    expect(plan.estimate?.expected.total.input_tokens).toBeGreaterThanOrEqual(10_000);
    const text = await runCli(["run", "--plan", config("pilot", withRoles), "--pilot", "12"], {
      cwd: work,
      env,
    });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/proposer's roles per round: reflector 1 call, 1,000 input \/ 100 output/);
    expect(text.stdout).toMatch(/at the expected point: [^\n]*reflector 5 calls, 5,500 tokens/);
  });
});
