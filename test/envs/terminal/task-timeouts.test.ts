import { describe, expect, it } from "vitest";
import type { Task, TerminalTimeouts } from "../../../src/domain/task";
import { createTaskEnvironment, verifyTask } from "../../../src/envs/suite-env";
import { terminalEnvOptions, verifierTimeoutMs } from "../../../src/envs/terminal/task-options";
import { terminalFeasible } from "../../helpers/task-builders";

/** A terminal task with the given time limits whose verifier sleeps `verifierSleep` seconds, then passes. */
function timedTask(timeouts: TerminalTimeouts, verifierSleep: number): Task {
  return terminalFeasible({
    id: "timed",
    instruction: "Wait.",
    env: { files: { "a.txt": "a\n" }, timeouts },
    reference: { solution: "#!/bin/bash\ntrue\n" },
    verify: {
      kind: "terminal_test",
      script: `#!/bin/bash\nsleep ${verifierSleep}\necho 1 > /logs/verifier/reward.txt\n`,
    },
  });
}

describe("a terminal task's time limits (task.toml's timeouts)", () => {
  it("map to the agent's episode budget, one command's limit, the setup's and the verifier's", () => {
    const spec = { timeouts: { agent_sec: 900, command_sec: 30, setup_sec: 120, verifier_sec: 45 } };
    expect(terminalEnvOptions(spec)).toEqual({
      agentBudgetMs: 900_000,
      commandTimeoutMs: 30_000,
      setupTimeoutMs: 120_000,
    });
    expect(verifierTimeoutMs(spec)).toBe(45_000);
    // Harbor has no per-command limit: an agent timeout alone leaves hsearch's default per command.
    expect(terminalEnvOptions({ timeouts: { agent_sec: 5 } })).toEqual({ agentBudgetMs: 5_000 });
  });

  it("spend the agent's budget across its commands and cut the verifier at its own limit", async () => {
    const task = timedTask({ agent_sec: 1.5, command_sec: 30, verifier_sec: 1 }, 5);
    const env = await createTaskEnvironment(task);
    try {
      const agent = (step: number) => ({ step, author: "agent" as const });
      expect((await env.call("bash", { command: "sleep 2" }, agent(1))).ok).toBe(false);
      const after = await env.call("bash", { command: "echo hi" }, agent(2));
      expect(after.output).toBe("Error: the agent's time budget (1.5 s) is spent; no command runs");
      // The verifier would pass after its 5 s sleep (the default limit is 600 s): cut at its own 1 s, it fails.
      expect(await verifyTask(task, env, { agentMessages: [], completed: true })).toBe(0);
    } finally {
      await env.close();
    }
  });

  it("let a verifier within its limit pass", async () => {
    const task = timedTask({ verifier_sec: 20 }, 1);
    const env = await createTaskEnvironment(task);
    try {
      expect(await verifyTask(task, env, { agentMessages: [], completed: true })).toBe(1);
    } finally {
      await env.close();
    }
  });
});
