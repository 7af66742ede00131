/**
 * Bad plug-in modules in a search config (issue 24): a missing module, an import that throws, a default export of
 * the wrong shape, a task that fails the task schema or the checks across tasks, a proposer of the wrong shape. Each
 * is `hsearch run`'s exit 2 with a message naming the config file, the field and the module (and the task and its
 * field), and no run directory is made.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { runCli } from "../helpers/cli";

const work = mkdtempSync(join(tmpdir(), "hsearch-plugin-input-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let count = 0;

/** A config in a directory of its own naming `suite` (and `proposer`) modules written there; `hsearch run` on it. */
async function runWith(modules: Record<string, string>, fields: { suites?: string[]; meta_model?: string }) {
  const base = mkdtempSync(join(work, `case-${++count}-`));
  for (const [name, text] of Object.entries(modules)) writeFileSync(join(base, name), text);
  const config = join(base, "search.yaml");
  writeFileSync(
    config,
    [
      "name: bad-plugin",
      `suites: [${(fields.suites ?? ["retail"]).join(", ")}]`,
      "objective: joint",
      `seed_harness: ${join(PACKAGE_ROOT, "harnesses", "bare")}`,
      "rounds: 1",
      "proposals_per_round: 1",
      "task_model: sim:default",
      `meta_model: ${fields.meta_model ?? "operators"}`,
      "",
    ].join("\n"),
  );
  const result = await runCli(["run", config, "--out", join(base, "run")], { cwd: base });
  expect(existsSync(join(base, "run")), "no run directory is made").toBe(false);
  return { ...result, config, base };
}

/** The example suite with its task list edited by `edit` (a JavaScript expression over `tasks`). */
function exampleSuiteWith(edit: string): string {
  const source = `${PACKAGE_ROOT}/examples/my-suite.mjs`;
  return [
    `import suite from ${JSON.stringify(source)};`,
    "const tasks = structuredClone(suite.tasks);",
    `${edit};`,
    'export default { ...suite, name: "kv-edited", tasks };',
    "",
  ].join("\n");
}

describe("bad plug-in modules", () => {
  it("a suite module that does not exist", async () => {
    const { code, stderr, config, base } = await runWith({}, { suites: ["./absent.mjs"] });
    expect(code).toBe(2);
    expect(stderr).toContain(
      `${config}: field 'suites': suites: module ${join(base, "absent.mjs")}: no such file`,
    );
  });

  it("a suite module whose import throws", async () => {
    const { code, stderr, config, base } = await runWith(
      { "boom.mjs": 'throw new Error("the store is not configured");\n' },
      { suites: ["retail", "./boom.mjs"] },
    );
    expect(code).toBe(2);
    expect(stderr).toContain(
      `${config}: field 'suites': suites: module ${join(base, "boom.mjs")}: importing it failed: the store is not configured`,
    );
  });

  it("a suite module without a default export, or one of the wrong shape", async () => {
    const none = await runWith({ "none.mjs": "export const suite = {};\n" }, { suites: ["./none.mjs"] });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("has no default export: export default defineSuite({...})");
    const shape = await runWith(
      { "shape.mjs": 'export default { name: "kv2", policy: "p", deferralHowTo: "d", tools: [] };\n' },
      { suites: ["./shape.mjs"] },
    );
    expect(shape.code).toBe(2);
    expect(shape.stderr).toContain(
      `${shape.config}: field 'suites': suites: module ${join(shape.base, "shape.mjs")}: its default export is not a suite (export default defineSuite({...})): tools:`,
    );
    const builtin = await runWith(
      { "retail.mjs": exampleSuiteWith("").replace('name: "kv-edited"', 'name: "retail"') },
      { suites: ["./retail.mjs"] },
    );
    expect(builtin.code).toBe(2);
    expect(builtin.stderr).toContain(
      "name: retail and terminal are the built-in suites: choose another name",
    );
  });

  it("a task that fails the task schema, naming the task and its field", async () => {
    const { code, stderr, config, base } = await runWith(
      { "kv.mjs": exampleSuiteWith('delete tasks.find((task) => task.id === "kv-2-ambiguous").blocker') },
      { suites: ["./kv.mjs"] },
    );
    expect(code).toBe(2);
    expect(stderr).toContain(
      `${config}: field 'suites': suites: module ${join(base, "kv.mjs")}: task kv-2-ambiguous: field blocker: a blocked task needs a blocker`,
    );
    const unknown = await runWith(
      { "kv.mjs": exampleSuiteWith('tasks[0].colour = "blue"') },
      { suites: ["./kv.mjs"] },
    );
    expect(unknown.stderr).toContain("task kv-1: field colour:");
  });

  it("a task set that fails the checks across tasks (a blocked task's source)", async () => {
    const { code, stderr } = await runWith(
      {
        "kv.mjs": exampleSuiteWith('tasks.find((task) => task.id === "kv-1-infeasible").source = "kv-nope"'),
      },
      { suites: ["./kv.mjs"] },
    );
    expect(code).toBe(2);
    expect(stderr).toContain("task kv-1-infeasible: field source: source 'kv-nope' is not among the tasks");
  });

  it("a suite module with no task of the search split, naming the module and the split", async () => {
    const { code, stderr, base } = await runWith(
      { "empty.mjs": exampleSuiteWith("tasks.length = 0") },
      { suites: ["./empty.mjs"] },
    );
    expect(code).toBe(2);
    expect(stderr).toContain(`the suite module ${join(base, "empty.mjs")} gives no task of split 'search'`);
  });

  it("a proposer module of the wrong shape, or an unknown suite name", async () => {
    const proposer = await runWith(
      { "p.mjs": 'export default { name: "p", propose: "not a function" };\n' },
      { meta_model: "./p.mjs" },
    );
    expect(proposer.code).toBe(2);
    expect(proposer.stderr).toContain(
      `${proposer.config}: field 'meta_model': meta_model: module ${join(proposer.base, "p.mjs")}: its default export is not a proposer (export default defineProposer({...})): propose: a function`,
    );
    const word = await runWith({}, { suites: ["kv"] });
    expect(word.code).toBe(2);
    expect(word.stderr).toContain(
      "a suite is retail, terminal, or the path of a suite module (./my-suite.mjs)",
    );
  });

  it("copies of the examples load: the config's paths are relative to the config file", async () => {
    const dir = mkdtempSync(join(work, "ok-"));
    copyFileSync(join(PACKAGE_ROOT, "examples", "my-suite.mjs"), join(dir, "my-suite.mjs"));
    writeFileSync(
      join(dir, "search.yaml"),
      `name: ok\nsuites: [./my-suite.mjs]\nobjective: joint\nseed_harness: ${join(PACKAGE_ROOT, "harnesses", "bare")}\nrounds: 0\nproposals_per_round: 1\ntask_model: sim:default\nseed: 1\n`,
    );
    const { code, stderr } = await runCli(["run", join(dir, "search.yaml"), "--out", join(dir, "run")], {
      cwd: work,
    });
    expect(code).toBe(0);
    // Its 6 feasible and 6 blocked search tasks, found from the config's directory, not the working directory.
    expect(stderr).toContain("12 search tasks");
  });
});
