import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createModel } from "../../src/api/create-model";
import { PACKAGE_ROOT } from "../../src/core/paths";
import type { Task } from "../../src/domain/task";
import type { TrajectoryEvent } from "../../src/harness/trajectory";
import { MockChatModel, textReply } from "../../src/models/mock";
import { rulesJudge } from "../../src/scoring";
import { searchConfigSchema } from "../../src/search/config/config-schema";
import { runSearch } from "../../src/search/loop/run-search";
import { decisiveExcerpt, FAILURE_MODES } from "../../src/search/proposers/digest";
import { renderMetaPrompt, withCandidateNames } from "../../src/search/proposers/llm-proposer";
import type { ProposerInput } from "../../src/search/proposers/proposer-input";
import { estimateTokens, trimToTokens } from "../../src/search/proposers/text-budget";
import { runCli } from "../helpers/cli";
import { retailSubset } from "../helpers/task-subset";
import { storeForRun } from "../store/fixtures";

describe("token budgets", () => {
  it("cut between sentences (or JSON fields), never inside one", () => {
    const text =
      "The order was delivered. The customer also wants to keep it. Then a third sentence follows here.";
    const cut = trimToTokens(text, 16);
    expect(cut).toBe("The order was delivered. The customer also wants to keep it. […]");
    expect(trimToTokens(text, 100)).toBe(text);
    expect(trimToTokens('{"a": "x", "status": "delivered", "c": "long long long"}', 9)).toBe(
      '{"a": "x", "status": "delivered" […]',
    );
    expect(trimToTokens("one endless sentence without any stop at all in it", 4)).toBe("[…]");
  });
});

const bareYaml = readFileSync(join(PACKAGE_ROOT, "harnesses", "bare", "harness.yaml"), "utf8");
const reply = (proposals: Array<{ rationale: string; path: string; content: string }>) =>
  textReply(
    JSON.stringify({
      proposals: proposals.map((p) => ({
        rationale: p.rationale,
        edits: [{ path: p.path, content: p.content }],
      })),
    }),
  );

