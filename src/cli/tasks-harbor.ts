/**
 * `hsearch tasks import-harbor DIR` and `hsearch tasks requirements DIR`: Harbor / Terminal-Bench task directories.
 * Thin: the library (src/api/harbor.ts) decides, this prints and sets the exit code.
 */

import type { Argv } from "yargs";
import {
  type AptRunner,
  aptInstallCommand,
  BUILD_NETWORKS,
  type DebianHost,
  debianApt,
  HARBOR_SANDBOXES,
  harborRequirements,
  type InstallReport,
  importHarborTasks,
  installHarborRequirements,
  type RequirementsReport,
  SPLITS,
  type Split,
  type TaskRequirements,
} from "../api";
import { EXIT_BAD_INPUT, EXIT_FAILED } from "./exit-codes";
import type { CliIO } from "./io";
import type { SetExitCode } from "./shared";
import { displayPath } from "./text/display-path";
import { createProgress } from "./text/progress";

export interface HarborCliDeps {
  /** This machine's Debian packages; tests substitute their own. */
  host?: DebianHost;
  isRoot?: () => boolean;
  /** apt-get; tests substitute their own. */
  apt?: AptRunner;
}

export function registerHarbor(
  tasks: Argv,
  io: CliIO,
  setExitCode: SetExitCode,
  deps: HarborCliDeps = {},
): Argv {
  // The library reads this machine's packages unless a test gives its own.
  const host = deps.host ? { host: deps.host } : {};
  return tasks
    .command(
      "import-harbor <dir>",
      "Import Harbor / Terminal-Bench task directories (one, or a directory of them) as feasible terminal tasks",
      (y) =>
        y
          .positional("dir", {
            type: "string",
            demandOption: true,
            describe: "a task directory or a directory of them",
          })
          .option("out", {
            type: "string",
            default: "tasks/harbor",
            describe: "output directory (tasks go to OUT/SPLIT/ID.json)",
          })
          .option("split", {
            choices: SPLITS,
            default: "search" as Split,
            describe: "split of the imported tasks",
          })
          .option("include-unrunnable", {
            type: "boolean",
            default: false,
            describe:
              "also import tasks whose needs cannot be met offline (network, packages outside Debian)",
          })
          .option("sandbox", {
            choices: HARBOR_SANDBOXES,
            default: "namespaces" as const,
            describe:
              "where the tasks run: the namespace sandbox, or a container of their own Dockerfile's image",
          })
          .option("build-network", {
            choices: BUILD_NETWORKS,
            default: "default" as const,
            describe: "the image build's network on the Docker path (host: where the daemon has no bridge)",
          })
          .option("image-map", {
            type: "string",
            describe:
              "Docker path offline: map FROM images of a benchmark's registry to local ones — a YAML/JSON table (pattern: image) before the defaults, or 'default' for the defaults alone",
          })
          .option("strict", {
            type: "boolean",
            default: false,
            describe:
              "exit 2 when any task directory is malformed (default: report it and import the others)",
          })
          .option("json", {
            type: "boolean",
            default: false,
            describe: "print one JSON record per task directory (imported, skipped or failed) and a summary",
          }),
      async (argv) => {
        const progress = createProgress(io, "reading task directories");
        const imported = await importHarborTasks({
          cwd: io.cwd,
          dir: argv.dir,
          out: argv.out,
          split: argv.split,
          includeUnrunnable: argv.includeUnrunnable,
          sandbox: argv.sandbox,
          buildNetwork: argv.buildNetwork,
          imageMap: argv.imageMap,
          ...host,
          onProgress: (done, total) => progress.update(done, total),
        }).finally(() => progress.done());
        const { result } = imported;
        if (argv.json) io.out(`${JSON.stringify(imported.records, null, 2)}\n`);
        else {
          for (const { dir: skipped, reason, note } of imported.skipped)
            io.out(`skipped ${displayPath(skipped, io)}: ${reason}${note}\n`);
          for (const { dir: failed, error } of result.failed)
            io.err(`failed ${displayPath(failed, io)}: ${error}\n`);
          io.out(`${imported.summary} → ${displayPath(imported.dir, io)}\n`);
          if (result.missing.size > 0)
            io.out(
              `${new Set([...result.missing.values()].flat()).size} imported tasks need Debian packages this machine lacks (${[...result.missing.keys()].join(", ")}): hsearch tasks requirements ${argv.dir} --install\n`,
            );
        }
        // Nothing imported because every directory was malformed is a bad input, whatever --strict says.
        const allFailed =
          result.failed.length > 0 && result.tasks.length === 0 && result.skipped.length === 0;
        if (allFailed) io.err("every task directory failed to import\n");
        if (allFailed || (argv.strict && result.failed.length > 0)) setExitCode(EXIT_BAD_INPUT);
      },
    )
    .command(
      "requirements <dir>",
      "What Harbor tasks need from this machine (Debian packages, Python modules, network, services, root), and what it lacks",
      (y) =>
        y
          .positional("dir", {
            type: "string",
            demandOption: true,
            describe: "a task directory or a directory of them",
          })
          .option("install", {
            type: "boolean",
            default: false,
            describe: "install the missing Debian packages with apt (as root; otherwise print the command)",
          })
          .option("json", { type: "boolean", default: false, describe: "print JSON" }),
      async (argv) => {
        const report = await harborRequirements(argv.dir, { cwd: io.cwd, ...host });
        if (report.failed.length > 0) setExitCode(EXIT_BAD_INPUT);
        const print = () => {
          if (argv.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
          else io.out(renderRequirements(report, io));
        };
        if (!argv.install || report.installable.length === 0) {
          print();
          if (argv.install) io.out("nothing to install\n");
          return;
        }
        const isRoot = deps.isRoot ?? (() => process.getuid?.() === 0);
        if (!isRoot()) {
          print();
          io.err(`not root: run as root\n  ${aptInstallCommand(report.installable).join(" ")}\n`);
          setExitCode(EXIT_FAILED);
          return;
        }
        // With --json, stdout is the report (printed once the install is over, with its outcome); apt's lines go to stderr.
        if (!argv.json) print();
        const progress = argv.json ? io.err : io.out;
        report.install = await installHarborRequirements(report, deps.apt ?? debianApt(), (line) =>
          progress(`${line}\n`),
        );
        if (argv.json) print();
        else io.out(renderInstall(report.install, report.installable.length));
        if (report.install.failed.length > 0) setExitCode(EXIT_FAILED);
      },
    );
}

function renderRequirements(report: RequirementsReport, io: CliIO): string {
  const lines: string[] = [];
  for (const entry of report.tasks) {
    const name = entry.id ?? displayPath(entry.dir, io);
    if (entry.skipped) {
      lines.push(`${name}: cannot be imported: ${entry.skipped}`);
      continue;
    }
    const needs = entry.requires as TaskRequirements;
    const parts = [
      `debian: ${needs.debian.join(" ") || "-"}`,
      ...(needs.python.length > 0 ? [`python: ${needs.python.join(" ")}`] : []),
      ...(needs.network.length > 0 ? [`network: ${needs.network.join("; ")}`] : []),
      ...(needs.services.length > 0 ? [`services: ${needs.services.join("; ")}`] : []),
      ...(needs.root.length > 0 ? [`root: ${needs.root.join("; ")}`] : []),
      ...(entry.allowInternet
        ? ["internet: allowed by its task.toml (granted only with eval --allow-internet)"]
        : []),
    ];
    lines.push(`${name}${entry.unrunnable ? " (unrunnable offline)" : ""}\n  ${parts.join("\n  ")}`);
  }
  for (const { dir, error } of report.failed) lines.push(`failed ${displayPath(dir, io)}: ${error}`);
  lines.push(
    report.missing.length === 0
      ? "this machine has every Debian package these tasks need"
      : `missing on this machine: ${report.missing.join(" ")}`,
  );
  for (const { name, by } of report.plan.providedByInstalled)
    lines.push(`${name}: provided by the installed package ${by}`);
  for (const { name, path } of report.plan.providedElsewhere)
    lines.push(`${name}: provided by ${path}, not installed from Debian`);
  for (const { name, provider, among, why } of report.plan.resolved)
    lines.push(`${name}: a virtual package; installing ${provider} (of ${among.join(", ")}: ${why})`);
  if (report.outsideDebian === null)
    lines.push("cannot tell which of them Debian ships: no package lists (run apt-get update)");
  else if (report.outsideDebian.length > 0)
    lines.push(`not in this machine's Debian archive: ${report.outsideDebian.join(" ")}`);
  if (report.installable.length > 0)
    lines.push(`install: ${aptInstallCommand(report.installable).join(" ")}`);
  return `${lines.join("\n")}\n`;
}

function renderInstall(install: InstallReport, asked: number): string {
  const minutes = Math.floor(install.seconds / 60);
  const took = minutes > 0 ? `${minutes} min ${install.seconds % 60} s` : `${install.seconds} s`;
  const lines = [
    `installed ${asked - install.failed.length} of ${asked} packages (apt newly installed ${install.newlyInstalled} with their dependencies) in ${took}`,
  ];
  if (install.failed.length > 0) {
    lines.push(`not installed (${install.failed.length}):`);
    for (const failure of install.failed) lines.push(`  ${failure.package}: ${failure.reason}`);
    lines.push(
      install.unrunnable.length === 0
        ? "no task is left without its packages"
        : `tasks left without their packages (${install.unrunnable.length}):`,
    );
    for (const task of install.unrunnable) lines.push(`  ${task.id}: ${task.packages.join(" ")}`);
  }
  return `${lines.join("\n")}\n`;
}
