/**
 * `hsearch tasks list|validate|generate|import-tau2|import-harbor|pair`: manage task suites (docs/DESIGN.md §8). Thin: parsing and printing here,
 * the work in src/tasks.
 */

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Argv } from "yargs";
import { suiteProblem } from "../api/select-tasks";
import { HsearchError } from "../core/errors";
import { assertOutputApart } from "../core/output-overlap";
import { PACKAGE_ROOT, resolveUserPath } from "../core/paths";
import {
  FAMILIES,
  isBuiltinSuite,
  KINDS,
  SPLITS,
  type Split,
  SUITES,
  type Suite,
  type Task,
} from "../domain/task";
import { loadSuiteModule } from "../plugins/suite-plugin";
import { filterTasks, type LoadedTask, loadTaskDir, suiteDir, type TaskFilter } from "../tasks/load";
import { importTau2File } from "../tasks/retail/import-tau2";
import { buildRetailSuite, DEFAULT_RETAIL_SEED } from "../tasks/retail/suite";
import { checkTerminalTasks } from "../tasks/terminal/check";
import { buildTerminalSuite, DEFAULT_TERMINAL_SEED } from "../tasks/terminal/suite";
import { checkTaskSet } from "../tasks/validate";
import { writeTaskFiles } from "../tasks/write";
import type { CliIO } from "./io";
import type { SetExitCode } from "./shared";
import { displayPath, registerHarbor } from "./tasks-harbor";
import { registerPair } from "./tasks-pair";
import { usageError } from "./usage-error";

export function register(parser: Argv, io: CliIO, setExitCode: SetExitCode): void {
  parser.command(
    "tasks",
    "Manage task suites: list, validate, generate, import-tau2, import-harbor, requirements, pair",
    (tasks) =>
      registerPair(registerHarbor(tasks, io, setExitCode), io, setExitCode)
        .command(
          "list",
          "List tasks (shipped suites, or --tasks DIR)",
          (y) =>
            y
              .option("suite", {
                type: "string",
                describe: `only this suite: ${SUITES.join(", ")}, or the path of a suite module (./my-suite.mjs): its tasks`,
              })
              .check((argv) => {
                const problem = argv.suite === undefined ? null : suiteProblem(argv.suite);
                if (problem) throw usageError(problem);
                return true;
              })
              .option("split", { choices: SPLITS, describe: "only this split" })
              .option("kind", { choices: KINDS, describe: "only feasible or blocked tasks" })
              .option("family", { choices: FAMILIES, describe: "only this blocker family" })
              .option("tasks", { type: "string", describe: "a task directory instead of the shipped suites" })
              .option("json", { type: "boolean", default: false, describe: "print JSON" }),
          async (argv) => {
            const { suite } = argv;
            const filter: TaskFilter = {
              ...(suite !== undefined && isBuiltinSuite(suite) ? { suite } : {}),
              split: argv.split,
              kind: argv.kind,
              family: argv.family,
            };
            const module = suite !== undefined && !isBuiltinSuite(suite) ? suite : undefined;
            if (module && argv.tasks)
              throw usageError(
                `--suite ${module} and --tasks: give a suite module or a task directory, not both`,
              );
            const all = module
              ? (await loadSuiteModule(resolveUserPath(module, io.cwd), { field: "suite" })).tasks
              : (argv.tasks
                  ? loadTaskDir(resolveUserPath(argv.tasks, io.cwd))
                  : loadShipped(suite === undefined || !isBuiltinSuite(suite) ? undefined : [suite])
                ).map((entry) => entry.task);
            const tasks = filterTasks(all, filter);
            io.out(argv.json ? `${JSON.stringify(tasks.map(summary), null, 2)}\n` : renderTable(tasks));
          },
        )
        .command(
          "validate [path]",
          "Validate task files (default: every shipped suite), or a suite module's tasks; exit 2 on the first error",
          (y) =>
            y.positional("path", {
              type: "string",
              describe:
                "a task file or directory, or a suite module (.mjs, .js, .cjs: its tasks, as a search loads them)",
            }),
          async (argv) => {
            if (argv.path && SUITE_MODULE.test(argv.path)) {
              // The checks a search makes when its config names the module: the task schema and across the set.
              const suite = await loadSuiteModule(resolveUserPath(argv.path, io.cwd), { field: "module" });
              io.out(
                `${suite.tasks.length} tasks ok (suite ${suite.runtime.name}, ${countBySplit(suite.tasks)})\n`,
              );
              return;
            }
            const loaded = argv.path
              ? loadTaskDir(resolveUserPath(argv.path, io.cwd))
              : loadShipped(undefined);
            checkTaskSet(loaded);
            io.out(`${loaded.length} tasks ok\n`);
          },
        )
        .command(
          "generate",
          "Regenerate a suite deterministically from its seed",
          (y) =>
            y
              .option("suite", {
                choices: SUITES,
                default: "retail" as Suite,
                describe: "the suite",
              })
              .option("seed", {
                type: "number",
                describe: "generator seed (default: the suite's shipped seed)",
              })
              .option("check", {
                type: "boolean",
                default: true,
                describe: "terminal: prove every task in the sandbox before writing (--no-check skips)",
              })
              .option("out", {
                type: "string",
                describe: "output directory (default: the package's tasks/<suite>)",
              }),
          async (argv) => {
            const seed = argv.seed ?? (argv.suite === "retail" ? DEFAULT_RETAIL_SEED : DEFAULT_TERMINAL_SEED);
            if (!Number.isSafeInteger(seed)) throw new HsearchError("bad_input", "--seed must be an integer");
            const out = argv.out ? resolve(io.cwd, argv.out) : suiteDir(PACKAGE_ROOT, argv.suite);
            const tasks =
              argv.suite === "retail"
                ? buildRetailSuite({ seed }).tasks
                : await terminalTasks(seed, argv.check);
            writeTaskFiles(tasks, out, { replace: true });
            io.out(
              `wrote ${tasks.length} ${argv.suite} tasks to ${displayPath(out, io)} (${countBySplit(tasks)})\n`,
            );
          },
        )
        .command(
          "import-tau2 <file>",
          "Import a τ²-bench retail tasks file as feasible tasks",
          (y) =>
            y
              .positional("file", { type: "string", demandOption: true, describe: "the τ² tasks JSON file" })
              .option("out", { type: "string", demandOption: true, describe: "output directory" })
              .option("split", {
                choices: SPLITS,
                default: "search" as Split,
                describe: "split of the imported tasks",
              }),
          (argv) => {
            const file = resolveUserPath(argv.file, io.cwd);
            const out = resolve(io.cwd, argv.out);
            assertOutputApart({ path: out, name: "--out" }, [{ path: file, name: "the τ² tasks file" }]);
            const tasks = importTau2File(file, argv.split);
            writeTaskFiles(tasks, out);
            io.out(`imported ${tasks.length} tasks to ${displayPath(join(out, argv.split), io)}\n`);
          },
        )
        .demandCommand(
          1,
          "Name a tasks command: list, validate, generate, import-tau2, import-harbor, requirements or pair.",
        ),
  );
}

