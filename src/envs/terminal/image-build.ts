/**
 * The thin layer that runs image-plan.ts's command lines: build a task's Dockerfile (once per content hash, as
 * `docker build` caches), add the run-time packages layer, read the built image's WORKDIR and USER, and copy what
 * the episode binds from the host (the WORKDIR, /tmp) out of the image with owners and modes kept.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { HsearchError } from "../../core";
import { type EpisodeImage, TaskSetupError } from "../types";
import {
  buildInvocation,
  type DockerfileImage,
  engineLimitsStorage,
  type ImageConfig,
  type ImageSource,
  imageTag,
  parseImageConfig,
  prebuiltTag,
  runLayerContext,
  runLayerTag,
} from "./image-plan";
import { cutMiddle } from "./output-cut";
import type { ContainerEngine } from "./session-plan";

export interface BuiltImage {
  tag: string;
  /** Which image the episode runs from, recorded with it. */
  origin: EpisodeImage;
  config: ImageConfig;
  /** Whether the engine can cap the container's writable layer (`--storage-opt size=`). */
  storageLimits: boolean;
  /** The engine's storage driver (`docker info`), "" when it does not say. */
  driver: string;
}

const builds = new Map<string, Promise<BuiltImage>>();

/** One task image to make: the engine, the task's image, where build contexts go, the limit of a build, the source. */
interface ImageRequest {
  binary: string;
  engine: ContainerEngine;
  image: DockerfileImage;
  scratch: string;
  timeoutMs: number;
  source: ImageSource;
}

/**
 * The task's image: its prebuilt image or its Dockerfile's as `source` says (`ImageSource`), then the run-time
 * packages layer, each made unless the engine has it (concurrent episodes of a task wait for one build). A failed
 * build, or a forced prebuilt image that cannot be pulled, is the task's setup error with the end of the engine's
 * output; nothing is cached for it.
 */
export function ensureDockerfileImage(
  binary: string,
  engine: ContainerEngine,
  image: DockerfileImage,
  scratch: string,
  timeoutMs: number,
  source: ImageSource = "auto",
): Promise<BuiltImage> {
  const key = [
    binary,
    source,
    imageTag(image),
    image.prebuilt ?? "",
    runLayerTag("", image.runPackages),
  ].join(" ");
  const remembered = builds.get(key);
  const request = { binary, engine, image, scratch, timeoutMs, source };
  if (!remembered) return buildOnce(key, request);
  // The engine's images can be removed behind this process's back (`docker rmi`, a prune): a remembered image
  // that is gone is made again instead of failing the episode's `docker create`.
  return remembered.then(async (built) =>
    (await present(binary, built.tag)) ? built : buildOnce(key, request, remembered),
  );
}

/** Starts one build of `key` (unless another caller started it since `stale` was found gone) and remembers it. */
function buildOnce(key: string, request: ImageRequest, stale?: Promise<BuiltImage>): Promise<BuiltImage> {
  const current = builds.get(key);
  if (current !== undefined && current !== stale) return current;
  const built = buildImage(request);
  builds.set(key, built);
  built.catch(() => builds.delete(key));
  return built;
}

async function buildImage(request: ImageRequest): Promise<BuiltImage> {
  const { binary, image } = request;
  const { base, origin, layered } = await baseImage(request);
  const tag = runLayerTag(base, image.runPackages);
  if (!layered && tag !== base) {
    const user = parseImageConfig(await inspectConfig(binary, base)).user;
    const layer = runLayerContext(base, user, image.runPackages);
    await buildContext(request, tag, "the layer of the tests' and solution's packages", {
      Dockerfile: Buffer.from(layer.dockerfile),
      context: new Map([["hsearch-run-packages.sh", Buffer.from(layer.script)]]),
      executable: [],
    });
  }
  const config = parseImageConfig(await inspectConfig(binary, tag));
  const driver = (await engineCommand(binary, ["info", "--format", "{{.Driver}}"]).catch(() => "")).trim();
  const storageLimits = image.resources.storageMb !== undefined && engineLimitsStorage(driver);
  return { tag, config, storageLimits, driver, origin };
}

