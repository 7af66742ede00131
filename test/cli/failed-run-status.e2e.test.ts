/**
 * A run that failed on infrastructure errors: its seed's rollouts and their errors are in run.db although no score
 * was stored, and `status` (text and --json) counts them; the failure is said once on stderr.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { closeRequestCaches } from "../../src/models/cache";
import { runCli } from "../helpers/cli";
import { type FakeOpenAIServer, openaiError, startFakeOpenAIServer } from "../helpers/fake-openai-server";
import { retailSubset } from "../helpers/task-subset";

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  closeRequestCaches();
  await server?.close();
  server = undefined;
});

describe("status of a run that failed on infrastructure errors", () => {
  it("counts the seed's stored episodes and their errors, and the run says its failure once", async () => {
    // Every call fails with a 500 (retried at once: the server asks for no wait) until the retries give up.
    server = await startFakeOpenAIServer(() =>
      openaiError(500, "the backend is down", { "retry-after-ms": "0" }),
    );
    const work = mkdtempSync(join(tmpdir(), "hsearch-failed-run-"));
    const { dir, tasks } = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 });
    const searchTasks = tasks.filter((task) => task.split === "search").length;
    const config = join(work, "down.yaml");
    writeFileSync(
      config,
      [
        "name: down",
        "suites: [retail]",
        `tasks: ${dir}`,
        "objective: joint",
        `seed_harness: ${join(PACKAGE_ROOT, "harnesses", "bare")}`,
        "rounds: 1",
        "proposals_per_round: 1",
        "task_model: openai:gpt-4.1-mini",
        "meta_model: operators",
        "customer: scripted",
        "judge: rules",
        "seed: 1",
        "concurrency: 4",
        "max_infra_error_rate: 0.1",
      ].join("\n"),
    );
    const runDir = join(work, "run");
    const env = { ...process.env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: server.baseURL };
    const ran = await runCli(["run", config, "--out", runDir], { cwd: work, env });
    expect(ran.code).toBe(1);
    const gate = `${searchTasks} of ${searchTasks} episodes (100.0%) met an infrastructure error, above max_infra_error_rate`;
    expect(ran.stderr.split(gate)).toHaveLength(2);
    expect(ran.stderr.split("HTTP 500 the backend is down")).toHaveLength(2);

    const json = await runCli(["status", runDir, "--json"], { cwd: work });
    expect(json.code, json.stderr).toBe(0);
    const status = JSON.parse(json.stdout);
    expect(status.state).toBe("failed");
    expect(status.error).toContain(gate);
    expect(status.usage.rollouts).toBe(searchTasks);
    expect(status.rounds[0].proposals[0]).toMatchObject({
      id: "seed",
      score: null,
      n_total: searchTasks,
      n_scored: 0,
      infra_errors: { server: searchTasks },
      context_overflow: 0,
    });

    const text = await runCli(["status", runDir], { cwd: work });
    expect(text.stdout).toContain(
      `seed: scored 0 of ${searchTasks} episodes; infrastructure errors (not scored, retried later): ${searchTasks} server`,
    );
    expect(text.stdout).toContain(`- (0/${searchTasks} scored)`);
  }, 300_000);
});
