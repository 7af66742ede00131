/**
 * Import Harbor / Terminal-Bench 2 task directories (docs/DESIGN.md §3) as feasible terminal tasks:
 *   instruction.md              → instruction
 *   task.toml                   → checked (strict TOML); [task].name names the task; the agent, verifier and
 *                                 build timeouts are carried into the task
 *   environment/ + Dockerfile   → the workspace's files (those the Dockerfile copies to /app, or all of them without
 *                                 a Dockerfile), its ENV, its local RUN steps as the task's setup, and its package
 *                                 installs as host requirements (see dockerfile.ts)
 *   solution/solve.sh (+ files) → reference solution, and the simulator's one step (optional: without it the
 *                                 task has no reference, and the oracle reports it as unsupported)
 *   tests/test.sh (+ files)     → the verifier; it writes /logs/verifier/reward.txt
 * /app is the workspace in the sandbox, and /tests and /logs are mounted for verifiers, so those paths work as
 * they are. Each task directory stands alone: a malformed one is reported (file, line) and the others go on; one
 * whose needs cannot be met offline (network at build or test time, packages Debian does not ship) is skipped with
 * the reason unless unrunnable tasks are asked for; several containers or a prebuilt image only are skipped.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { badInput, HsearchError, isHsearchError, shellQuote } from "../../../core";
import type { Split, Task, TerminalEnvSpec, TerminalTimeouts } from "../../../domain";
import { cleanContextPath } from "./context-files";
import { planDockerfile } from "./dockerfile";
import {
  checksumRefusal,
  composeRefusal,
  type EnvironmentRefusal,
  type HarborPathOptions,
  hostNeedsOnImagePath,
  imageEnvironment,
  imageOf,
  imageTaskEnv,
  type TaskEnvironment,
} from "./image-spec";
import { emptyRequirements, mergeRequirements, type TaskRequirements } from "./requirements";
import {
  bundleScript,
  fetchesIn,
  isText,
  rewriteTestScript,
  rootStepsIn,
  splitByEncoding,
  writeFileLines,
} from "./test-script";
import { parseToml, type TomlTable } from "./toml";

/** Why a task was skipped, for counting: each has a fixed wording in `reason`. */
export type SkipCategory =
  | "network"
  | "root"
  | "outside_debian"
  | "compose"
  | "prebuilt_image"
  | "dockerfile"
  /** A file the task needs is missing from its directory (a snapshot without its large files). */
  | "incomplete";

export interface HarborImport {
  tasks: Task[];
  skipped: Array<{ dir: string; reason: string; category: SkipCategory }>;
  /** A task directory that is wrong: the error names the file and, where it can, the line. */
  failed: Array<{ dir: string; error: string }>;
  /** Debian packages the imported tasks need that this machine has not installed, with the tasks that need each. */
  missing: Map<string, string[]>;
}

/** This machine's Debian packages (a thin layer over dpkg and apt; tests pass their own). */
export interface HostPackages {
  /** The names among `packages` that are installed. */
  installed(packages: readonly string[]): Promise<Set<string>>;
  /** The names among `packages` the archive ships, or null when the machine cannot tell (no package lists). */
  available(packages: readonly string[]): Promise<Set<string> | null>;
}

export interface HarborImportOptions extends HarborPathOptions {
  host: HostPackages;
  /** Import tasks whose needs cannot be met offline too (they will fail or be infrastructure errors). */
  includeUnrunnable?: boolean;
  /** Called after each task directory is read (a directory of thousands takes a while). */
  onProgress?: (done: number, total: number, dir: string) => void;
}

/** solution/solve.sh is optional, as in Harbor (it serves the oracle only): without it the task has no reference. */
const REQUIRED = ["instruction.md", "task.toml", "tests/test.sh"];