/**
 * The image the run-time layer goes on: the prebuilt one where `source` allows and the engine has or pulls it,
 * else the Dockerfile's (built unless present, or its layer is). `layered`: the layer on it is there already.
 */
async function baseImage(
  request: ImageRequest,
): Promise<{ base: string; origin: EpisodeImage; layered: boolean }> {
  const { binary, engine, image, timeoutMs, source } = request;
  const reference = image.prebuilt;
  /** "layer" when the run-time layer on `tag` is there (its base need not be), "base" when only `tag` is. */
  const made = async (tag: string) =>
    (await present(binary, runLayerTag(tag, image.runPackages)))
      ? ("layer" as const)
      : (await present(binary, tag))
        ? ("base" as const)
        : undefined;
  let pullError: string | undefined;
  if (source === "prebuilt" && reference === undefined)
    throw new TaskSetupError(
      "the image source is prebuilt, but the task names no prebuilt image ([environment].docker_image)",
      { field: "env.image.prebuilt" },
    );
  if (reference !== undefined && source !== "dockerfile") {
    const local = prebuiltTag(reference);
    const origin: EpisodeImage = { source: "prebuilt", reference };
    const have = await made(local);
    if (have) return { base: local, origin, layered: have === "layer" };
    if (!(await present(binary, reference))) {
      const pulled = await runLogged(binary, ["pull", reference], timeoutMs);
      if (pulled.code !== 0 || pulled.timedOut) {
        const why = pulled.timedOut
          ? `did not finish in ${Math.round(timeoutMs / 1000)} s`
          : lastLine(pulled.output) || `exit status ${pulled.code}`;
        if (source === "prebuilt")
          throw new TaskSetupError(`${engine} cannot pull the task's prebuilt image ${reference}: ${why}`, {
            field: "env.image.prebuilt",
          });
        pullError = why;
      }
    }
    if (pullError === undefined) {
      await engineCommand(binary, ["tag", reference, local]);
      return { base: local, origin, layered: false };
    }
  }
  const base = imageTag(image);
  const origin: EpisodeImage = {
    source: "dockerfile",
    reference: base,
    ...(reference !== undefined ? { prebuilt: reference } : {}),
    ...(pullError !== undefined ? { pull_error: cutMiddle(pullError, 500) } : {}),
  };
  const have = await made(base);
  if (!have)
    await buildContext(request, base, "the task's Dockerfile", {
      Dockerfile: Buffer.from(image.dockerfile),
      context: image.context,
      executable: image.executable,
    });
  return { base, origin, layered: have === "layer" };
}

function lastLine(output: string): string {
  return (
    output
      .trim()
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "")
      .at(-1) ?? ""
  );
}

