/**
 * The infeasible kinds that take a Python module away: `module-missing` (a package the work imports is not
 * installed) and `operation-unsupported` (a standard-library capability the interpreter lacks) — the imports they
 * find, and their proofs in the real sandbox on the word-count fixture with a Python solution.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createModel } from "../../../src/api/create-model";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import type { TerminalTask } from "../../../src/domain/task";
import { loadHarness } from "../../../src/harness/load";
import { type OracleRun, proveVariant } from "../../../src/tasks/generators/pair/prove";
import {
  capabilityImports,
  pythonImports,
  thirdPartyImports,
} from "../../../src/tasks/generators/pair/python-modules";
import { type SourceSurvey, surveySource } from "../../../src/tasks/generators/pair/survey";
import { candidateVariants } from "../../../src/tasks/generators/pair/variants";
import { runScriptIn } from "../../../src/tasks/generators/terminal/check";
import { importHarbor } from "../../../src/tasks/importers/harbor/import-harbor";

const SOLUTION = `python3 - <<'PY'
import sqlite3
import yaml
words = open("/app/notes.txt").read().split()
count = sqlite3.connect(":memory:").execute("select ?", (len(words),)).fetchone()[0]
open("/app/count.txt", "w").write(yaml.safe_dump(count).splitlines()[0] + "\\n")
PY
`;

let source: TerminalTask;
let survey: SourceSurvey;
let oracle: OracleRun;

beforeAll(async () => {
  const imported = await importHarbor(
    join(PACKAGE_ROOT, "test", "fixtures", "harbor-pair", "word-count"),
    "search",
    {
      host: { installed: async (names) => new Set(names), available: async (names) => new Set(names) },
    },
  );
  const task = imported.tasks[0] as TerminalTask;
  source = { ...task, reference: { solution: SOLUTION } };
  const surveyed = await surveySource(source);
  if (!surveyed.ok) throw new Error(surveyed.reason);
  survey = surveyed.survey;
  oracle = { model: createModel("oracle"), harness: loadHarness(join(PACKAGE_ROOT, "harnesses", "abandon")) };
}, 120_000);

describe("Python imports as infeasible targets", () => {
  it("reads the top-level modules of import lines, not of strings or comments", () => {
    const script =
      "import numpy as np, os.path\nfrom scipy.optimize import curve_fit\n  import json\n# import no\nx = 'import a'\n";
    expect(pythonImports(script)).toEqual(["json", "numpy", "os", "scipy"]);
  });

  it("leaves out the standard library, the test runner and the task's own modules", () => {
    const scripts = ["import numpy, feal, pytest, sqlite3\nfrom kv_pb2 import X\nimport __future__\n"];
    expect(thirdPartyImports(scripts, ["feal.py", "gen/kv_pb2.py"])).toEqual(["numpy"]);
    expect(capabilityImports(scripts)).toEqual(["sqlite3"]);
  });
});

describe("module-missing and operation-unsupported in the sandbox", () => {
  it("proves both on a solution that needs the module: it fails, the oracle's import shows the error", async () => {
    const candidates = candidateVariants(source, survey, "infeasible", 1, 10);
    const missing = candidates.find((candidate) => candidate.kind === "module-missing");
    const unsupported = candidates.find((candidate) => candidate.kind === "operation-unsupported");
    expect(missing?.target).toBe("yaml");
    expect(unsupported?.target).toBe("sqlite3");
    for (const candidate of [missing, unsupported]) {
      if (candidate === undefined) throw new Error("no candidate");
      expect(await proveVariant(candidate, source, oracle), candidate.kind).toBeNull();
      // The oracle's read shows the evidence; the module is really gone for every command of the episode.
      const read = await runScriptIn(candidate.task, `python3 -c 'import ${candidate.target}'`);
      expect(read.output).toContain(candidate.task.sim?.evidence_text);
    }
  }, 300_000);

  it("takes no module only the verifier imports: the work does not need it", () => {
    if (source.verify.kind !== "terminal_test") throw new Error("the fixture has a terminal test");
    const checked: TerminalTask = {
      ...source,
      reference: { solution: SOLUTION.replace("import yaml\n", "") },
      verify: {
        ...source.verify,
        script: `python3 - <<'PY'\nimport requests\nimport ssl\nPY\n${source.verify.script}`,
      },
    };
    const targets = candidateVariants(checked, survey, "infeasible", 1, 10)
      .filter(
        (candidate) => candidate.kind === "module-missing" || candidate.kind === "operation-unsupported",
      )
      .map((candidate) => candidate.target);
    expect(targets).not.toContain("requests");
    expect(targets).not.toContain("ssl");
    expect(targets).not.toContain("yaml");
    expect(targets).toContain("sqlite3");
  });

  it("rejects the variant when the solution does without the module", async () => {
    const tolerant = {
      ...source,
      reference: {
        solution: SOLUTION.replace(
          "import yaml\n",
          "try:\n    import yaml\nexcept ImportError:\n    import json as yaml\n    yaml.safe_dump = yaml.dumps\n",
        ),
      },
    };
    const candidate = candidateVariants(tolerant, survey, "infeasible", 1, 10).find(
      (c) => c.kind === "module-missing",
    );
    expect(candidate?.target).toBe("yaml");
    expect(await proveVariant(candidate as NonNullable<typeof candidate>, tolerant, oracle)).toMatch(
      /still passes its own verifier/,
    );
  }, 300_000);
});
