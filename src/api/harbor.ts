/**
 * Harbor / Terminal-Bench task directories as `hsearch tasks import-harbor` and `tasks requirements` handle them:
 * the import with what it skipped and why, what the tasks need from this machine, and installing it.
 */
import { basename, join, resolve } from "node:path";
import { assertOutputApart, resolveUserPath } from "../core";
import type { Split } from "../domain";
import type { BUILD_NETWORKS } from "../envs";
import type { TaskRequirements } from "../tasks";
import {
  type AptRunner,
  convertTaskDir,
  type DebianHost,
  debianHost,
  dockerPathNote,
  type HARBOR_SANDBOXES,
  type HarborImport,
  harborPathOptions,
  harborTaskDirs,
  type InstallPlan,
  importHarbor,
  installPackages,
  planInstall,
  readImageMap,
  tasksLeftUnrunnable,
  unrunnableReason,
  writeTaskFiles,
} from "../tasks";

export { BUILD_NETWORKS } from "../envs";
export type { HarborImport, InstallPlan, TaskRequirements } from "../tasks";
export {
  type AptRunner,
  aptInstallCommand,
  type DebianHost,
  debianApt,
  debianHost,
  HARBOR_SANDBOXES,
} from "../tasks";

export interface HarborImportOptions {
  cwd: string;
  /** A task directory or a directory of them. */
  dir: string;
  /** Tasks go to OUT/SPLIT/ID.json. */
  out: string;
  split: Split;
  /** Also import tasks whose needs cannot be met offline. */
  includeUnrunnable: boolean;
  sandbox: (typeof HARBOR_SANDBOXES)[number];
  buildNetwork: (typeof BUILD_NETWORKS)[number];
  /** Docker path offline: a YAML/JSON table of image patterns, or `default` for the defaults alone. */
  imageMap?: string;
  /** This machine's Debian packages; default debianHost(). */
  host?: DebianHost;
  onProgress?: (done: number, total: number) => void;
}

export interface HarborImported {
  result: HarborImport;
  /** Where the tasks were written: OUT/SPLIT. */
  dir: string;
  /** Each skipped directory, with a note when the Docker path would run it. */
  skipped: Array<{ dir: string; reason: string; note: string }>;
  /** "imported N, skipped M (…), failed K". */
  summary: string;
  /** `--json`: one record per task directory and the counts. */
  records: ReturnType<typeof importRecords>;
}

/** Imports Harbor task directories as feasible terminal tasks and writes them. */
export async function importHarborTasks(options: HarborImportOptions): Promise<HarborImported> {
  const dir = resolveUserPath(options.dir, options.cwd);
  const out = resolve(options.cwd, options.out);
  assertOutputApart({ path: out, name: "--out" }, [{ path: dir, name: "the task directories" }]);
  const machine = options.host ?? debianHost();
  const imageMap =
    options.imageMap === undefined
      ? undefined
      : options.imageMap === "default"
        ? []
        : readImageMap(resolveUserPath(options.imageMap, options.cwd));
  const paths = harborPathOptions(options);
  const result = await importHarbor(dir, options.split, {
    host: machine,
    includeUnrunnable: options.includeUnrunnable,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...paths,
    ...(imageMap ? { imageMap } : {}),
  });
  await dropProvidedPackages(result, machine);
  writeTaskFiles(result.tasks, out);
  const written = join(out, options.split);
  return {
    result,
    dir: written,
    skipped: result.skipped.map(({ dir: skipped, reason }) => ({
      dir: skipped,
      reason,
      note: dockerPathNote(skipped, options.split, paths),
    })),
    summary: importSummary(result),
    records: importRecords(result, written),
  };
}

/** What Harbor tasks need from this machine, and what it lacks (`hsearch tasks requirements`). */
export async function harborRequirements(
  path: string,
  options: { cwd: string; host?: DebianHost },
): Promise<RequirementsReport> {
  return requirementsReport(resolveUserPath(path, options.cwd), options.host ?? debianHost());
}

/** Installs what a requirements report found missing, with apt; `onLine` gets apt's output. */
export async function installHarborRequirements(
  report: RequirementsReport,
  apt: AptRunner,
  onLine: (line: string) => void,
): Promise<InstallReport> {
  const started = Date.now();
  const outcome = await installPackages(report.installable, apt, onLine);
  return {
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
}

/** "imported N, skipped M (network 40, dockerfile 3 …), failed K" */
function importSummary(result: HarborImport): string {
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
function importRecords(result: HarborImport, out: string) {
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

/** The requirements of the task directories at `path` on a given machine. */
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
