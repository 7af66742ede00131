/**
 * The native verifier of a terminal task, Harbor style: the test script runs in the environment's sandbox after
 * the agent (the same persistent environment: the agent's background services are still running; same identity,
 * no network) with the workspace at /workspace and /app, its files at /tests
 * (read-only), and /logs writable; it writes its reward to /logs/verifier/reward.txt. /logs lives outside the
 * workspace, so nothing the agent did can pre-write the reward, and the verifier's run is not an effect of the
 * episode.
 */
import { constants } from "node:fs";
import { mkdir, open, readdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { badInput } from "../../core";
import { cutMiddle } from "./output-cut";
import { handWorkspaceTo } from "./sandbox-host";
import type { TerminalEnv } from "./terminal-env";
import { workspaceRelativePath } from "./workspace-path";

export const DEFAULT_VERIFIER_TIMEOUT_MS = 600_000;
/**
 * How much of the script's output is kept, head and tail, for people reading the episode (a failing pytest's
 * assertions come before its summary at the end); more than an observation shows an agent.
 */
export const VERIFIER_OUTPUT_BYTES = 16 * 1024;
/** Where the script must write its reward, inside the sandbox. */
export const REWARD_PATH = "/logs/verifier/reward.txt";

export interface VerifierResult {
  /** 1 when the reward file holds the number 1, else 0. */
  reward: 0 | 1;
  /** The number in the reward file, or null when there is none or it is not a number. */
  rawReward: number | null;
  /** Why the reward is 0 without the script saying so (no reward file, not a number, timeout); else null. */
  problem: string | null;
  exitCode: number | null;
  timedOut: boolean;
  /** stdout and stderr as the script wrote them, head and tail within VERIFIER_OUTPUT_BYTES. */
  output: string;
  durationMs: number;
}

export async function runVerifier(
  env: TerminalEnv,
  script: string,
  options: { timeoutMs?: number; files?: Record<string, string> } = {},
): Promise<VerifierResult> {
  // The session mounted these at /tests and /logs when the episode began; they are filled in place.
  const { tests, logs } = env.session.paths;
  await emptyDir(tests);
  await emptyDir(logs);
  await mkdir(join(logs, "verifier"), { mode: 0o755 });
  for (const [path, content] of Object.entries(options.files ?? {})) {
    const relative = workspaceRelativePath(path, `files.${path}`);
    if (relative === "test.sh") throw badInput("verifier files must not replace test.sh", { field: "files" });
    await mkdir(dirname(join(tests, relative)), { recursive: true, mode: 0o755 });
    await writeFile(join(tests, relative), content, { mode: 0o644 });
  }
  await writeFile(join(tests, "test.sh"), script, { mode: 0o755 });
  if (env.user) await handWorkspaceTo(join(logs, "verifier"), env.user);
  await env.session.openLogs();

  const run = await env.runCommand(["/bin/bash", "/tests/test.sh"], {
    timeoutMs: options.timeoutMs ?? DEFAULT_VERIFIER_TIMEOUT_MS,
    mergeOutput: true,
    displayBytes: VERIFIER_OUTPUT_BYTES,
  });
  const rewardText = await readRewardFile(join(logs, "verifier", "reward.txt"));
  const rawReward = rewardText === null || rewardText.trim() === "" ? null : Number(rewardText.trim());
  const parsed = rawReward === null || Number.isNaN(rawReward) ? null : rawReward;
  let problem: string | null = null;
  if (run.timedOut) problem = "the verifier timed out";
  else if (rewardText === null) problem = `the verifier wrote no ${REWARD_PATH}`;
  else if (parsed === null)
    problem = `${REWARD_PATH} does not hold a number: '${cutMiddle(rewardText.trim(), 200)}'`;
  return {
    reward: parsed === 1 && !run.timedOut ? 1 : 0,
    rawReward: parsed,
    problem,
    exitCode: run.exitCode,
    timedOut: run.timedOut,
    output: run.output,
    durationMs: run.durationMs,
  };
}

/** Remove what a directory holds, keeping the directory (it is a mount point of the episode's sandbox). */
async function emptyDir(dir: string): Promise<void> {
  for (const name of await readdir(dir)) await rm(join(dir, name), { recursive: true, force: true });
}

/** The reward file's text, or null if absent; never followed through a symlink, at most 4 KB. */
async function readRewardFile(path: string): Promise<string | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}
