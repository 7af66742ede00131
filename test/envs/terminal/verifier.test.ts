import { afterEach, describe, expect, it } from "vitest";
import { createTerminalEnv, type TerminalEnv } from "../../../src/envs/terminal/terminal-env";
import { runVerifier } from "../../../src/envs/terminal/verifier";

const agent = (step: number) => ({ step, author: "agent" as const });
const REWARD_BY_TEST = [
  "#!/bin/bash",
  "mkdir -p /logs/verifier",
  'if [ "$(cat /app/answer.txt 2>/dev/null)" = "42" ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi',
].join("\n");

let env: TerminalEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe("runVerifier", () => {
  it("gives reward 1 when the test script writes 1, and 0 when it writes 0", async () => {
    env = await createTerminalEnv();
    const before = await runVerifier(env, REWARD_BY_TEST);
    expect(before).toMatchObject({ reward: 0, rawReward: 0, problem: null, timedOut: false });
    await env.call("write_file", { path: "answer.txt", content: "42" }, agent(1));
    const after = await runVerifier(env, REWARD_BY_TEST);
    expect(after).toMatchObject({ reward: 1, rawReward: 1, problem: null, exitCode: 0 });
  });

  it("reads 1.0 as 1 and a fraction as 0, keeping the raw number", async () => {
    env = await createTerminalEnv();
    expect(await runVerifier(env, "echo 1.0 > /logs/verifier/reward.txt")).toMatchObject({
      reward: 1,
      rawReward: 1,
    });
    expect(await runVerifier(env, "echo 0.5 > /logs/verifier/reward.txt")).toMatchObject({
      reward: 0,
      rawReward: 0.5,
    });
  });

  it("says why the reward is 0 when the script writes no reward or not a number", async () => {
    env = await createTerminalEnv();
    const none = await runVerifier(env, "echo testing; exit 0");
    expect(none).toMatchObject({
      reward: 0,
      rawReward: null,
      problem: "the verifier wrote no /logs/verifier/reward.txt",
    });
    expect(none.output).toBe("testing\n");
    const garbage = await runVerifier(env, "echo passed > /logs/verifier/reward.txt");
    expect(garbage.reward).toBe(0);
    expect(garbage.problem).toContain("does not hold a number: 'passed'");
  });

  it("sees its own test files read-only at /tests, and the agent cannot reach /logs", async () => {
    env = await createTerminalEnv();
    const attempt = await env.call(
      "bash",
      { command: "mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt" },
      agent(1),
    );
    expect(attempt.ok).toBe(false);
    const script = "touch /tests/x 2>/dev/null || bash /tests/check.sh";
    const result = await runVerifier(env, script, {
      files: { "check.sh": "echo 1 > /logs/verifier/reward.txt" },
    });
    expect(result.reward).toBe(1);
  });

  it("reports a verifier that runs past its time", async () => {
    env = await createTerminalEnv();
    const result = await runVerifier(env, "echo 1 > /logs/verifier/reward.txt; sleep 30", { timeoutMs: 500 });
    expect(result).toMatchObject({ reward: 0, timedOut: true, problem: "the verifier timed out" });
  });
});
