/**
 * The thin layer over this machine's Debian package tools: which packages are installed (dpkg-query), which the
 * archive ships and which provide a virtual name (apt-cache), and installing them (apt-get, as root). The sandbox
 * shows the host's /usr, so the host's packages are what a task's commands find. What to install is decided by
 * install-plan.ts; how to get past a package apt refuses is `installPackages` below, with apt behind `AptRunner`.
 */
import { accessSync, constants, existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { BASE_ENV } from "../../../envs";
import type { HostPackages } from "./import-harbor";
import { type HostFacts, type PackageProvider, PROVIDED_BY_COMMAND } from "./install-plan";

/** The machine's packages, and the facts an install plan needs about the wanted names. */
export interface DebianHost extends HostPackages {
  facts(wanted: readonly string[]): Promise<HostFacts>;
}

export function debianHost(): DebianHost {
  const host: DebianHost = {
    installed: dpkgInstalled,
    async available(packages) {
      if (packages.length === 0) return new Set();
      if (!hasPackageLists()) return null;
      const shipped = await aptShipped(packages);
      // A virtual name (provided by another package) has no paragraph of its own: a provider makes it available.
      const providers = await aptProviders(packages.filter((name) => !shipped.has(name)));
      for (const name of providers.keys()) shipped.add(name);
      return shipped;
    },
    async facts(wanted) {
      const installed = await dpkgInstalled(wanted);
      const missing = wanted.filter((name) => !installed.has(name));
      const lists = hasPackageLists();
      const shipped = lists ? await aptShipped(missing) : null;
      const names = await aptProviders(missing);
      const all = [...new Set([...names.values()].flat())];
      const providerInstalled = await dpkgInstalled(all);
      const priority = lists ? await aptPriorities(all) : new Map<string, string>();
      const providers = new Map<string, PackageProvider[]>();
      for (const [name, list] of names)
        providers.set(
          name,
          list.map((provider) => {
            const known = priority.get(provider);
            return {
              name: provider,
              installed: providerInstalled.has(provider),
              ...(known ? { priority: known } : {}),
            };
          }),
        );
      return { installed, shipped, providers, commands: sandboxCommands() };
    },
  };
  return host;
}

async function dpkgInstalled(packages: readonly string[]): Promise<Set<string>> {
  if (packages.length === 0) return new Set();
  // dpkg-query's own field syntax, not a template.
  const format = ["-f=$", "{Package} $", "{db:Status-Abbrev}\\n"].join("");
  const result = await execa("dpkg-query", ["-W", format, ...packages], { reject: false });
  const installed = new Set<string>();
  for (const line of result.stdout.split("\n")) {
    const [name, status] = line.trim().split(/\s+/);
    if (name && status?.startsWith("ii")) installed.add(name.replace(/:.*$/, ""));
  }
  return installed;
}

/** The names among `packages` that have a package paragraph of their own (apt-cache show). */
async function aptShipped(packages: readonly string[]): Promise<Set<string>> {
  const shipped = new Set<string>();
  if (packages.length === 0) return shipped;
  const result = await execa("apt-cache", ["show", "--no-all-versions", ...packages], { reject: false });
  for (const match of result.stdout.matchAll(/^Package: (\S+)$/gm)) shipped.add(match[1] as string);
  return shipped;
}

/** Name → the packages (installed, or in the archive) that provide it, for the names some package provides. */
async function aptProviders(packages: readonly string[]): Promise<Map<string, string[]>> {
  if (packages.length === 0) return new Map();
  const result = await execa("apt-cache", ["showpkg", ...packages], { reject: false });
  return parseReverseProvides(result.stdout);
}

/** `apt-cache showpkg A B …`: per "Package: X" block, the unindented lines under "Reverse Provides:". */
export function parseReverseProvides(text: string): Map<string, string[]> {
  const providers = new Map<string, string[]>();
  let name: string | undefined;
  let inReverseProvides = false;
  for (const line of text.split("\n")) {
    const block = /^Package: (\S+)$/.exec(line);
    if (block) {
      name = block[1];
      inReverseProvides = false;
    } else if (line.startsWith("Reverse Provides:")) inReverseProvides = true;
    else if (inReverseProvides && name && /^\S/.test(line)) {
      const provider = line.split(/\s+/)[0] as string;
      const list = providers.get(name) ?? [];
      if (!list.includes(provider)) list.push(provider);
      providers.set(name, list);
    } else if (line.trim() === "") inReverseProvides = false;
  }
  return providers;
}

async function aptPriorities(packages: readonly string[]): Promise<Map<string, string>> {
  const priorities = new Map<string, string>();
  if (packages.length === 0) return priorities;
  const result = await execa("apt-cache", ["show", "--no-all-versions", ...packages], { reject: false });
  for (const paragraph of result.stdout.split(/\n\s*\n/)) {
    const name = /^Package: (\S+)$/m.exec(paragraph)?.[1];
    const priority = /^Priority: (\S+)$/m.exec(paragraph)?.[1];
    if (name && priority && !priorities.has(name)) priorities.set(name, priority);
  }
  return priorities;
}

/** Where the commands of PROVIDED_BY_COMMAND are on the PATH a task's commands get in the sandbox. */
function sandboxCommands(): Map<string, string> {
  const dirs = (BASE_ENV.PATH ?? "")
    .split(":")
    .filter((dir) => dir.startsWith("/usr") || /^\/s?bin$/.test(dir));
  const found = new Map<string, string>();
  for (const { command } of PROVIDED_BY_COMMAND)
    for (const dir of dirs) {
      const path = join(dir, command);
      if (isExecutable(path)) {
        found.set(command, path);
        break;
      }
    }
  return found;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** apt-cache answers from the package lists; without them (no `apt-get update` yet) it cannot tell anything. */
function hasPackageLists(): boolean {
  const dir = "/var/lib/apt/lists";
  return existsSync(dir) && readdirSync(dir).some((name) => name.includes("_Packages"));
}

/**
 * The command that installs `packages`, as a person would type it. `--no-remove`: a package whose install would
 * remove one the machine has (Debian's npm would take NodeSource's nodejs) fails instead.
 */
export function aptInstallCommand(packages: readonly string[], simulate = false): string[] {
  return [
    "apt-get",
    "-o",
    "DPkg::Lock::Timeout=600",
    "install",
    ...(simulate ? ["--simulate"] : ["-y"]),
    "--no-install-recommends",
    "--no-remove",
    ...packages,
  ];
}

/** What one apt-get run said: its exit code, its error lines, and how many packages it newly installed. */
export interface AptResult {
  exitCode: number;
  errors: string[];
  newlyInstalled: number;
}

/** apt-get behind an interface, so that getting past refused packages can be tested with a fake apt. */
export interface AptRunner {
  /** `apt-get install` (as root); each line of its output goes to `onLine` as it comes. */
  install(packages: readonly string[], onLine: (line: string) => void): Promise<AptResult>;
  /** `apt-get --simulate install` of one package: whether apt would install it now, and why not. */
  simulate(pkg: string): Promise<AptResult>;
  /** The names among `packages` installed now. */
  installed(packages: readonly string[]): Promise<Set<string>>;
}

export function debianApt(): AptRunner {
  return {
    install: (packages, onLine) => runApt(aptInstallCommand(packages), onLine),
    simulate: (pkg) => runApt(aptInstallCommand([pkg], true), () => {}),
    installed: dpkgInstalled,
  };
}

async function runApt(command: string[], onLine: (line: string) => void): Promise<AptResult> {
  const [file, ...args] = command;
  // English messages, to find apt's error lines and dpkg's "Selecting previously unselected package".
  const subprocess = execa(file as string, args, {
    reject: false,
    all: true,
    buffer: false,
    env: { DEBIAN_FRONTEND: "noninteractive", LC_ALL: "C.UTF-8" },
  });
  const lines: string[] = [];
  for await (const line of subprocess.iterable({ from: "all" })) {
    onLine(line);
    lines.push(line);
  }
  const result = await subprocess;
  return { exitCode: result.exitCode ?? 1, ...readAptOutput(lines) };
}

/**
 * apt's error lines ("E: …", the unmet dependencies it lists before them, and what it would have removed, which
 * `--no-remove` refuses) and how many packages dpkg added.
 */
export function readAptOutput(lines: readonly string[]): { errors: string[]; newlyInstalled: number } {
  const errors: string[] = [];
  const removed: string[] = [];
  let newlyInstalled = 0;
  let section: "unmet" | "removed" | undefined;
  for (const line of lines) {
    // dpkg's line for each package new to the machine (apt's "N newly installed" is printed by a refused run too).
    if (line.startsWith("Selecting previously unselected package ")) newlyInstalled += 1;
    if (line.startsWith("The following packages have unmet dependencies")) section = "unmet";
    else if (line.startsWith("The following packages will be REMOVED")) section = "removed";
    else if (section === "unmet" && /^\s+\S/.test(line)) errors.push(line.trim());
    else if (section === "removed" && /^\s+\S/.test(line)) removed.push(...line.trim().split(/\s+/));
    else section = undefined;
    if (/^E: /.test(line)) errors.push(line.slice(3).trim());
  }
  if (errors.length > 0 && removed.length > 0) errors.unshift(`it would remove ${removed.join(" ")}`);
  return { errors, newlyInstalled };
}

export interface InstallOutcome {
  /** Packages of the list that did not get installed, with apt's reason. */
  failed: Array<{ package: string; reason: string }>;
  /** Packages apt newly installed, dependencies included. */
  newlyInstalled: number;
  /** apt-get install runs made. */
  aptRuns: number;
}

/**
 * Install `packages`, never all-or-nothing: the whole list in one apt-get run first (one resolution, one download);
 * when apt refuses it, ask apt (simulated) about each package not installed yet, install the ones it accepts together,
 * and, should that still fail (packages that conflict only with each other, a failing install script), the last
 * ones one at a time. Whether a package got installed is dpkg's answer, not apt's exit code (a broken package
 * elsewhere makes every later apt-get exit non-zero).
 */
export async function installPackages(
  packages: readonly string[],
  apt: AptRunner,
  progress: (line: string) => void,
): Promise<InstallOutcome> {
  const outcome: InstallOutcome = { failed: [], newlyInstalled: 0, aptRuns: 0 };
  const install = async (list: readonly string[]) => {
    outcome.aptRuns += 1;
    const result = await apt.install(list, progress);
    outcome.newlyInstalled += result.newlyInstalled;
    return result;
  };
  const notInstalled = async (list: readonly string[]) => {
    const installed = await apt.installed(list);
    return list.filter((name) => !installed.has(name));
  };
  progress(`hsearch: apt-get install of ${packages.length} packages (and what they depend on)`);
  const whole = await install(packages);
  if (whole.exitCode === 0) return outcome;
  const pending = await notInstalled(packages);
  if (pending.length === 0) {
    progress(`hsearch: apt-get exited ${whole.exitCode}, yet every package of the list is installed`);
    return outcome;
  }
  progress(
    `hsearch: apt-get exited ${whole.exitCode}${whole.errors.length > 0 ? ` (${whole.errors.join("; ")})` : ""}; asking apt about each of the ${pending.length} packages not installed`,
  );
  const accepted: string[] = [];
  for (const name of pending) {
    const simulated = await apt.simulate(name);
    if (simulated.exitCode === 0) accepted.push(name);
    else {
      const reason = simulated.errors.join("; ") || `apt-get --simulate exited ${simulated.exitCode}`;
      outcome.failed.push({ package: name, reason });
      progress(`hsearch: ${name}: apt refuses it: ${reason}`);
    }
  }
  if (accepted.length === 0) return outcome;
  progress(`hsearch: apt-get install of the other ${accepted.length}`);
  const rest = await install(accepted);
  if (rest.exitCode === 0) return outcome;
  const last = await notInstalled(accepted);
  if (last.length > 0) progress(`hsearch: installing the last ${last.length} one at a time`);
  for (const name of last) {
    const one = await install([name]);
    if ((await notInstalled([name])).length === 0) continue;
    const reason = one.errors.join("; ") || `apt-get exited ${one.exitCode}`;
    outcome.failed.push({ package: name, reason });
    progress(`hsearch: ${name}: not installed: ${reason}`);
  }
  return outcome;
}