/** `path` is one task directory, or a directory whose subdirectories are task directories. */
export function harborTaskDirs(path: string): string[] {
  if (!existsSync(path) || !statSync(path).isDirectory())
    throw new HsearchError("not_found", "no such Harbor task directory", { file: path });
  if (isTaskDir(path)) return [path];
  const dirs = readdirSync(path)
    .sort()
    .map((entry) => join(path, entry))
    .filter((dir) => statSync(dir).isDirectory() && isTaskDir(dir));
  if (dirs.length === 0)
    throw badInput("neither a Harbor task directory (instruction.md, task.toml …) nor a directory of them", {
      file: path,
    });
  return dirs;
}

function isTaskDir(dir: string): boolean {
  return existsSync(join(dir, "instruction.md")) || existsSync(join(dir, "task.toml"));
}

export async function importHarbor(
  path: string,
  split: Split,
  options: HarborImportOptions,
): Promise<HarborImport> {
  const result: HarborImport = { tasks: [], skipped: [], failed: [], missing: new Map() };
  const ids = new Map<string, string>();
  const converted: Array<{ dir: string; task: Task; requires: TaskRequirements }> = [];
  const dirs = harborTaskDirs(path);
  for (const [index, dir] of dirs.entries()) {
    options.onProgress?.(index + 1, dirs.length, dir);
    try {
      const one = convertTaskDir(dir, split, options);
      if (!one.ok) {
        result.skipped.push({ dir, reason: one.reason, category: one.category });
        continue;
      }
      const other = ids.get(one.task.id);
      if (other !== undefined)
        throw badInput(`task id '${one.task.id}' is also the id of ${other}`, { file: dir });
      ids.set(one.task.id, dir);
      converted.push({ dir, task: one.task, requires: one.requires });
    } catch (error) {
      if (!isHsearchError(error, "bad_input")) throw error;
      result.failed.push({ dir, error: error.describe() });
    }
  }
  const wanted = [...new Set(converted.flatMap((one) => one.requires.debian))];
  const available = await options.host.available(wanted);
  const installed = await options.host.installed(wanted);
  for (const { dir, task, requires } of converted) {
    const unrunnable = unrunnableReason(requires, available);
    if (unrunnable && !options.includeUnrunnable) {
      result.skipped.push({ dir, ...unrunnable });
      continue;
    }
    for (const name of requires.debian)
      if (!installed.has(name)) result.missing.set(name, [...(result.missing.get(name) ?? []), task.id]);
    result.tasks.push(task);
  }
  return result;
}

/** Why a task with these needs cannot run on this machine offline, or null. */
export function unrunnableReason(
  requires: TaskRequirements,
  available: ReadonlySet<string> | null,
): { reason: string; category: SkipCategory } | null {
  if (requires.network.length > 0)
    return {
      category: "network",
      reason: `it needs network (${requires.network.join("; ")}); --include-unrunnable imports it anyway`,
    };
  if (requires.root.length > 0)
    return {
      category: "root",
      reason: `it needs root, which the sandbox's user is not (${requires.root.join("; ")}); --include-unrunnable imports it anyway`,
    };
  const outside = available ? requires.debian.filter((name) => !available.has(name)) : [];
  if (outside.length > 0)
    return {
      category: "outside_debian",
      reason: `it needs packages this machine's Debian archive does not ship (${outside.join(", ")}); --include-unrunnable imports it anyway`,
    };
  return null;
}

type Converted =
  | { ok: true; task: Task; requires: TaskRequirements }
  | { ok: false; reason: string; category: SkipCategory };

