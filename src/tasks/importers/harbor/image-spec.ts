/**
 * Pure apart from reading the task directory: a Harbor task on the Docker path (`tasks import-harbor --sandbox
 * docker`). Instead of translating the Dockerfile for the namespace sandbox (dockerfile.ts), the task carries the
 * Dockerfile and its build context as they are (`env.image`), and its episode, verifier and reference solution run
 * in the image `docker build` makes of them. So what only the namespace sandbox cannot do — files outside /app, a
 * WORKDIR outside /app, steps only root can take, `COPY --from`, packages this machine's archive lacks, network at
 * build time — no longer keeps a task out. What still does: docker compose, and network that the tests or the
 * solution need at run time (episodes have none). The tests' and solution's own installs (`apt-get install`,
 * `pip install`, `uvx -w`) go into one more layer at build time (`run_packages`), as on the namespace path they
 * become host requirements.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { badInput } from "../../../core";
import type { TerminalEnvSpec, TerminalTimeouts } from "../../../domain";
import { type BaseImageRule, mapDockerfileBases } from "./base-images";
import { missingBesideChecksum, missingCopySource } from "./context-files";
import { dockerInstructions, normalisePath } from "./dockerfile";
import type { SkipCategory } from "./import-harbor";
import { emptyRequirements, type TaskRequirements } from "./requirements";
import { splitByEncoding } from "./test-script";
import type { TomlTable } from "./toml";

/** Which way an imported task runs, and how its image is built on the Docker path. */
export interface HarborPathOptions {
  /** Import for a container engine (the Docker path); default: the namespace sandbox. */
  sandbox?: "docker" | "podman";
  /** The image build's network (see the task format's `image.build_network`); default the engine's own. */
  buildNetwork?: "default" | "host" | "none";
  /**
   * Map FROM images to local ones (base-images.ts): the user's rules, then the defaults for registry images.
   * Undefined: FROM stays as the Dockerfile says (a machine that reaches the registry).
   */
  imageMap?: readonly BaseImageRule[];
}

type TaskImage = NonNullable<TerminalEnvSpec["image"]>;

/** What a task's environment gives its task file, on either path (namespaces or an image). */
export interface TaskEnvironment {
  ok: true;
  files: Record<string, string>;
  binary: Record<string, string>;
  env: Record<string, string>;
  /** On the Docker path never: the Dockerfile's steps are the image's build. */
  setup?: string;
  requires: TaskRequirements;
  /** The last WORKDIR as the Dockerfile says it, where the tests and solution start ("/app" unknown). */
  workdir: string;
}

/** Why a task's environment cannot be imported. */
export type EnvironmentRefusal = { ok: false; reason: string; category: SkipCategory };

/** The environment of a task on the Docker path: nothing placed by hsearch, the image does it all. */
export type ImageEnvironment = (TaskEnvironment & { image: TaskImage }) | EnvironmentRefusal;

const COMPOSE_FILES = ["docker-compose.yaml", "docker-compose.yml", "compose.yaml"];

/** The refusal of an environment that needs docker compose (neither path runs one), given its files. */
export function composeRefusal(files: { has(name: string): boolean }): EnvironmentRefusal | undefined {
  const compose = COMPOSE_FILES.find((name) => files.has(name));
  return compose === undefined
    ? undefined
    : {
        ok: false,
        category: "compose",
        reason: `the environment needs docker compose (environment/${compose})`,
      };
}

/** The refusal of a context that lost a data file its checksum names (a snapshot that stored it apart), on either path. */
export function checksumRefusal(files: Iterable<string>): EnvironmentRefusal | undefined {
  const data = missingBesideChecksum(files);
  return data === null
    ? undefined
    : {
        ok: false,
        category: "incomplete",
        reason: `the task directory is incomplete: environment/${data}.sha256 names environment/${data}, which is not there`,
      };
}

export function imageEnvironment(
  dir: string,
  toml: TomlTable,
  options: HarborPathOptions = {},
): ImageEnvironment {
  const envDir = join(dir, "environment");
  const context = readContext(envDir);
  const compose = composeRefusal(context);
  if (compose) return compose;
  const tomlFile = join(dir, "task.toml");
  const environment = (toml.environment as TomlTable | undefined) ?? {};
  const prebuilt = environment.docker_image;
  const dockerfile = context.get("Dockerfile");
  context.delete("Dockerfile");
  let text: string;
  if (dockerfile !== undefined) text = dockerfile.bytes.toString("utf8");
  else if (typeof prebuilt === "string" && prebuilt.trim() !== "") text = `FROM ${prebuilt.trim()}\n`;
  else
    throw badInput("a Harbor task needs environment/Dockerfile or [environment].docker_image", {
      file: envDir,
    });
  const lost = missingCopySource(text, context.keys());
  if (lost)
    return {
      ok: false,
      category: "incomplete",
      reason: `the task directory is incomplete: environment/${lost.source}, which its Dockerfile copies (line ${lost.line}), is not there`,
    };
  const incomplete = checksumRefusal(context.keys());
  if (incomplete) return incomplete;
  if (options.imageMap) text = mapDockerfileBases(text, options.imageMap).dockerfile;
  const { files, binary } = splitByEncoding([...context].map(([path, { bytes }]) => [path, bytes] as const));
  const executable = [...context]
    .filter(([, { mode }]) => mode & 0o111)
    .map(([path]) => path)
    .sort();
  const resources = imageResources(environment, tomlFile);
  return {
    ok: true,
    files: {},
    binary: {},
    env: {},
    requires: emptyRequirements(),
    workdir: lastWorkdir(text) ?? "/app",
    image: {
      dockerfile: text,
      // Harbor runs the prebuilt image where it can pull it; the episode does too where the user's engine can.
      ...(typeof prebuilt === "string" && prebuilt.trim() !== "" ? { prebuilt: prebuilt.trim() } : {}),
      ...(Object.keys(files).length > 0 ? { context: files } : {}),
      ...(Object.keys(binary).length > 0 ? { context_binary: binary } : {}),
      ...(executable.length > 0 ? { executable } : {}),
      ...(Object.keys(resources).length > 0 ? { resources } : {}),
    },
  };
}

