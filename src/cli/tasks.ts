/**
 * `hsearch tasks list|validate|generate|import-tau2|import-harbor|pair`: manage task suites (docs/DESIGN.md §8). Thin: parsing and printing here,
 * the work in the library (src/api/tasks.ts).
 */

import type { Argv } from "yargs";
import {
  FAMILIES,
  generateSuite,
  importTau2,
  KINDS,
  listTasks,
  SPLITS,
  type Split,
  SUITES,
  type Suite,
  suiteProblem,
  type Task,
  validateTasks,
} from "../api";
import { commandText } from "./command-list";
import type { CliIO } from "./io";
import type { SetExitCode } from "./shared";
import { registerHarbor } from "./tasks-harbor";
import { registerPair } from "./tasks-pair";
import { displayPath } from "./text/display-path";
import { usageError } from "./usage-error";

const TEXT = commandText("tasks");

export function register(parser: Argv, io: CliIO, setExitCode: SetExitCode): void {
  parser.command(TEXT.usage, TEXT.describe, (tasks) =>
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
          const tasks = await listTasks(argv, { cwd: io.cwd });
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
          const { tasks, suite } = await validateTasks(argv.path, { cwd: io.cwd });
          io.out(
            suite === null
              ? `${tasks.length} tasks ok\n`
              : `${tasks.length} tasks ok (suite ${suite}, ${countBySplit(tasks)})\n`,
          );
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
          const { tasks, dir } = await generateSuite({
            cwd: io.cwd,
            suite: argv.suite,
            seed: argv.seed,
            check: argv.check,
            out: argv.out,
          });
          io.out(
            `wrote ${tasks.length} ${argv.suite} tasks to ${displayPath(dir, io)} (${countBySplit(tasks)})\n`,
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
          const { tasks, dir } = importTau2({
            cwd: io.cwd,
            file: argv.file,
            out: argv.out,
            split: argv.split,
          });
          io.out(`imported ${tasks.length} tasks to ${displayPath(dir, io)}\n`);
        },
      )
      .demandCommand(
        1,
        "Name a tasks command: list, validate, generate, import-tau2, import-harbor, requirements or pair.",
      ),
  );
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