/** Pure apart from reading the directory: one Harbor task → one feasible task and its needs, or why it is skipped. */
export function convertTaskDir(dir: string, split: Split, path: HarborPathOptions = {}): Converted {
  for (const file of REQUIRED)
    if (!existsSync(join(dir, file)))
      throw badInput(`a Harbor task needs ${file}`, { file: join(dir, file) });
  const tomlFile = join(dir, "task.toml");
  const toml = parseToml(readFileSync(tomlFile, "utf8"), tomlFile);
  const timeouts = taskTimeouts(toml, tomlFile);
  const instruction = readFileSync(join(dir, "instruction.md"), "utf8").trim();
  if (instruction === "") throw badInput("instruction.md is empty", { file: join(dir, "instruction.md") });

  const environment = path.sandbox ? imageEnvironment(dir, toml, path) : readEnvironment(dir, toml);
  if (!environment.ok) return environment;
  const tests = rewriteTestScript(readFileSync(join(dir, "tests/test.sh"), "utf8"));
  const testHelpers = helperScripts(siblings(join(dir, "tests"), "test.sh"), "tests");
  const verify = bundleScript(startIn(tests.script, environment.workdir), testHelpers.files, "/tests");
  // The reference solution's installs are requirements too (the sandbox has no network and no root to install),
  // and its fetches make the task unrunnable offline: the oracle could not pass it.
  const solveFile = join(dir, "solution/solve.sh");
  const solve = existsSync(solveFile)
    ? rewriteTestScript(readFileSync(solveFile, "utf8"), "solution/solve.sh")
    : undefined;
  const solveHelpers = solve
    ? helperScripts(siblings(join(dir, "solution"), "solve.sh"), "solution")
    : undefined;
  const solution =
    solve && solveHelpers
      ? bundleScript(startIn(solve.script, environment.workdir), solveHelpers.files, "/solution")
      : undefined;
  const requires = mergeRequirements(
    environment.requires,
    tests.requires,
    testHelpers.requires,
    solveHelpers?.requires ?? emptyRequirements(),
    solve?.requires ?? emptyRequirements(),
    pythonUse(environment, solution ?? ""),
    siblingFetches(dir),
  );
  const env: TerminalEnvSpec = {
    files: environment.files,
    ...(Object.keys(environment.binary).length > 0 ? { binary_files: environment.binary } : {}),
    ...(environment.setup ? { setup: environment.setup } : {}),
    ...(Object.keys(environment.env).length > 0 ? { env_vars: environment.env } : {}),
    ...(Object.keys(timeouts).length > 0 ? { timeouts } : {}),
    requires,
    harbor_dir: basename(dir),
    ...("workspace" in environment && environment.workspace !== undefined
      ? { workdir: environment.workspace }
      : {}),
    ...(allowsInternet(toml, tomlFile) ? { allow_internet: true } : {}),
  };
  const image = imageOf(environment);
  if (image) Object.assign(env, imageTaskEnv(image, requires, timeouts, path));
  const task: Task = {
    id: taskId(toml, dir),
    suite: "terminal",
    split,
    kind: "feasible",
    instruction,
    env,
    reference: solution === undefined ? {} : { solution },
    verify: { kind: "terminal_test", script: verify },
    forbidden: {},
    sim: { steps: solution === undefined ? [] : [{ name: "bash", arguments: { command: solution } }] },
  };
  return { ok: true, task, requires: image ? hostNeedsOnImagePath(requires) : requires };
}

/** Harbor runs tests and solution from the image's WORKDIR; the sandbox starts in /app. */
function startIn(script: string, workdir: string): string {
  if (workdir === "/app") return script;
  const line = `cd ${shellQuote(workdir)}`;
  if (!script.startsWith("#!")) return `${line}\n${script}`;
  const end = script.indexOf("\n");
  return end < 0 ? `${script}\n${line}\n` : `${script.slice(0, end + 1)}${line}\n${script.slice(end + 1)}`;
}

/**
 * What the test and solution files fetch from another host through a language's own calls (a test downloading its
 * data, an `R -e 'install.packages(…)'`), and the root-only steps their code runs (a test that chroots); the
 * scripts' curl, wget, git and root tools are found line by line already.
 */
