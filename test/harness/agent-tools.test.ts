import { describe, expect, it } from "vitest";
import { createRetailEnv } from "../../src/envs/retail";
import { suiteTools } from "../../src/envs/suite-tools";
import { TERMINAL_TOOLS } from "../../src/envs/terminal";
import { agentTools } from "../../src/harness/agent-tools";
import { runEpisode } from "../../src/harness/episode";
import { type Harness, parseHarness } from "../../src/harness/load";
import { MockChatModel, textReply } from "../../src/models/mock";
import { toolNames } from "../../src/search/proposers/proposer-input";
import { blockedTrapTask, FakeEnv } from "../helpers/fake-env";

function harness(report: boolean, gate: boolean): Harness {
  const yaml = [
    "name: t",
    "agent: {max_steps: 2, temperature: 0, max_continues: 0}",
    "protocols:",
    "  abandon: {enabled: true}",
    `  report: {enabled: ${report}}`,
    "  self_check: {enabled: false, max_steps: 1}",
    "  harness_control: {enabled: false}",
    `  effect_gate: {enabled: ${gate}}`,
  ].join("\n");
  return parseHarness({ "harness.yaml": yaml, "system.md": "{{policy}}\n{{protocols}}\n{{playbook}}" }, "t");
}

const combos = [
  [false, false],
  [true, false],
  [false, true],
  [true, true],
] as const;

/** The names the model was offered in the episode's first request. */
async function offered(h: Harness, env: Parameters<typeof runEpisode>[0]["env"]): Promise<string[]> {
  const requests: string[][] = [];
  await runEpisode({
    harness: h,
    task: blockedTrapTask,
    env,
    model: new MockChatModel([textReply("done"), textReply("done"), textReply("done")]),
    seed: 1,
    repeat: 0,
    policy: "p",
    onRequest: (request) => requests.push((request.tools ?? []).map((tool) => tool.name)),
  });
  return requests[0] ?? [];
}

describe("agentTools: one list for the episode and the proposer input", () => {
  it.each(combos)(
    "retail, report %s, effect gate %s: the episode offers what the proposer is told",
    async (report, gate) => {
      const h = harness(report, gate);
      const names = await offered(h, createRetailEnv());
      expect(names).toEqual(toolNames(h, "retail"));
      expect(names).toEqual(agentTools(h, suiteTools("retail")).map((tool) => tool.name));
      expect(names.includes("submit_report")).toBe(report);
      expect(names.includes("state_assessment")).toBe(gate);
      expect(names).toContain("abstain");
    },
  );

  it("an environment without a deferral tool gets none, and the protocol tools come last", async () => {
    const h = harness(true, true);
    // A suite whose deferral is written with its own tools (as terminal's `infeasible.md`): no deferral tool.
    const env = new FakeEnv();
    Object.defineProperty(env, "deferralTool", { value: undefined });
    const names = await offered(h, env);
    expect(names).toEqual([...env.tools().map((tool) => tool.name), "state_assessment", "submit_report"]);
    expect(names).toEqual(agentTools(h, env).map((tool) => tool.name));
  });

  it("the terminal listing is the terminal environment's tools, with no deferral tool", () => {
    const h = harness(false, true);
    expect(toolNames(h, "terminal")).toEqual([
      ...TERMINAL_TOOLS.map((tool) => tool.name),
      "state_assessment",
    ]);
    expect(suiteTools("terminal").deferralTool).toBeUndefined();
  });
});
