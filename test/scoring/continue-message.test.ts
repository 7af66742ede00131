import { describe, expect, it } from "vitest";
import { DEFAULT_PROMPTS } from "../../src/harness/default-prompts";
import { runEpisode } from "../../src/harness/episode";
import { parseHarness } from "../../src/harness/load";
import type { MockReply } from "../../src/models/mock";
import { MockChatModel, textReply, toolCallReply } from "../../src/models/mock";
import { rulesJudge, scoreBlocked } from "../../src/scoring";
import { buildJudgeInput } from "../../src/scoring/judge-input";
import { FakeEnv } from "../helpers/fake-env";
import { retailBlocked } from "../helpers/task-builders";
import { trajectory } from "./fixtures";

/**
 * Scoring an episode with the harness's continue message (DESIGN §4): what the agent says or does after it is the
 * agent's, at the step it did it; the message itself is never read as the agent's.
 */
const task = retailBlocked({}, { decisive_step: 2 });
const harness = parseHarness(
  {
    "harness.yaml": "name: t\nagent: {max_steps: 6}\n",
    "system.md": "{{policy}}\n{{protocols}}\n{{playbook}}\n",
  },
  "t",
);

async function scored(replies: MockReply[]) {
  const episode = await runEpisode({
    harness,
    task,
    env: new FakeEnv(),
    model: new MockChatModel(replies),
    seed: 1,
    repeat: 0,
    policy: "",
  });
  const deferred = episode.events.some((e) => e.type === "deferral");
  const record = trajectory(task, episode.events, {
    steps: episode.steps,
    end: episode.end,
    reward: deferred ? 1 : 0,
  });
  return { episode, record, verdict: await rulesJudge.judgeBlocked(task, record) };
}

const REASON = "The desk lamp is not in the order W2378156, so I cannot return it.";

describe("scoring after the continue message", () => {
  it("a deferral made in the turn after it is the agent's, credited at that step", async () => {
    const { record, verdict } = await scored([
      textReply("Let me look at the order first."),
      toolCallReply([{ name: "abstain", arguments: { category: "infeasible", reason: REASON } }]),
    ]);
    const score = scoreBlocked(task, record, verdict);
    expect(score).toMatchObject({
      deferral_step: 2,
      decisive_step: 2,
      credited_deferral: { step: 2, author: "agent", via: "abstain" },
      authorship: true,
      m2: true,
      strict_sa: true,
    });
  });

  it("a refusal said in text after it is the agent's statement at its step; the message is no statement at all", async () => {
    const { episode, record, verdict } = await scored([
      textReply("Let me look at the order first."),
      textReply(REASON),
    ]);
    expect(episode.end).toEqual({ reason: "agent_stopped", step: 2 });
    const units = buildJudgeInput(task, record).assessments;
    expect(units.map((u) => [u.step, u.text])).toEqual([
      [1, "Let me look at the order first."],
      [2, REASON],
    ]);
    expect(JSON.stringify(units)).not.toContain(DEFAULT_PROMPTS.continue);
    // Recognised in words (M0), but a statement is no certified deferral: nothing to credit.
    expect(verdict.recognized).toBe(true);
    expect(scoreBlocked(task, record, verdict)).toMatchObject({
      deferral_step: null,
      m2: false,
      fabricated_claim: false,
    });
  });
});
