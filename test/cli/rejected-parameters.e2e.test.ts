/**
 * A reasoning model under a deployment name (`prod-…`, as on Azure or behind a gateway): its name does not say it
 * takes no temperature and no max_tokens, so the first call of each role sends them and the provider refuses it
 * with OpenAI's own 400. `hsearch eval` and `hsearch run` drop the parameter (or send its replacement), finish with
 * no infrastructure error, say once per model and parameter what they did, and a resumed run does not ask again.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeRequestCaches } from "../../src/models/cache";
import { openRunStore } from "../../src/store";
import { runCli } from "../helpers/cli";
import {
  type FakeOpenAIServer,
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";
import { type RealisticOptions, realisticOpenAI, roleOfRequest } from "../helpers/realistic-openai";
import { rolesOn, type SearchConfigFile, searchConfig, writeSearchConfig } from "../helpers/search-config";
import { retailSubset } from "../helpers/task-subset";

/** One deployment per role, none named like a reasoning model. */
const MODELS = {
  agent: "prod-agent",
  customer: "prod-customer",
  judge: "prod-judge",
  proposer: "prod-proposer",
} as const;
const DEPLOYMENT = /^prod-/;

const servers: FakeOpenAIServer[] = [];
afterEach(async () => {
  closeRequestCaches();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

let work: string;
let tasksDir: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "hsearch-rejected-"));
  tasksDir = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 }).dir;
});

async function server(options: RealisticOptions) {
  const started = await startFakeOpenAIServer(realisticOpenAI(options));
  servers.push(started);
  return started;
}

const env = (baseURL: string) => ({ ...process.env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: baseURL });

type Body = Record<string, unknown> & { model: string };
const bodyOf = (request: RecordedRequest) => request.body as Body;

/** How many lines of `text` contain `needle`. */
const linesWith = (text: string, needle: string) => text.split("\n").filter((line) => line.includes(needle));

function evalArgs(out: string, extra: string[]) {
  return [
    "eval",
    "--out",
    join(work, out),
    "--harness",
    "harnesses/bare",
    "--tasks",
    tasksDir,
    "--split",
    "search",
    "--model",
    `openai:${MODELS.agent}`,
    "--judge",
    `llm:openai:${MODELS.judge}`,
    "--customer",
    `llm:openai:${MODELS.customer}`,
    // One call at a time: each model's first call is the only one sent before its rejection is known.
    "--concurrency",
    "1",
    "--json",
    ...extra,
  ];
}

/**
 * For each model: the calls before its first answered one carry the rejected parameters, none after it does (each
 * model sent them only until the provider refused them once).
 */
function expectLearntOnce(requests: readonly RecordedRequest[], parameters: readonly string[]) {
  for (const model of [MODELS.agent, MODELS.customer, MODELS.judge]) {
    const mine = requests.map(bodyOf).filter((body) => body.model === model);
    const carries = (body: Body) => parameters.some((p) => p in body);
    const firstClean = mine.findIndex((body) => !carries(body));
    expect(firstClean, model).toBe(parameters.length);
    expect(mine.slice(firstClean).filter(carries), model).toEqual([]);
  }
}

describe("eval with reasoning models under deployment names", () => {
  it("drops the temperature each model's provider rejects: no infrastructure error, said once per model", async () => {
    const provider = await server({ rejects: { temperature: DEPLOYMENT } });
    const result = await runCli(evalArgs("eval-temperature", []), { env: env(provider.baseURL) });
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout).summary;
    expect(summary.infra_errors).toEqual({});
    expect(summary.n_scored).toBe(summary.n_total);
    expect(summary.blocked.n).toBeGreaterThan(0);
    expectLearntOnce(provider.requests, ["temperature"]);
    const said = linesWith(result.stderr, "rejected 'temperature'");
    expect(said).toHaveLength(3);
    for (const [role, model] of Object.entries(MODELS).filter(([role]) => role !== "proposer"))
      expect(
        said.filter((line) => line.includes(`openai:${model} rejected`)),
        role,
      ).toEqual([
        expect.stringContaining(
          "the call was sent again without it, and every later call of this model leaves it out",
        ),
      ]);
    expect(result.stderr).toContain("Only the default (1) value is supported.");
    // The evaluation directory keeps them, for its --resume.
    const store = openRunStore(join(work, "eval-temperature"), { readonly: true });
    try {
      expect(
        store
          .rejectedParameters()
          .map((r) => `${r.role} ${r.parameter}`)
          .sort(),
      ).toEqual(["agent temperature", "customer temperature", "judge temperature"]);
    } finally {
      store.close();
    }
  }, 300_000);

  it("sends max_completion_tokens where the provider refuses max_tokens, and drops the temperature too", async () => {
    const provider = await server({ rejects: { temperature: DEPLOYMENT, max_tokens: DEPLOYMENT } });
    const limits = ["agent", "judge", "customer"].flatMap((role) => ["--set", `${role}.max_tokens=900`]);
    const result = await runCli(evalArgs("eval-max-tokens", limits), { env: env(provider.baseURL) });
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout).summary;
    expect(summary.infra_errors).toEqual({});
    expect(summary.n_scored).toBe(summary.n_total);
    expectLearntOnce(provider.requests, ["temperature", "max_tokens"]);
    // Every later call carries the limit under the name the provider asked for.
    const answered = provider.requests
      .map(bodyOf)
      .filter((b) => !("temperature" in b) && !("max_tokens" in b));
    expect(answered.every((b) => b.max_completion_tokens === 900)).toBe(true);
    expect(linesWith(result.stderr, "rejected 'max_tokens'")).toHaveLength(3);
    expect(result.stderr).toContain("the call was sent again with 'max_completion_tokens' instead");
  }, 300_000);
});