/** The terminal suite, proved in the sandbox first unless told not to (a failed proof is a generator bug). */
async function terminalTasks(seed: number, check: boolean): Promise<Task[]> {
  const tasks = buildTerminalSuite({ seed });
  if (!check) return tasks;
  const problems = await checkTerminalTasks(tasks);
  if (problems.length > 0)
    throw new HsearchError("internal", `terminal suite check failed:\n${problems.join("\n")}`);
  return tasks;
}

/** The shipped suites that exist (an explicitly named one must). */
/** A path `tasks validate` takes for a suite module rather than task files. */
const SUITE_MODULE = /\.(mjs|cjs|js)$/;

function loadShipped(suites: readonly Suite[] | undefined): LoadedTask[] {
  const wanted = suites ?? SUITES.filter((suite) => existsSync(suiteDir(PACKAGE_ROOT, suite)));
  return wanted.flatMap((suite) => loadTaskDir(suiteDir(PACKAGE_ROOT, suite)));
}

function summary(task: Task) {
  return {
    id: task.id,
    suite: task.suite,
    split: task.split,
    kind: task.kind,
    family: task.family ?? null,
    source: task.source ?? null,
  };
}

export function renderTable(tasks: readonly Task[]): string {
  const header = ["id", "suite", "split", "kind", "family", "source"];
  const rows = tasks.map((task) => [
    task.id,
    task.suite,
    task.split,
    task.kind,
    task.family ?? "-",
    task.source ?? "-",
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join("\n")}\n${tasks.length} tasks\n`;
}

function countBySplit(tasks: readonly Task[]): string {
  return SPLITS.map((split) => `${split}: ${tasks.filter((task) => task.split === split).length}`).join(", ");
}