function siblingFetches(dir: string): TaskRequirements {
  const requires = emptyRequirements();
  for (const folder of ["tests", "solution"]) {
    const path = join(dir, folder);
    if (!existsSync(path)) continue;
    for (const [name, bytes] of walk(path)) {
      if (!isText(bytes)) continue;
      const where = `${folder}/${name}`;
      requires.network.push(...fetchesIn(bytes.toString("utf8"), where));
      // The scripts' own shell lines are classified line by line; their helpers' code is read here.
      if (name !== "test.sh" && name !== "solve.sh")
        requires.root.push(...rootStepsIn(bytes.toString("utf8"), where));
    }
  }
  return requires;
}

/** A setup or solution that runs Python needs python3 (bare `python` is mapped to it in the sandbox). */
function pythonUse(environment: { setup?: string }, solution: string): TaskRequirements {
  const requires = emptyRequirements();
  if (/\bpython3?\b/.test(`${environment.setup ?? ""}\n${solution}`)) requires.debian.push("python3");
  return requires;
}

function taskTimeouts(toml: TomlTable, file: string): TerminalTimeouts {
  for (const section of ["verifier", "agent", "environment", "task", "metadata"]) {
    const value = toml[section];
    if (value !== undefined && (typeof value !== "object" || Array.isArray(value)))
      throw badInput(`[${section}] must be a table`, { file, field: section });
  }
  const read = (section: string, key: string): number | undefined => {
    const value = (toml[section] as TomlTable | undefined)?.[key];
    if (value === undefined) return undefined;
    if (!(typeof value === "number" && value > 0))
      throw badInput(`${section}.${key} must be a positive number`, { file, field: `${section}.${key}` });
    return value;
  };
  const timeouts: TerminalTimeouts = {};
  const agent = read("agent", "timeout_sec");
  const verifier = read("verifier", "timeout_sec");
  const setup = read("environment", "build_timeout_sec");
  if (agent !== undefined) {
    timeouts.agent_sec = agent;
    // Harbor bounds an episode by the agent's timeout alone: one long command (a build, the oracle's solve.sh) may
    // take all of it, where hsearch's own tasks cut each command at 60 s.
    timeouts.command_sec = agent;
  }
  if (verifier !== undefined) timeouts.verifier_sec = verifier;
  if (setup !== undefined) timeouts.setup_sec = setup;
  return timeouts;
}

function allowsInternet(toml: TomlTable, file: string): boolean {
  const value = (toml.environment as TomlTable | undefined)?.allow_internet;
  if (value !== undefined && typeof value !== "boolean")
    throw badInput("environment.allow_internet must be true or false", {
      file,
      field: "environment.allow_internet",
    });
  return value === true;
}

function taskId(toml: TomlTable, dir: string): string {
  const name = (toml.task as TomlTable | undefined)?.name;
  const base =
    typeof name === "string" && name.trim() !== "" ? (name.split("/").pop() ?? name) : basename(dir);
  const slug = base
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+|-+$/g, "");
  if (slug === "") throw badInput("cannot make a task id from the task's name", { file: dir });
  return `harbor-${slug}`;
}

type Environment =
  | (TaskEnvironment & {
      /** The task's own work directory when its last WORKDIR is outside /app (dockerfile.ts). */
      workspace?: string;
    })
  | EnvironmentRefusal;

