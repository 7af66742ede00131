/**
 * Import Harbor / Terminal-Bench 2 task directories (DESIGN §3) as feasible terminal tasks:
 *   instruction.md            → instruction
 *   task.toml                 → checked (strict TOML); [task].name names the task
 *   environment/              → the workspace's files (all of them, or those a simple Dockerfile copies to /app);
 *                               environment/setup.sh, our own convention, runs as the task's setup
 *   solution/solve.sh (+ files) → reference solution, and the simulator's one step
 *   tests/test.sh (+ files)   → the verifier; it writes /logs/verifier/reward.txt
 * /app is the workspace in the sandbox, and /tests and /logs are mounted for verifiers, so those paths work as
 * they are. A task whose environment needs a Docker image build, several containers or network is skipped with
 * the reason; one whose tests need a tool this machine's sandbox lacks fails with a clear message.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { badInput, HsearchError, isHsearchError } from "../../core/errors";
import type { Split, Task } from "../../domain/task";
import { planDockerfile } from "./dockerfile";
import { bundleScript, isText, rewriteTestScript } from "./test-script";
import { parseToml, type TomlTable } from "./toml";

export interface HarborImport {
  tasks: Task[];
  skipped: Array<{ dir: string; reason: string }>;
  /** A task that is wrong (`bad_input`) or needs a tool this machine lacks (`missing_tool`). */
  failed: Array<{ dir: string; error: string; kind: "bad_input" | "missing_tool" }>;
}

/** What a task needs from the machine, checked in the sandbox before the task is accepted. */
export type ToolCheck = (needs: { python: boolean; pytest: boolean }) => Promise<string | null>;

const REQUIRED = ["instruction.md", "task.toml", "solution/solve.sh", "tests/test.sh"];
const SETUP_FILE = "setup.sh";

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

export async function importHarbor(path: string, split: Split, checkTools: ToolCheck): Promise<HarborImport> {
  const result: HarborImport = { tasks: [], skipped: [], failed: [] };
  const ids = new Map<string, string>();
  for (const dir of harborTaskDirs(path)) {
    try {
      const converted = convertTaskDir(dir, split);
      if (!converted.ok) {
        result.skipped.push({ dir, reason: converted.reason });
        continue;
      }
      const missing = await checkTools(converted.needs);
      if (missing !== null) {
        result.failed.push({ dir, error: missing, kind: "missing_tool" });
        continue;
      }
      const other = ids.get(converted.task.id);
      if (other !== undefined)
        throw badInput(`task id '${converted.task.id}' is also the id of ${other}`, { file: dir });
      ids.set(converted.task.id, dir);
      result.tasks.push(converted.task);
    } catch (error) {
      if (!isHsearchError(error, "bad_input")) throw error;
      result.failed.push({ dir, error: error.describe(), kind: "bad_input" });
    }
  }
  return result;
}

type Converted =
  | { ok: true; task: Task; needs: { python: boolean; pytest: boolean } }
  | { ok: false; reason: string };

/** Pure apart from reading the directory: one Harbor task → one feasible task, or the reason it is skipped. */
export function convertTaskDir(dir: string, split: Split): Converted {
  for (const file of REQUIRED)
    if (!existsSync(join(dir, file)))
      throw badInput(`a Harbor task needs ${file}`, { file: join(dir, file) });
  const tomlFile = join(dir, "task.toml");
  const toml = parseToml(readFileSync(tomlFile, "utf8"), tomlFile);
  checkTaskToml(toml, tomlFile);
  const instruction = readFileSync(join(dir, "instruction.md"), "utf8").trim();
  if (instruction === "") throw badInput("instruction.md is empty", { file: join(dir, "instruction.md") });

  const environment = readEnvironment(dir, toml);
  if (!environment.ok) return environment;
  const tests = rewriteTestScript(readFileSync(join(dir, "tests/test.sh"), "utf8"));
  if (!tests.ok) return tests;
  const verify = bundleScript(tests.script, siblings(join(dir, "tests"), "test.sh"), "/tests");
  const solution = bundleScript(
    readFileSync(join(dir, "solution/solve.sh"), "utf8"),
    siblings(join(dir, "solution"), "solve.sh"),
    "/solution",
  );
  const task: Task = {
    id: taskId(toml, dir),
    suite: "terminal",
    split,
    kind: "feasible",
    instruction,
    env: {
      files: environment.files,
      ...(environment.setup ? { setup: environment.setup } : {}),
      harbor_dir: basename(dir),
    },
    reference: { solution },
    verify: { kind: "terminal_test", script: verify },
    forbidden: {},
    sim: { steps: [{ name: "bash", arguments: { command: solution } }] },
  };
  return { ok: true, task, needs: tests.needs };
}