describe("what the llm proposer sees", () => {
  it("is what `hsearch digest` prints: every failure mode's examples, rejected diffs, protocols, tools — and no held-out or independent task", async () => {
    const { tasks } = retailSubset({ perFamily: 4 });
    const config = searchConfigSchema.parse({
      name: "d",
      suites: ["retail"],
      objective: "joint",
      seed_harness: "harnesses/bare",
      rounds: 3,
      proposals_per_round: 2,
      task_model: "sim:default",
      meta_model: "openai:meta",
      seed: 4,
    });
    const { runDir, store } = storeForRun("d", config);
    const meta = new MockChatModel(
      [
        reply([
          {
            rationale: "turn on the effect gate",
            path: "harness.yaml",
            content: bareYaml.replace("effect_gate: {enabled: false}", "effect_gate: {enabled: true}"),
          },
          { rationale: "shorter prompt", path: "system.md", content: "You are an agent. Do the task." },
        ]),
        reply([
          {
            rationale: "turn on abandon",
            path: "harness.yaml",
            content: bareYaml.replace("abandon: {enabled: false}", "abandon: {enabled: true}"),
          },
        ]),
        reply([
          {
            rationale: "a longer step budget",
            path: "harness.yaml",
            content: bareYaml.replace("max_steps: 30", "max_steps: 40"),
          },
        ]),
      ],
      { id: "openai:meta" },
    );
    const inputs: ProposerInput[] = [];
    const split = (s: Task["split"]) => tasks.filter((t) => t.split === s);
    await runSearch({
      config,
      runId: "d",
      runDir,
      store,
      seedHarnessDir: join(PACKAGE_ROOT, "harnesses", "bare"),
      tasks: {
        search: split("search"),
        heldout: () => split("heldout"),
        independent: () => split("independent"),
      },
      model: createModel("sim:default"),
      metaModel: meta,
      judge: rulesJudge,
      onProposerInput: (input) => inputs.push(input),
    });
    expect(meta.requests).toHaveLength(3);
    const sent = meta.requests.map((r) => r.messages[0]?.content ?? "");

    // `hsearch digest` prints the very prompt of each round.
    const rounds = store.listRounds();
    for (const round of [1, 3]) {
      const incumbent = rounds.find((r) => r.round === round)?.incumbent_before ?? "";
      const cli = await runCli([
        "digest",
        runDir,
        "--candidate",
        incumbent.slice(0, 10),
        "--round",
        String(round),
      ]);
      expect(cli.code, cli.stderr).toBe(0);
      const prompt = sent[round - 1] ?? "-";
      expect(cli.stdout).toBe(prompt.endsWith("\n") ? prompt : `${prompt}\n`);
    }

    const last = sent[2] ?? "";
    const digest = inputs[2]?.digest;
    // Examples of every failure mode present (step_limit has no excerpt of its own), per family.
    const present = FAILURE_MODES.filter((mode) => (digest?.modes[mode] ?? 0) > 0 && mode !== "step_limit");
    expect(present.length).toBeGreaterThan(2);
    for (const mode of present) expect(last, mode).toMatch(new RegExp(`### [a-z]+ × ${mode}: task `));
    // The agent's own steps around the decisive step, and the tables for incumbent and parent.
    expect(last).toMatch(/- step \d+, agent: /);
    expect(last).toContain("| family | blocked n | M0 | M1 | M2 | M3 | strict SA | AbsRec@1 |");
    expect(last).toContain("Its parent (");
    // Protocol descriptions, the rendered system prompt and the tools.
    expect(last).toContain("- `effect_gate` (");
    expect(last).toContain("- `self_check` (off)");
    expect(last).toMatch(/Tools: .*`get_order_details`.*`abstain`/);
    expect(last).toContain("[the retail policy:");
    // Rejected proposals with their diffs, scores and verdict reasons; the invalid one with its reason.
    expect(last).toContain("```diff");
    expect(last).toMatch(/round 1 p\d \(invalid: .*\{\{policy\}\}/);
    expect(last).toMatch(/round \d p\d \(rejected, score 0\.\d{4}/);
    // The lineage with score deltas.
    expect(last).toMatch(
      /Accepted edits so far[\s\S]*round \d r\dp\d: score 0\.\d+ \(Δ [+-]0\.\d{4}\)|\(none yet: the incumbent is the seed\)/,
    );
    // Candidates by their stable names, never by commit id (a commit id holds the run id: another run's prompt would
    // differ, and a request cache shared across runs could not answer it).
    expect(last).toMatch(/Incumbent \((seed|r\dp\d), score/);
    expect(last).toMatch(/Its parent \((seed|r\dp\d), score/);
    for (const prompt of sent)
      for (const c of store.listCandidates()) expect(prompt).not.toContain(c.commit.slice(0, 12));
    // Held-out and independent tasks never reach the proposer.
    for (const task of tasks.filter((t) => t.split !== "search")) {
      expect(last).not.toContain(task.id);
      expect(JSON.stringify(inputs)).not.toContain(task.id);
    }
    for (const task of tasks.filter((t) => t.blocker))
      expect(last).not.toContain(task.blocker?.description ?? "-");

    // The budget: trimmed in a fixed order, deterministically, down to what fits.
    const input = inputs[2] as ProposerInput;
    const full = renderMetaPrompt({ ...input, count: 2, objective: "joint", maxTokens: 1_000_000 });
    const small = renderMetaPrompt({
      ...input,
      count: 2,
      objective: "joint",
      maxTokens: estimateTokens(full) - 200,
    });
    expect(estimateTokens(small)).toBeLessThanOrEqual(estimateTokens(full) - 200);
    expect(small).toBe(
      renderMetaPrompt({ ...input, count: 2, objective: "joint", maxTokens: estimateTokens(full) - 200 }),
    );
    expect(small).toContain(input.harness.files["harness.yaml"] ?? "-");
    store.close();
  }, 120_000);
});

describe("the excerpt of a failing example", () => {
  const events: TrajectoryEvent[] = [
    {
      type: "message",
      step: 0,
      author: "customer",
      text: "Cancel order #W1. I still want it delivered, though.",
    },
    { type: "tool_call", step: 1, author: "agent", id: "c1", name: "find_user_id_by_email", arguments: {} },
    { type: "observation", step: 1, id: "c1", name: "find_user_id_by_email", text: "ana_1", ok: true },
  ];

  it("is the opening request for an ambiguous task, whose decisive step follows the authentication", () => {
    expect(decisiveExcerpt(events, 2, "ambiguous")).toBe(
      "Cancel order #W1. I still want it delivered, though.",
    );
  });

  it("is the last observation before the decisive step otherwise", () => {
    expect(decisiveExcerpt(events, 2, "infeasible")).toBe("ana_1");
    expect(decisiveExcerpt(events, 1, "trap")).toBe("Cancel order #W1. I still want it delivered, though.");
  });
});

describe("commit ids in the llm proposer's prompt", () => {
  it("become the candidates' stable names, whole or cut to 12 characters as stored reasons cut them", () => {
    const seed = "3f1c9a7be0d24c51a8e6f0b9d2c47e15a9b3c6d8";
    const proposal = "a90e44c1d7f35b2e8c0a61f9d4b7e3c2a5f8e1d0";
    const text = `Incumbent (${seed}); rejected: same harness as ${proposal.slice(0, 12)} (round 1); 3f1c9a7 stays`;
    expect(withCandidateNames(text, { [seed]: "seed", [proposal]: "r1p2" })).toBe(
      "Incumbent (seed); rejected: same harness as r1p2 (round 1); 3f1c9a7 stays",
    );
  });
});