function readEnvironment(dir: string, toml: TomlTable): Environment {
  const envDir = join(dir, "environment");
  const all = existsSync(envDir) ? walk(envDir) : new Map<string, Buffer>();
  const compose = composeRefusal(all);
  if (compose) return compose;
  const image = (toml.environment as TomlTable | undefined)?.docker_image;
  const dockerfile = all.get("Dockerfile");
  if (dockerfile === undefined && typeof image === "string")
    return {
      ok: false,
      category: "prebuilt_image",
      reason: `the environment is the prebuilt Docker image ${image}`,
    };
  all.delete("Dockerfile");
  let placed = all;
  let env: Record<string, string> = {};
  let setup: string[] = [];
  let requires = emptyRequirements();
  let workdir = "/app";
  let workspace: string | undefined;
  if (dockerfile !== undefined) {
    const where = join(envDir, "Dockerfile");
    const plan = planDockerfile(
      dockerfile.toString("utf8"),
      (path) => all.get(path)?.toString("utf8"),
      relative(dir, where),
    );
    if (!plan.ok) return { ok: false, category: "dockerfile", reason: plan.reason };
    ({ env, requires, workdir, workspace } = plan);
    placed = new Map();
    // Copies outside the workspace are placed by the setup, in the Dockerfile's order among its RUN steps.
    const outside = new Map<number, string[]>();
    for (const copy of plan.copies) {
      for (const source of copy.sources) {
        const clean = cleanContextPath(source);
        const matches = [...all.entries()].filter(
          ([path]) => clean === "" || path === clean || path.startsWith(`${clean}/`),
        );
        if (matches.length === 0)
          return {
            ok: false,
            category: "incomplete",
            reason: `the task directory is incomplete: environment/${clean}, which its Dockerfile copies, is not there`,
          };
        for (const [path, bytes] of matches) {
          const inside = clean === "" ? path : path === clean ? basename(path) : path.slice(clean.length + 1);
          const target = path === clean && !copy.dir ? copy.dest : join(copy.dest, inside);
          if (target === "" || target === ".")
            throw badInput(`COPY of '${source}' has no file name to write`, { file: where });
          if (!copy.outside) placed.set(target, bytes);
          else {
            const lines = outside.get(copy.outside.beforeStep) ?? [];
            outside.set(copy.outside.beforeStep, [...lines, ...writeFileLines(target, bytes)]);
          }
        }
      }
    }
    setup = [];
    for (let step = 0; step <= plan.setup.length; step++) {
      const placing = outside.get(step);
      if (placing) setup.push(placing.join("\n"));
      const run = plan.setup[step];
      if (run !== undefined) setup.push(run);
    }
  }
  const incomplete = checksumRefusal(all.keys());
  if (incomplete) return incomplete;
  const { files, binary } = splitByEncoding(placed);
  return {
    ok: true,
    files,
    binary,
    env,
    ...(setup.length > 0 ? { setup: `set -e\n${setup.join("\n")}\n` } : {}),
    requires,
    workdir,
    ...(workspace !== undefined ? { workspace } : {}),
  };
}

/**
 * The shell scripts beside test.sh or solve.sh (a `verify.sh` the tests run) install their tools as the main scripts
 * do, and those lines go the same way: dropped, their packages requirements (the host's on the sandbox path, the
 * image's run-time layer on the Docker path, where the container has no network to install them). Their fetches and
 * root steps are read by siblingFetches.
 */
function helperScripts(
  files: Map<string, Buffer>,
  folder: string,
): { files: Map<string, Buffer>; requires: TaskRequirements } {
  const requires = emptyRequirements();
  const out = new Map<string, Buffer>();
  for (const [name, bytes] of files) {
    const text = isText(bytes) ? bytes.toString("utf8") : undefined;
    if (text === undefined || !(name.endsWith(".sh") || /^#![^\n]*\b(ba|da)?sh\b/.test(text))) {
      out.set(name, bytes);
      continue;
    }
    const rewritten = rewriteTestScript(text, `${folder}/${name}`);
    requires.debian.push(...rewritten.requires.debian);
    requires.python.push(...rewritten.requires.python);
    out.set(name, Buffer.from(rewritten.script));
  }
  return { files: out, requires };
}

/** Every file below `dir` but `except`, by relative path. */
function siblings(dir: string, except: string): Map<string, Buffer> {
  const files = walk(dir);
  files.delete(except);
  return files;
}

function walk(root: string, dir = root, into = new Map<string, Buffer>()): Map<string, Buffer> {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(root, path, into);
    else if (entry.isFile()) into.set(relative(root, path), readFileSync(path));
  }
  return into;
}