function checkTaskToml(toml: TomlTable, file: string): void {
  for (const section of ["verifier", "agent", "environment", "task", "metadata"]) {
    const value = toml[section];
    if (value !== undefined && (typeof value !== "object" || Array.isArray(value)))
      throw badInput(`[${section}] must be a table`, { file, field: section });
  }
  for (const section of ["verifier", "agent"]) {
    const timeout = (toml[section] as TomlTable | undefined)?.timeout_sec;
    if (timeout !== undefined && !(typeof timeout === "number" && timeout > 0))
      throw badInput(`${section}.timeout_sec must be a positive number`, {
        file,
        field: `${section}.timeout_sec`,
      });
  }
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
  | { ok: true; files: Record<string, string>; setup?: string }
  | { ok: false; reason: string };

function readEnvironment(dir: string, toml: TomlTable): Environment {
  const envDir = join(dir, "environment");
  const all = existsSync(envDir) ? walk(envDir) : new Map<string, Buffer>();
  for (const compose of ["docker-compose.yaml", "docker-compose.yml", "compose.yaml"])
    if (all.has(compose))
      return { ok: false, reason: `the environment needs docker compose (environment/${compose})` };
  const image = (toml.environment as TomlTable | undefined)?.docker_image;
  const dockerfile = all.get("Dockerfile");
  if (dockerfile === undefined && typeof image === "string")
    return { ok: false, reason: `the environment is the prebuilt Docker image ${image}` };
  const setupBytes = all.get(SETUP_FILE);
  all.delete(SETUP_FILE);
  all.delete("Dockerfile");
  let placed = all;
  if (dockerfile !== undefined) {
    const plan = planDockerfile(dockerfile.toString("utf8"));
    if (!plan.ok) return plan;
    placed = new Map();
    for (const copy of plan.copies) {
      for (const source of copy.sources) {
        const clean = source.replace(/^\.\/?/, "").replace(/\/+$/, "");
        const matches = [...all.entries()].filter(
          ([path]) => clean === "" || path === clean || path.startsWith(`${clean}/`),
        );
        if (matches.length === 0)
          throw badInput(`COPY source '${source}' is not in environment/`, {
            file: join(envDir, "Dockerfile"),
          });
        for (const [path, bytes] of matches) {
          const inside = clean === "" ? path : path === clean ? basename(path) : path.slice(clean.length + 1);
          const target = path === clean && !copy.dir ? copy.dest : join(copy.dest, inside);
          placed.set(target, bytes);
        }
      }
    }
  }
  const files: Record<string, string> = {};
  const binary: string[] = [];
  for (const [path, bytes] of [...placed.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (isText(bytes)) files[path] = bytes.toString("utf8");
    else
      binary.push(
        `mkdir -p "$(dirname '${path}')"\nbase64 -d > '${path}' <<'HSEARCH_B64'\n${bytes.toString("base64")}\nHSEARCH_B64`,
      );
  }
  const setupParts = [...binary, ...(setupBytes ? [setupBytes.toString("utf8")] : [])];
  return setupParts.length > 0
    ? { ok: true, files, setup: `${setupParts.join("\n")}\n` }
    : { ok: true, files };
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
