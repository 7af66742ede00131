/**
 * `hsearch tasks import-harbor DIR` and `hsearch tasks requirements DIR`: Harbor / Terminal-Bench task directories.
 * Thin: the importer (src/tasks/harbor) decides, this prints and sets the exit code.
 */
import { join, relative, resolve } from "node:path";
import type { Argv } from "yargs";
import { resolveUserPath } from "../core/paths";
import { SPLITS, type Split } from "../domain/task";
import { BUILD_NETWORKS } from "../envs/terminal/image-plan";
import { dockerPathNote, HARBOR_SANDBOXES, harborPathOptions } from "../tasks/harbor/docker-path";
import { aptInstall, aptInstallCommand, debianHost } from "../tasks/harbor/host-packages";
import {
  convertTaskDir,
  type HarborImport,
  type HostPackages,
  harborTaskDirs,
  importHarbor,
  unrunnableReason,
} from "../tasks/harbor/import-harbor";
import type { TaskRequirements } from "../tasks/harbor/requirements";
import { writeTaskFiles } from "../tasks/write";
import { EXIT_BAD_INPUT, EXIT_FAILED } from "./exit-codes";
import type { CliIO } from "./io";
import type { SetExitCode } from "./shared";

export interface HarborCliDeps {
  /** This machine's Debian packages; tests substitute their own. */
  host?: HostPackages;
  isRoot?: () => boolean;
  install?: typeof aptInstall;
}

export function registerHarbor(
  tasks: Argv,
  io: CliIO,
  setExitCode: SetExitCode,
  deps: HarborCliDeps = {},
): Argv {
  const host = () => deps.host ?? debianHost();
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
          .option("strict", {
            type: "boolean",
            default: false,
            describe:
              "exit 2 when any task directory is malformed (default: report it and import the others)",
          }),
      async (argv) => {
        const dir = resolveUserPath(argv.dir, io.cwd);
        const result = await importHarbor(dir, argv.split, {
          host: host(),
          includeUnrunnable: argv.includeUnrunnable,
          ...harborPathOptions(argv),
        });
        const out = resolve(io.cwd, argv.out);
        writeTaskFiles(result.tasks, out);
        for (const { dir: skipped, reason } of result.skipped)
          io.out(
            `skipped ${displayPath(skipped, io)}: ${reason}${dockerPathNote(skipped, argv.split, harborPathOptions(argv))}\n`,
          );
        for (const { dir: failed, error } of result.failed)
          io.err(`failed ${displayPath(failed, io)}: ${error}\n`);
        io.out(`${importSummary(result)} → ${displayPath(join(out, argv.split), io)}\n`);
        if (result.missing.size > 0)
          io.out(
            `${new Set([...result.missing.values()].flat()).size} imported tasks need Debian packages this machine lacks (${[...result.missing.keys()].join(", ")}): hsearch tasks requirements ${argv.dir} --install\n`,
          );
        if (argv.strict && result.failed.length > 0) setExitCode(EXIT_BAD_INPUT);
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
        const report = await requirementsReport(resolveUserPath(argv.dir, io.cwd), host());
        if (argv.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
        else io.out(renderRequirements(report, io));
        if (report.failed.length > 0) setExitCode(EXIT_BAD_INPUT);
        if (!argv.install || report.installable.length === 0) return;
        const isRoot = deps.isRoot ?? (() => process.getuid?.() === 0);
        if (!isRoot()) {
          io.err(`not root: run as root\n  ${aptInstallCommand(report.installable).join(" ")}\n`);
          setExitCode(EXIT_FAILED);
          return;
        }
        io.out(`installing ${report.installable.join(" ")}\n`);
        const code = await (deps.install ?? aptInstall)(report.installable, io);
        if (code !== 0) {
          io.err(`apt-get failed (exit ${code})\n`);
          setExitCode(EXIT_FAILED);
        }
      },
    );
}

/** "imported N, skipped M (network 40, dockerfile 3 …), failed K" */
export function importSummary(result: HarborImport): string {
  const byCategory = new Map<string, number>();
  for (const { category } of result.skipped) byCategory.set(category, (byCategory.get(category) ?? 0) + 1);
  const reasons = [...byCategory.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([category, count]) => `${category.replace(/_/g, " ")} ${count}`)
    .join(", ");
  const skipped = `skipped ${result.skipped.length}${reasons ? ` (${reasons})` : ""}`;
  return `imported ${result.tasks.length}, ${skipped}, failed ${result.failed.length}`;
}

export interface RequirementsReport {
  tasks: Array<{
    dir: string;
    id?: string;
    requires?: TaskRequirements;
    skipped?: string;
    unrunnable?: string;
  }>;
  failed: Array<{ dir: string; error: string }>;
  /** Needed Debian packages not installed here, and which of those the archive ships (null: cannot tell). */
  missing: string[];
  outsideDebian: string[] | null;
  installable: string[];
}

export async function requirementsReport(path: string, host: HostPackages): Promise<RequirementsReport> {
  const report: RequirementsReport = {
    tasks: [],
    failed: [],
    missing: [],
    outsideDebian: [],
    installable: [],
  };
  const needs: TaskRequirements[] = [];
  for (const dir of harborTaskDirs(path)) {
    try {
      const converted = convertTaskDir(dir, "search");
      if (!converted.ok) report.tasks.push({ dir, skipped: converted.reason });
      else {
        report.tasks.push({ dir, id: converted.task.id, requires: converted.requires });
        needs.push(converted.requires);
      }
    } catch (error) {
      if (!(error instanceof Error && "describe" in error)) throw error;
      report.failed.push({ dir, error: (error as { describe(): string }).describe() });
    }
  }
  const wanted = [...new Set(needs.flatMap((need) => need.debian))].sort();
  const installed = await host.installed(wanted);
  const available = await host.available(wanted);
  for (const entry of report.tasks) {
    if (!entry.requires) continue;
    const why = unrunnableReason(entry.requires, available);
    if (why) entry.unrunnable = why.reason;
  }
  report.missing = wanted.filter((name) => !installed.has(name));
  report.outsideDebian = available ? report.missing.filter((name) => !available.has(name)) : null;
  report.installable = available ? report.missing.filter((name) => available.has(name)) : report.missing;
  return report;
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
    ];
    lines.push(`${name}${entry.unrunnable ? " (unrunnable offline)" : ""}\n  ${parts.join("\n  ")}`);
  }
  for (const { dir, error } of report.failed) lines.push(`failed ${displayPath(dir, io)}: ${error}`);
  lines.push(
    report.missing.length === 0
      ? "this machine has every Debian package these tasks need"
      : `missing on this machine: ${report.missing.join(" ")}`,
  );
  if (report.outsideDebian === null)
    lines.push("cannot tell which of them Debian ships: no package lists (run apt-get update)");
  else if (report.outsideDebian.length > 0)
    lines.push(`not in this machine's Debian archive: ${report.outsideDebian.join(" ")}`);
  if (report.installable.length > 0)
    lines.push(`install: ${aptInstallCommand(report.installable).join(" ")}`);
  return `${lines.join("\n")}\n`;
}

/** A path as the user would type it from their working directory. */
export function displayPath(path: string, io: CliIO): string {
  const shown = relative(io.cwd, path);
  return shown === "" ? "." : shown.startsWith("..") ? path : shown;
}
