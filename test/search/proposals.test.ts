import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createModel } from "../../src/api/create-model";
import { renderStatus } from "../../src/cli/text/status-text";
import { PACKAGE_ROOT } from "../../src/core/paths";
import type { Task } from "../../src/domain/task";
import { MockChatModel, textReply } from "../../src/models/mock";
import type { ChatModel } from "../../src/models/types";
import { loadReportData, renderReport } from "../../src/report";
import { rulesJudge } from "../../src/scoring";
import { searchConfigSchema } from "../../src/search/config/config-schema";
import { runSearch } from "../../src/search/loop/run-search";
import { runStatus } from "../../src/store/run-status";
import { runCli } from "../helpers/cli";
import { retailSubset } from "../helpers/task-subset";
import { storeForRun } from "../store/fixtures";

function setup(
  metaModel: ChatModel | null,
  rounds: number,
  perRoundHeldout = false,
  proposalsPerRound = 3,
  strategy: "greedy" | "pareto" = "greedy",
  extra: Record<string, unknown> = {},
) {
  const { tasks } = retailSubset({ perFamily: 2 });
  const config = searchConfigSchema.parse({
    name: "t",
    suites: ["retail"],
    objective: "joint",
    seed_harness: "harnesses/bare",
    rounds,
    proposals_per_round: proposalsPerRound,
    task_model: "sim:default",
    meta_model: metaModel ? "openai:meta" : "operators",
    seed: 2,
    strategy,
    heldout: { final: true, per_round: perRoundHeldout },
    ...extra,
  });
  const { runDir, store } = storeForRun("r", config);
  const split = (s: Task["split"]) => tasks.filter((t) => t.split === s);
  const inputs: unknown[] = [];
  const run = () =>
    runSearch({
      config,
      runId: "r",
      runDir,
      store,
      seedHarnessDir: join(PACKAGE_ROOT, "harnesses", "bare"),
      tasks: {
        search: split("search"),
        heldout: () => split("heldout"),
        independent: () => split("independent"),
      },
      model: createModel("sim:default"),
      metaModel,
      judge: rulesJudge,
      onProposerInput: (input) => inputs.push(structuredClone(input)),
    });
  return { run, store, runDir, tasks, inputs };
}

describe("proposer inputs", () => {
  it("never contain a held-out task id or a protected task field", async () => {
    const { run, tasks, inputs, store } = setup(null, 2, true);
    await run();
    expect(inputs.length).toBe(2);
    const text = JSON.stringify(inputs);
    const heldout = tasks.filter((t) => t.split !== "search");
    expect(heldout.length).toBeGreaterThan(0);
    for (const task of heldout) expect(text).not.toContain(task.id);
    for (const task of tasks.filter((t) => t.blocker)) {
      expect(text).not.toContain(task.blocker?.description);
      expect(text).not.toContain(`"${task.blocker?.id}"`);
    }
    expect(text).not.toMatch(/"(blocker|reference|verify|decisive_step|keywords)":/);
    // The held-out evaluations did run (final, and per-round diagnostics): the data exists, the proposer never saw it.
    expect(store.listEvaluations().some((e) => e.purpose === "heldout")).toBe(true);
    expect(Object.keys(runStatus(store).heldout.diagnostics ?? {})).toEqual(["round_1", "round_2"]);
    // Each round's incumbent is measured on the independent split as well, and status shows it per round.
    const diagnostics = store.listEvaluations().filter((e) => e.purpose === "diagnostic");
    expect(new Set(diagnostics.map((e) => e.split))).toEqual(new Set(["heldout", "independent"]));
    const round1 = (runStatus(store).heldout.diagnostics as Record<string, Record<string, unknown>>).round_1;
    expect(round1?.independent).toMatchObject({ feasible: { n: expect.any(Number) } });
    const table = renderStatus(runStatus(store));
    expect(table).toMatch(/round 1 incumbent\s+heldout \(diagnostic\)\s+\d\.\d{3}/);
    // No blocked task on the independent split: strict SA and AbsRec@1 are "-"; rates carry k/n and an interval.
    expect(table).toMatch(
      /round 2 incumbent\s+independent \(diagnostic\)\s+\d\.\d{3} \d+\/\d+ \[[^\]]+\]\s+-\s+-\s+\d\.\d{3} \d+\/\d+ \[/,
    );
    expect(store.countRollouts("diagnostic")).toBeGreaterThan(0);
    // The search view, the proposer's only access to the store, cannot reach them.
    const view = store.searchView();
    for (const candidate of view.candidates())
      for (const rollout of view.rollouts(candidate.commit)) expect(rollout.purpose).toBe("search");
    store.close();
  }, 240_000);
});