/** A search config with every role on its own deployment; `overrides` replace the base values. */
function writeConfig(name: string, overrides: Partial<SearchConfigFile>): string {
  return writeSearchConfig(
    join(work, `${name}.yaml`),
    searchConfig({
      name,
      tasks: tasksDir,
      rounds: 2,
      ...rolesOn("openai", MODELS),
      seed: 3,
      concurrency: 4,
      ...overrides,
    }),
  );
}

async function statusOf(runDir: string) {
  const result = await runCli(["status", runDir, "--json"], { cwd: work });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe("run with reasoning models under deployment names", () => {
  it("learns each role's rejections once, stores them, and a resumed run sends none of them again", async () => {
    const provider = await server({
      rejects: { temperature: DEPLOYMENT, max_tokens: DEPLOYMENT },
      proposal: true,
    });
    // The seed's 6 rollouts and 2 of the first proposal's: the budget stops the run in round 1, after every role
    // (the proposer too) has made calls.
    const config = writeConfig("deployments", {
      budget: { max_rollouts: 8 },
      models: { proposer: { max_tokens: 8000 } },
    });
    const runDir = join(work, "deployments", "run");
    const first = await runCli(["run", config, "--out", runDir], { cwd: work, env: env(provider.baseURL) });
    expect(first.code, first.stderr).toBe(0);
    const stopped = await statusOf(runDir);
    expect(stopped.state).toBe("budget_exhausted");
    const learnt = stopped.rejected_parameters.map(
      (r: { model: string; parameter: string; role: string }) => `${r.role} ${r.model} ${r.parameter}`,
    );
    expect(learnt.sort()).toEqual(
      [
        `agent openai:${MODELS.agent} temperature`,
        `customer openai:${MODELS.customer} temperature`,
        `judge openai:${MODELS.judge} temperature`,
        `proposer openai:${MODELS.proposer} max_tokens`,
        `proposer openai:${MODELS.proposer} temperature`,
      ].sort(),
    );
    // Said once each, however many calls were in flight when the provider refused them.
    expect(linesWith(first.stderr, " rejected '")).toHaveLength(5);
    expect(linesWith(first.stderr, `openai:${MODELS.proposer} rejected 'max_tokens'`)).toEqual([
      expect.stringContaining("sent again with 'max_completion_tokens' instead"),
    ]);

    const before = provider.requests.length;
    const resumed = await runCli(["run", "--resume", runDir, "--max-rollouts", "100"], {
      cwd: work,
      env: env(provider.baseURL),
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    const later = provider.requests.slice(before);
    // The second session asked the proposer (round 2) and sent no rejected parameter to anyone.
    expect(later.filter((r) => roleOfRequest(r) === "proposer").length).toBeGreaterThan(0);
    expect(later.map(bodyOf).filter((b) => "temperature" in b || "max_tokens" in b)).toEqual([]);
    expect(
      later.map(bodyOf).filter((b) => b.model === MODELS.proposer && b.max_completion_tokens !== 8000),
    ).toEqual([]);
    // It names what it applies from the start, and learns nothing new.
    expect(linesWith(resumed.stderr, " rejected '")).toEqual([]);
    expect(linesWith(resumed.stderr, "is left out of every call")).toHaveLength(4);
    expect(resumed.stderr).toContain(
      `openai:${MODELS.proposer}: 'max_completion_tokens' is sent instead of 'max_tokens'`,
    );

    const done = await statusOf(runDir);
    expect(done.state).toBe("finished");
    expect(done.rejected_parameters).toHaveLength(5);
    for (const round of done.rounds)
      for (const proposal of round.proposals) {
        if (proposal.n_total === null) continue;
        expect(proposal.infra_errors, proposal.id).toEqual({});
        expect(proposal.n_scored, proposal.id).toBe(proposal.n_total);
      }
    const text = await runCli(["status", runDir], { cwd: work });
    expect(text.stdout).toContain(
      `openai:${MODELS.agent}: 'temperature' is left out of every call (the provider rejected it in the agent's call: Unsupported value: 'temperature'`,
    );
  }, 600_000);
});