/** The image of an environment on the Docker path; undefined for the namespace path's. */
export function imageOf(environment: object): TaskImage | undefined {
  return "image" in environment ? (environment as { image: TaskImage }).image : undefined;
}

/**
 * What the Docker path adds to the task's environment: the sandbox, the image with the tests' and solution's
 * run-time packages and the build's network, and a command limit of the agent's whole budget (Harbor bounds a
 * command, the reference solution's included, only by the agent's timeout). `requires` is what the tests and
 * solution need; what is left for the host is only the network they would need at run time.
 */
export function imageTaskEnv(
  image: TaskImage,
  requires: TaskRequirements,
  timeouts: TerminalTimeouts,
  options: HarborPathOptions,
): Partial<TerminalEnvSpec> {
  const runPackages = { debian: [...requires.debian], python: [...requires.python] };
  const agent = timeouts.agent_sec;
  return {
    sandbox: options.sandbox ?? "docker",
    image: {
      ...image,
      ...(options.buildNetwork && options.buildNetwork !== "default"
        ? { build_network: options.buildNetwork }
        : {}),
      ...(runPackages.debian.length + runPackages.python.length > 0 ? { run_packages: runPackages } : {}),
    },
    ...(agent !== undefined && timeouts.command_sec === undefined
      ? { timeouts: { ...timeouts, command_sec: agent } }
      : {}),
    requires: hostNeedsOnImagePath(requires),
  };
}

/** On the Docker path the host only runs the engine: packages and root are the image's; run-time network is not. */
export function hostNeedsOnImagePath(requires: TaskRequirements): TaskRequirements {
  return { ...emptyRequirements(), network: [...requires.network] };
}

/** Harbor's `[environment]` resources: `cpus`, `memory_mb` / `memory` ("2G"), `storage_mb` / `storage` ("10G"). */
export function imageResources(environment: TomlTable, file: string): NonNullable<TaskImage["resources"]> {
  const resources: NonNullable<TaskImage["resources"]> = {};
  const cpus = environment.cpus;
  if (cpus !== undefined) {
    if (typeof cpus !== "number" || !(cpus > 0))
      throw badInput("environment.cpus must be a positive number", { file, field: "environment.cpus" });
    resources.cpus = cpus;
  }
  const memory = sizeMb(environment, "memory", file);
  if (memory !== undefined) resources.memory_mb = memory;
  const storage = sizeMb(environment, "storage", file);
  if (storage !== undefined) resources.storage_mb = storage;
  return resources;
}

const UNIT_MB: Record<string, number> = { k: 1 / 1024, m: 1, g: 1024, t: 1024 * 1024 };

/** `NAME_mb` (an integer) or the older `NAME` ("2G", "512M", "1.5GB", "2Gi"), in MiB. */
function sizeMb(environment: TomlTable, name: string, file: string): number | undefined {
  const mb = environment[`${name}_mb`];
  if (mb !== undefined) {
    if (typeof mb !== "number" || !Number.isInteger(mb) || mb <= 0)
      throw badInput(`environment.${name}_mb must be a positive whole number of MB`, {
        file,
        field: `environment.${name}_mb`,
      });
    return mb;
  }
  const text = environment[name];
  if (text === undefined) return undefined;
  const match =
    typeof text === "string" ? /^\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT])(?:i?[bB]?)?\s*$/.exec(text) : null;
  const value = match ? Math.ceil(Number(match[1]) * (UNIT_MB[(match[2] as string).toLowerCase()] ?? 0)) : 0;
  if (!(value > 0))
    throw badInput(`environment.${name} must be a size such as "2G" or "512M", got ${JSON.stringify(text)}`, {
      file,
      field: `environment.${name}`,
    });
  return value;
}

/**
 * The last WORKDIR of the Dockerfile's final stage (relative ones resolved, `$VAR` left unresolved), following a
 * stage built `FROM` an earlier one; undefined when the base image decides it.
 */
export function lastWorkdir(dockerfile: string): string | undefined {
  const stages = new Map<string, string | undefined>();
  let workdir: string | undefined;
  let stage: string | undefined;
  for (const { keyword, args } of dockerInstructions(dockerfile)) {
    if (keyword === "FROM") {
      const [image, as, name] = args.split(/\s+/).filter((part) => !part.startsWith("--"));
      workdir = stages.get((image ?? "").toLowerCase());
      stage = as?.toLowerCase() === "as" && name ? name.toLowerCase() : undefined;
      if (stage !== undefined) stages.set(stage, workdir);
      continue;
    }
    if (keyword === "WORKDIR") {
      const path = args.trim().replace(/^["']|["']$/g, "");
      workdir = normalisePath(path.startsWith("/") ? path : `${workdir ?? "/"}/${path}`);
      if (stage !== undefined) stages.set(stage, workdir);
    }
  }
  return workdir;
}

/** Every regular file of the build context with its mode, by relative path. */
function readContext(root: string): Map<string, { bytes: Buffer; mode: number }> {
  const into = new Map<string, { bytes: Buffer; mode: number }>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile())
        into.set(relative(root, path), { bytes: readFileSync(path), mode: statSync(path).mode });
    }
  };
  try {
    if (statSync(root).isDirectory()) walk(root);
  } catch {
    // no environment/: a prebuilt image only
  }
  return into;
}
