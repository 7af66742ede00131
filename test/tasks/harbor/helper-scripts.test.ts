/**
 * A shell script beside tests/test.sh (published: configure-git-webserver's `tests/verify.sh`, which runs
 * `apt-get install -y expect` before using it) installs its tools the way test.sh does: the importer turns those
 * lines into requirements and drops them, on both paths. Reproduced by a task directory of our own.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Task, TerminalEnvSpec } from "../../../src/domain/task";
import { createTaskEnvironment, verifyTask } from "../../../src/envs/suite-env";
import { convertTaskDir } from "../../../src/tasks/importers/harbor/import-harbor";

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function helperTask(): string {
  const dir = mkdtempSync(join(tmpdir(), "hsearch-helper-script-"));
  temps.push(dir);
  const write = (path: string, text: string) => {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write("task.toml", 'version = "1.0"\n[verifier]\ntimeout_sec = 60.0\n[agent]\ntimeout_sec = 60.0\n');
  write("instruction.md", "Write the number 3 to /app/n.json.\n");
  write("environment/Dockerfile", "FROM ubuntu:24.04\nWORKDIR /app\n");
  write("solution/solve.sh", "#!/bin/bash\necho 3 > /app/n.json\n");
  write(
    "tests/verify.sh",
    [
      "#!/bin/bash",
      "# Install jq for testing",
      "apt-get update",
      "DEBIAN_FRONTEND=noninteractive apt-get install -y jq",
      'if [ "$(jq . /app/n.json)" = 3 ]; then echo "TEST PASSED"; else echo "TEST FAILED"; fi',
      "",
    ].join("\n"),
  );
  write(
    "tests/test.sh",
    [
      "#!/bin/bash",
      "if bash /tests/verify.sh | grep -q 'TEST PASSED'; then echo 1 > /logs/verifier/reward.txt;",
      "else echo 0 > /logs/verifier/reward.txt; fi",
      "",
    ].join("\n"),
  );
  return dir;
}

describe("a helper script beside test.sh", () => {
  it("has its installs taken as requirements and dropped from it, on the sandbox path", async () => {
    const converted = convertTaskDir(helperTask(), "search");
    if (!converted.ok) throw new Error(converted.reason);
    expect(converted.requires.debian).toContain("jq");
    const script = (converted.task.verify as { script: string }).script;
    expect(script).toContain("jq . /app/n.json");
    expect(script).not.toMatch(/apt-get (update|install)/);

    const task: Task = converted.task;
    const env = await createTaskEnvironment(task);
    try {
      await env.call("bash", { command: "echo 3 > /app/n.json" }, { step: 1, author: "agent" });
      expect(await verifyTask(task, env, { agentMessages: [], completed: true })).toBe(1);
    } finally {
      await env.close();
    }
  }, 120_000);

  it("puts its packages into the image's run-time layer on the Docker path", () => {
    const converted = convertTaskDir(helperTask(), "search", { sandbox: "docker" });
    if (!converted.ok) throw new Error(converted.reason);
    const image = (converted.task.env as TerminalEnvSpec).image;
    expect(image?.run_packages?.debian).toContain("jq");
  });
});
