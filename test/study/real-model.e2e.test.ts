/**
 * The shipped real-model study (studies/real-model.yaml) made small — a slice of retail, one round of one proposal —
 * run end to end over OpenAI's wire against a local server that answers like the real API for each role, and its
 * plan held to what it spent: the same rollouts, and no more model calls per role than planned, counted both by the
 * study and by the server.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { planStudy, runStudy, type StudyResult } from "../../src/api/study";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { closeRequestCaches } from "../../src/models/cache";
import { openRunStore } from "../../src/store";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../helpers/fake-openai-server";
import { realisticOpenAI, roleOfRequest } from "../helpers/realistic-openai";
import { retailSubset } from "../helpers/task-subset";

const ROLES = ["agent", "customer", "judge", "proposer"] as const;
type Role = (typeof ROLES)[number];

let server: FakeOpenAIServer;
let work: string;
let file: string;

beforeAll(async () => {
  server = await startFakeOpenAIServer(realisticOpenAI({ proposal: true }));
  work = mkdtempSync(join(tmpdir(), "hsearch-study-real-"));
  const shipped = parse(readFileSync(join(PACKAGE_ROOT, "studies", "real-model.yaml"), "utf8"));
  const { dir: tasks } = retailSubset({ perFamily: 1, heldoutPerFamily: 1, independent: 2 });
  const retail = shipped.benchmarks.find((b: { suite: string }) => b.suite === "retail");
  file = join(work, "study.yaml");
  // The shipped study's models and harnesses, on a slice of its retail benchmark with the smallest repeats.
  writeFileSync(
    file,
    stringify({
      ...shipped,
      concurrency: 4,
      // Its harness paths resolve to the package's, as they are not beside this copy.
      benchmarks: [{ ...retail, tasks }],
      search: { rounds: 1, proposals_per_round: 1 },
      independent_reruns: 1,
      beliefs: { resamples: 100 },
      challenge: { replicates: 1 },
    }),
  );
});

afterAll(async () => {
  closeRequestCaches();
  await server?.close();
});

describe("a real-model study over the OpenAI wire", () => {
  let result: StudyResult;

  it("names a model for every role and runs end to end against a local server", async () => {
    const shipped = parse(readFileSync(join(PACKAGE_ROOT, "studies", "real-model.yaml"), "utf8"));
    for (const role of ["task", "meta", "judge", "customer"])
      expect(shipped.models[role], role).toMatch(/openai:/);
    const env = { ...process.env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: server.baseURL };
    result = await runStudy(file, { cwd: work, out: join(work, "study"), env }).result;
    const roles = new Set(server.requests.map(roleOfRequest));
    for (const role of ROLES) expect(roles, role).toContain(role);
    for (const table of result.tables) {
      expect(table.source).toBe(`model ${shipped.models.task}`);
      expect(table.rows.length, table.id).toBeGreaterThan(0);
    }
    expect(result.tables.map((t) => t.number)).toContain("Table 16");
  }, 600_000);

  it("spends what --plan gave: the same rollouts per step, no more model calls per role than planned", async () => {
    const plan = await planStudy(file, { cwd: work });
    expect(plan.steps.map((s) => s.id)).toEqual(result.spent.map((s) => s.id));
    for (const spent of result.spent) {
      const planned = plan.steps.find((s) => s.id === spent.id);
      if (!planned) throw new Error(`no plan for ${spent.id}`);
      expect(spent.rollouts, spent.id).toBe(planned.rollouts);
      for (const role of ROLES)
        expect(spent.calls[role], `${spent.id} ${role}`).toBeLessThanOrEqual(planned.calls[role]);
    }
    // What the study says it spent is what the server answered: the calls each step's store billed, by role, are
    // the server's requests of that role; the request cache's answers come on top of them in `spent`.
    const answered: Record<Role, number> = { agent: 0, customer: 0, judge: 0, proposer: 0 };
    for (const request of server.requests) answered[roleOfRequest(request)] += 1;
    const billed: Record<Role, number> = { agent: 0, customer: 0, judge: 0, proposer: 0 };
    for (const step of result.spent) {
      const store = openRunStore(join(result.dir, step.id), { readonly: true });
      try {
        for (const total of store.usageTotals())
          if (total.role in billed) billed[total.role as Role] += total.calls;
      } finally {
        store.close();
      }
    }
    expect(billed).toEqual(answered);
    for (const role of ROLES) {
      const spent = result.spent.reduce((sum, step) => sum + step.calls[role], 0);
      expect(spent, role).toBeGreaterThanOrEqual(answered[role]);
      expect(answered[role], role).toBeGreaterThan(0);
      expect(spent, role).toBeLessThanOrEqual(plan.total.calls[role]);
    }
  });
});
