import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { prepareWorkspace, type SandboxInfo } from "../../../src/envs/terminal/sandbox";
import {
  createTerminalEnv,
  type TerminalEnv,
  type TerminalEnvOptions,
} from "../../../src/envs/terminal/terminal-env";

/** A fresh workspace handed to the sandbox identity; removed by the returned cleanup. */
export async function makeWorkspace(
  info: SandboxInfo,
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "hsearch-test-ws-"));
  await prepareWorkspace(dir, info);
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Host processes whose command line contains `marker` (how tests see that a sandbox left nothing running). */
export async function processesMatching(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = await readFile(`/proc/${name}/cmdline`, "utf8");
      if (cmdline.includes(marker)) found.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Opens terminal environments for a test file and closes every one of them after each test. */
export function terminalEnvOpener(): (options?: TerminalEnvOptions) => Promise<TerminalEnv> {
  const opened: TerminalEnv[] = [];
  afterEach(async () => {
    for (const env of opened.splice(0)) await env.close();
  });
  return async (options = {}) => {
    const env = await createTerminalEnv(options);
    opened.push(env);
    return env;
  };
}