describe("an exhausted operator space, and stopping early", () => {
  it("is said in status when the operators have fewer new edits than the round asks for", async () => {
    // 20 proposals a round from the bare harness: more than the operators can make around it.
    const { run, store, runDir } = setup(null, 1, false, 20);
    await run();
    const status = runStatus(store);
    const round = status.rounds[1];
    expect(round?.exhausted).toBe(true);
    const made = round?.proposals.length ?? 0;
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThan(20);
    expect(status.rounds[0]?.exhausted).toBe(false);
    const event = store.listEvents().find((e) => e.kind === "operators_exhausted");
    expect(event?.data).toMatchObject({ round: 1, proposals: made });
    store.close();
    const text = await runCli(["status", runDir]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      new RegExp(`exhausted\\s+the operators found only ${made} new edit\\(s\\) around this parent`),
    );
    const json = await runCli(["status", runDir, "--json"]);
    expect(JSON.parse(json.stdout).rounds[1].exhausted).toBe(true);
  }, 240_000);

  it("stops a greedy search after a round in which the operators found no new edit, and says so", async () => {
    const { run, store, runDir } = setup(null, 40, false, 20);
    const outcome = await run();
    expect(outcome.stoppedBy).toBe("exhausted");
    const status = runStatus(store);
    const last = status.rounds.at(-1);
    // The round that found nothing is stored (status says it was exhausted); the next one never started.
    expect(last?.proposals).toEqual([]);
    expect(last?.exhausted).toBe(true);
    expect(last?.round).toBeLessThan(40);
    // Every earlier round made a proposal: the search stopped at the first empty round.
    expect(status.rounds.slice(1, -1).every((r) => r.proposals.length > 0)).toBe(true);
    expect(status.stopped_early).toEqual({ reason: "exhausted", round: (last?.round ?? 0) + 1 });
    expect(status.selected?.commit).toBe(status.incumbent?.commit);
    // Run again on the stored run, as a resume after the last round would: the stop is read from the store, so it
    // stops before the same round with the same selection and adds nothing.
    const again = await run();
    expect(again).toEqual(outcome);
    expect(runStatus(store).rounds.length).toBe(status.rounds.length);
    expect(renderReport(await loadReportData(store))).toContain(
      `Stopped before round ${(last?.round ?? 0) + 1}: the operators have no new edit around the incumbent`,
    );
    store.close();
    const text = await runCli(["status", runDir]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(
      `stopped before round ${(last?.round ?? 0) + 1}: the operators have no new edit around the incumbent`,
    );
  }, 240_000);

  it("says which round early_stop did not start", async () => {
    const { run, store, runDir } = setup(null, 12, false, 3, "greedy", { early_stop: { patience: 1 } });
    const outcome = await run();
    expect(outcome.stoppedBy).toBe("early_stop");
    const status = runStatus(store);
    const last = status.rounds.at(-1);
    expect(last?.accepted).toBeNull();
    expect(status.stopped_early).toEqual({ reason: "early_stop", round: (last?.round ?? 0) + 1 });
    store.close();
    const text = await runCli(["status", runDir]);
    expect(text.stdout).toContain(
      `stopped before round ${(last?.round ?? 0) + 1}: early_stop.patience rounds in a row without an accepted proposal`,
    );
  }, 240_000);

  it("does not stop a pareto search, whose next round may draw another parent from the front", async () => {
    const { run, store } = setup(null, 6, false, 20, "pareto");
    const outcome = await run();
    expect(outcome.stoppedBy).toBe("rounds");
    expect(runStatus(store).rounds.length).toBe(7);
    expect(runStatus(store).stopped_early).toBeNull();
    store.close();
  }, 240_000);
});

describe("bad proposals", () => {
  it("rejects a schema break, refuses an edit outside the harness, skips a duplicate, retries an invalid reply, and goes on", async () => {
    const bareYaml = readFileSync(join(PACKAGE_ROOT, "harnesses", "bare", "harness.yaml"), "utf8");
    const round1 = {
      proposals: [
        {
          rationale: "break the schema",
          edits: [{ path: "harness.yaml", content: "name: x\nagent: {max_steps: -1}\n" }],
        },
        { rationale: "escape the harness", edits: [{ path: "../x", content: "pwned" }] },
        { rationale: "change nothing", edits: [{ path: "harness.yaml", content: bareYaml }] },
      ],
    };
    const round2 = {
      proposals: [
        {
          rationale: "switch on the abandon protocol",
          edits: [
            {
              path: "harness.yaml",
              content: bareYaml.replace("abandon: {enabled: false}", "abandon: {enabled: true}"),
            },
          ],
        },
        {
          rationale: "a shorter system prompt",
          edits: [{ path: "system.md", content: "You are an agent. Do the task." }],
        },
        {
          rationale: "a far longer system prompt",
          edits: [
            { path: "system.md", content: `{{policy}}\n{{protocols}}\n{{playbook}}\n${"x".repeat(25_000)}` },
          ],
        },
      ],
    };
    const meta = new MockChatModel(
      [
        textReply("I think you should add a rule."), // not JSON: recorded, retried
        textReply(JSON.stringify(round1)),
        textReply(`Here you go:\n\`\`\`json\n${JSON.stringify(round2)}\n\`\`\``),
      ],
      { id: "openai:meta" },
    );
    const { run, store, runDir } = setup(meta, 2);
    await run();
    const status = runStatus(store);
    const r1 = status.rounds[1];
    expect(r1?.proposals.map((p) => p.state)).toEqual(["invalid", "skipped_duplicate"]);
    expect(r1?.proposals[0]?.rejected_reason).toMatch(/max_steps/);
    expect(r1?.proposals[1]?.rejected_reason).toMatch(/same harness as/);
    expect(r1?.failures).toHaveLength(1);
    expect(r1?.failures[0]?.reason).toMatch(/inside the harness|\.\./);
    const invalidReplies = store.listEvents().filter((e) => e.kind === "proposer_invalid_reply");
    expect(invalidReplies).toHaveLength(1);
    // Prose with no JSON object is named as such (it once read "Unexpected end of JSON input").
    expect(invalidReplies[0]?.data.reason).toBe(
      'the meta-agent\'s reply holds no JSON object: "I think you should add a rule."',
    );
    // The run went on: round 2's proposal was evaluated.
    expect(status.rounds[2]?.proposals[0]?.state).toMatch(/evaluated|rejected/);
    expect(typeof status.rounds[2]?.proposals[0]?.score).toBe("number");
    // A system prompt without {{policy}} is invalid before any rollout, with the file named.
    expect(status.rounds[2]?.proposals[1]?.state).toBe("invalid");
    expect(status.rounds[2]?.proposals[1]?.rejected_reason).toMatch(/system\.md.*\{\{policy\}\}/);
    const invalidCommit = status.rounds[2]?.proposals[1]?.commit ?? "";
    expect(store.listRollouts(invalidCommit, "search")).toHaveLength(0);
    // A proposal over the run's size limit is invalid by its size, named with the file and the setting, never run.
    const oversized = status.rounds[2]?.proposals[2];
    expect(oversized?.state).toBe("invalid");
    expect(oversized?.rejected_reason).toMatch(
      /system\.md:\d+: 25038 characters, more than 20000 \(limits\.harness_file_chars\)/,
    );
    expect(store.listRollouts(oversized?.commit ?? "", "search")).toHaveLength(0);
    expect(status.state).toBe("finished");
    // Nothing was written outside the harness repository.
    expect(existsSync(join(runDir, "x"))).toBe(false);
    // The meta-agent saw the memory of rejected proposals in round 2.
    const secondPrompt = meta.requests[2]?.messages[0]?.content ?? "";
    expect(secondPrompt).toContain("break the schema");
    expect(secondPrompt).toContain("escape the harness");
    store.close();
  }, 240_000);
});