/** Build `files` as `tag` with the task's build network; a failed or timed-out build is the task's setup error. */
async function buildContext(
  request: ImageRequest,
  tag: string,
  what: string,
  files: { Dockerfile: Buffer; context: ReadonlyMap<string, Buffer>; executable: readonly string[] },
): Promise<void> {
  const { binary, engine, scratch, timeoutMs } = request;
  const network = request.image.buildNetwork;
  const dir = await mkdtemp(join(scratch, "image-build-"));
  try {
    const executable = new Set(files.executable);
    for (const [path, bytes] of files.context) {
      const target = join(dir, path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, bytes, { mode: executable.has(path) ? 0o755 : 0o644 });
    }
    await writeFile(join(dir, "Dockerfile"), files.Dockerfile, { mode: 0o644 });
    const invocation = buildInvocation(binary, { tag, contextDir: dir, network });
    const result = await runLogged(invocation.file, invocation.args, timeoutMs);
    if (result.timedOut)
      throw new TaskSetupError(
        `${engine} build of ${what} did not finish in ${Math.round(timeoutMs / 1000)} s: ${cutMiddle(result.output, 2000)}`,
        { field: "env.image" },
      );
    if (result.code !== 0)
      throw new TaskSetupError(
        `${engine} build of ${what} failed (exit status ${result.code}): ${cutMiddle(result.output, 2000)}`,
        { field: "env.image" },
      );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Copy directories of `image` to host directories: `docker cp` streams each as a tar, which the host's tar unpacks
 * with the image's owners and modes (as root; otherwise as the caller's). An `optional` path the image lacks is
 * left empty.
 */
export async function copyOutOfImage(
  binary: string,
  image: string,
  copies: ReadonlyArray<{ from: string; to: string; optional?: boolean }>,
): Promise<void> {
  const name = `hsearch-${randomBytes(8).toString("hex")}`;
  await engineCommand(binary, ["create", "--name", name, "--entrypoint", "/bin/true", image]);
  try {
    for (const { from, to, optional } of copies) {
      try {
        await pipeTar(binary, ["cp", `${name}:${from}/.`, "-"], to);
      } catch (error) {
        if (!(optional && /could not find|no such/i.test((error as Error).message))) throw error;
      }
    }
  } finally {
    await engineCommand(binary, ["rm", "--force", name]).catch(() => {});
  }
}

/** `binary args` (a tar on stdout) unpacked into `dir` by tar. */
function pipeTar(binary: string, args: string[], dir: string): Promise<void> {
  const owners = process.geteuid?.() === 0 ? ["--same-owner", "--numeric-owner"] : ["--no-same-owner"];
  return new Promise((resolve, reject) => {
    const source = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    const sink = spawn(
      "tar",
      ["--extract", "--file", "-", "--directory", dir, "--same-permissions", ...owners],
      {
        stdio: ["pipe", "ignore", "pipe"],
      },
    );
    const errors = { source: "", sink: "" };
    source.stderr?.on("data", (chunk: Buffer) => {
      errors.source += chunk.toString("utf8");
    });
    sink.stderr?.on("data", (chunk: Buffer) => {
      errors.sink += chunk.toString("utf8");
    });
    sink.stdin?.on("error", () => {});
    source.stdout?.pipe(sink.stdin as NodeJS.WritableStream);
    const codes: { source?: number | null; sink?: number | null } = {};
    const settle = () => {
      if (!("source" in codes) || !("sink" in codes)) return;
      if (codes.source === 0 && codes.sink === 0) resolve();
      else
        reject(
          new HsearchError(
            "sandbox",
            `copying ${args[1] ?? ""} out of the image failed: ${(errors.source || errors.sink).trim()}`,
          ),
        );
    };
    source.once("error", reject);
    sink.once("error", reject);
    source.once("close", (code) => {
      codes.source = code;
      settle();
    });
    sink.once("close", (code) => {
      codes.sink = code;
      settle();
    });
  });
}

/** The sticky, world-writable mode of /tmp, whatever the copy left. */
export async function openTmp(dir: string): Promise<void> {
  await chmod(dir, 0o1777);
}

function present(binary: string, tag: string): Promise<boolean> {
  return engineCommand(binary, ["image", "inspect", "--format", "{{.Id}}", tag]).then(
    () => true,
    () => false,
  );
}

function inspectConfig(binary: string, tag: string): Promise<string> {
  return engineCommand(binary, ["image", "inspect", "--format", "{{json .Config}}", tag]);
}

/** One engine command's stdout. */
export function engineCommand(binary: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(binary, args, { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${binary} ${args[0] ?? ""}: ${String(stderr).trim() || error.message}`));
      else resolve(String(stdout));
    });
  });
}

/** Run a long command (a build), keeping the end of its output; killed with its group at the deadline. */
function runLogged(
  file: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; timedOut: boolean; output: string }> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
    let output = "";
    let timedOut = false;
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-16_000);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, output });
    });
  });
}
