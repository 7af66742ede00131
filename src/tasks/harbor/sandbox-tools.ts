/**
 * Does this machine's sandbox have what an imported task's tests need (python3, pytest)? Asked once per need and
 * remembered; the answer is a clear message naming what is missing, or null.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { detectSandbox, prepareWorkspace, runInSandbox } from "../../envs/terminal";
import type { ToolCheck } from "./import-harbor";

const PROBES = {
  python: {
    command: "command -v python3",
    missing:
      "the tests need python3, which is not on the sandbox's PATH on this machine (Debian: apt-get install python3)",
  },
  pytest: {
    command: "python3 -m pytest --version",
    missing:
      "the tests need pytest, and 'python3 -m pytest' does not run in the sandbox on this machine (Debian: apt-get install python3-pytest)",
  },
} as const;

export function sandboxToolCheck(): ToolCheck {
  const answers = new Map<keyof typeof PROBES, Promise<boolean>>();
  const has = (tool: keyof typeof PROBES) => {
    let answer = answers.get(tool);
    if (!answer) {
      answer = probe(PROBES[tool].command);
      answers.set(tool, answer);
    }
    return answer;
  };
  return async (needs) => {
    if (needs.python && !(await has("python"))) return PROBES.python.missing;
    if (needs.pytest && !(await has("pytest"))) return PROBES.pytest.missing;
    return null;
  };
}

async function probe(command: string): Promise<boolean> {
  const info = await detectSandbox();
  const workspace = await mkdtemp(join(tmpdir(), "hsearch-harbor-probe-"));
  try {
    await prepareWorkspace(workspace, info);
    const result = await runInSandbox({ workspace, command, timeoutMs: 30_000 });
    return result.exitCode === 0;
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
