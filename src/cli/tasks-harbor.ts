/**
 * `hsearch tasks import-harbor DIR` and `hsearch tasks requirements DIR`: Harbor / Terminal-Bench task directories.
 * Thin: the importer (src/tasks/harbor) decides, this prints and sets the exit code.
 */

import { basename, join, relative, resolve } from "node:path";
import type { Argv } from "yargs";
import { assertOutputApart } from "../core/output-overlap";
import { resolveUserPath } from "../core/paths";
import { SPLITS, type Split } from "../domain/task";
import { BUILD_NETWORKS } from "../envs/terminal/image-plan";
import { readImageMap } from "../tasks/harbor/base-images";
import { dockerPathNote, HARBOR_SANDBOXES, harborPathOptions } from "../tasks/harbor/docker-path";
import {
  type AptRunner,
  aptInstallCommand,
  type DebianHost,
  debianApt,
  debianHost,
  installPackages,
} from "../tasks/harbor/host-packages";
import {
  convertTaskDir,
  type HarborImport,
  harborTaskDirs,
  importHarbor,
  unrunnableReason,
} from "../tasks/harbor/import-harbor";
import { type InstallPlan, planInstall, tasksLeftUnrunnable } from "../tasks/harbor/install-plan";
import type { TaskRequirements } from "../tasks/harbor/requirements";
import { writeTaskFiles } from "../tasks/write";
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
        const dir = resolveUserPath(argv.dir, io.cwd);
        assertOutputApart({ path: resolve(io.cwd, argv.out), name: "--out" }, [
          { path: dir, name: "the task directories" },
        ]);
        const progress = createProgress(io, "reading task directories");
        const machine = host();
        const imageMap =
          argv.imageMap === undefined
            ? undefined
            : argv.imageMap === "default"
              ? []
              : readImageMap(resolveUserPath(argv.imageMap, io.cwd));
        const result = await importHarbor(dir, argv.split, {
          host: machine,
          includeUnrunnable: argv.includeUnrunnable,
          onProgress: (done, total) => progress.update(done, total),
          ...harborPathOptions(argv),
          ...(imageMap ? { imageMap } : {}),
        });
        progress.done();
        await dropProvidedPackages(result, machine);
        const out = resolve(io.cwd, argv.out);
        writeTaskFiles(result.tasks, out);
        if (argv.json) io.out(`${JSON.stringify(importRecords(result, join(out, argv.split)), null, 2)}\n`);
        else {
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
        const report = await requirementsReport(resolveUserPath(argv.dir, io.cwd), host());
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
        const started = Date.now();
        const outcome = await installPackages(report.installable, deps.apt ?? debianApt(), (line) =>
          progress(`${line}\n`),
        );
        report.install = {
          seconds: Math.round((Date.now() - started) / 1000),
          newlyInstalled: outcome.newlyInstalled,
          failed: outcome.failed,
          unrunnable: tasksLeftUnrunnable(
            outcome.failed.map((failure) => failure.package),
            report.plan,
            report.tasks.flatMap((task) =>
              task.id && task.requires ? [{ id: task.id, debian: task.requires.debian }] : [],
            ),
          ),
        };
        if (argv.json) print();
        else io.out(renderInstall(report.install, report.installable.length));
        if (outcome.failed.length > 0) setExitCode(EXIT_FAILED);
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

/**
 * The packages the imported tasks lack, less those the machine provides otherwise (an installed provider of a
 * virtual name, a program on the sandbox's PATH): the same rules as `requirements --install`, so the hint never names
 * a package that command would not install (`npm` beside a Node.js from elsewhere).
 */
async function dropProvidedPackages(result: HarborImport, host: DebianHost): Promise<void> {
  const names = [...result.missing.keys()];
  if (names.length === 0) return;
  const plan = planInstall(names, await host.facts(names));
  for (const { name } of [...plan.providedByInstalled, ...plan.providedElsewhere])
    result.missing.delete(name);
}

/** `import-harbor --json`: one record per task directory, in directory order, and the counts. */
export function importRecords(result: HarborImport, out: string) {
  const records = [
    ...result.tasks.map((task) => ({
      dir: (task.env as { harbor_dir?: string }).harbor_dir ?? task.id,
      status: "imported" as const,
      id: task.id,
      file: join(out, `${task.id}.json`),
    })),
    ...result.skipped.map(({ dir, reason, category }) => ({
      dir: basename(dir),
      status: "skipped" as const,
      category,
      reason,
    })),
    ...result.failed.map(({ dir, error }) => ({ dir: basename(dir), status: "failed" as const, error })),
  ].sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
  const byCategory: Record<string, number> = {};
  for (const { category } of result.skipped) byCategory[category] = (byCategory[category] ?? 0) + 1;
  return {
    imported: result.tasks.length,
    skipped: result.skipped.length,
    skipped_by_reason: byCategory,
    failed: result.failed.length,
    missing_debian: Object.fromEntries(result.missing),
    tasks: records,
  };
}

export interface RequirementsReport {
  tasks: Array<{
    dir: string;
    id?: string;
    requires?: TaskRequirements;
    skipped?: string;
    unrunnable?: string;
    /** Its task.toml allows internet (`allow_internet = true`); episodes get it only with `eval --allow-internet`. */
    allowInternet?: boolean;
  }>;
  failed: Array<{ dir: string; error: string }>;
  /** Needed Debian packages this machine lacks (neither installed nor provided), and which the archive lacks too. */
  missing: string[];
  outsideDebian: string[] | null;
  /** What `--install` installs: the plan's packages (virtual names resolved, what the machine provides left out). */
  installable: string[];
  plan: InstallPlan;
  /** What `--install` did. */
  install?: InstallReport;
}

export interface InstallReport {
  seconds: number;
  /** Packages apt newly installed, dependencies included. */
  newlyInstalled: number;
  failed: Array<{ package: string; reason: string }>;
  /** The tasks a failed package leaves unrunnable, with the packages they lack. */
  unrunnable: Array<{ id: string; packages: string[] }>;
}

export async function requirementsReport(path: string, host: DebianHost): Promise<RequirementsReport> {
  const tasks: RequirementsReport["tasks"] = [];
  const failed: RequirementsReport["failed"] = [];
  const needs: TaskRequirements[] = [];
  for (const dir of harborTaskDirs(path)) {
    try {
      const converted = convertTaskDir(dir, "search");
      if (!converted.ok) tasks.push({ dir, skipped: converted.reason });
      else {
        const env = converted.task.env as { allow_internet?: boolean };
        tasks.push({
          dir,
          id: converted.task.id,
          requires: converted.requires,
          ...(env.allow_internet ? { allowInternet: true } : {}),
        });
        needs.push(converted.requires);
      }
    } catch (error) {
      if (!(error instanceof Error && "describe" in error)) throw error;
      failed.push({ dir, error: (error as { describe(): string }).describe() });
    }
  }
  const wanted = [...new Set(needs.flatMap((need) => need.debian))].sort();
  const available = await host.available(wanted);
  for (const entry of tasks) {
    if (!entry.requires) continue;
    const why = unrunnableReason(entry.requires, available);
    if (why) entry.unrunnable = why.reason;
  }
  const plan = planInstall(wanted, await host.facts(wanted));
  return {
    tasks,
    failed,
    missing: [...Object.keys(plan.packageFor), ...(plan.outsideDebian ?? [])].sort(),
    outsideDebian: plan.outsideDebian,
    installable: plan.install,
    plan,
  };
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
