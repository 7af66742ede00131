import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rewriteTestScript } from "../../../src/tasks/importers/harbor/test-script";

// A task's working directory holding a file named like a standard module (code-from-image's /app/code.py): pytest
// run by uvx or as `pytest` never imports it in place of the module, so the rewritten command must not either.
function shadowingTask(): { work: string; tests: string } {
  const root = mkdtempSync(join(tmpdir(), "pytest-path-"));
  const work = join(root, "app");
  const tests = join(root, "tests");
  mkdirSync(work);
  mkdirSync(tests);
  writeFileSync(join(work, "code.py"), "# the task's own file, not the standard module\nVALUE = 1\n");
  writeFileSync(
    join(tests, "test_outputs.py"),
    "import code\n\ndef test_std():\n    assert code.InteractiveConsole\n",
  );
  return { work, tests };
}

const bash = (script: string) => spawnSync("bash", ["-c", script], { encoding: "utf8" });

describe("the rewritten pytest command and the working directory", () => {
  it("runs the tests of a task whose working directory shadows a standard module, as uvx's pytest does", () => {
    const { work, tests } = shadowingTask();
    // What `python3 -m pytest` alone does there: the task's code.py wins (so this test can tell the difference).
    expect(bash(`cd ${work} && python3 -m pytest -q ${tests}/test_outputs.py`).status).not.toBe(0);
    for (const source of [
      `#!/bin/bash\ncd ${work}\nuvx -p 3.13 -w pytest==8.4.1 pytest ${tests}/test_outputs.py -rA\n`,
      `#!/bin/bash\ncd ${work} && pytest -q ${tests}/test_outputs.py\n`,
      `#!/bin/bash\ncd ${work} && timeout 60 pytest -q ${tests}/test_outputs.py\n`,
    ]) {
      const run = bash(rewriteTestScript(source).script);
      expect(run.stdout + run.stderr).toMatch(/1 passed/);
      expect(run.status).toBe(0);
    }
  });
});
