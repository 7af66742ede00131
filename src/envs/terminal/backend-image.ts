/**
 * The task image backend (image-plan.ts): the episode runs in the task's own image — its prebuilt one or its
 * Dockerfile's (image-build.ts) — as the image's user. As root on an overlay engine the WORKDIR and /tmp stay in
 * the container's own file system and the host reads them in its merged root, as Harbor's episode has them (a
 * rename from /app to /tmp works); otherwise they are copied out of the image to host directories bound there.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, chown, mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HsearchError } from "../../core";
import { openContainer } from "./container-supervisor";
import {
  type BuiltImage,
  copyOutOfImage,
  engineCommand,
  ensureDockerfileImage,
  openTmp,
} from "./image-build";
import {
  type DockerfileImage,
  type ImageSource,
  imageRunInvocation,
  workspaceMountPoint,
} from "./image-plan";
import type { BackendStart, SandboxBackend } from "./sandbox-backend";
import { findTool, isDirectory } from "./sandbox-host";
import { DEFAULT_LIMITS } from "./sandbox-plan";
import type { SandboxSession } from "./sandbox-session";
import { SANDBOX_PATHS } from "./sandbox-types";

/** A task image's build without a limit of its own (Harbor's default build_timeout_sec). */
const DEFAULT_BUILD_TIMEOUT_MS = 600_000;
/** Storage drivers whose containers have a merged root on the host (`.GraphDriver.Data.MergedDir`). */
const MERGED_DRIVERS = new Set(["overlay2", "overlay"]);

export const imageBackend: SandboxBackend = {
  name: "task image",
  accepts: (options) => options.container?.image !== undefined,
  async start(input) {
    const { options } = input;
    const image = options.container?.image;
    if (!image) throw new HsearchError("sandbox", "the task image backend needs a task image");
    const engine = options.container?.engine ?? "docker";
    const binary = findTool(engine);
    if (!binary)
      throw new HsearchError("sandbox", `the task asks for ${engine}, which is not installed here`);
    const built = await ensureDockerfileImage(
      binary,
      engine,
      image,
      options.dir,
      options.container?.buildTimeoutMs ?? DEFAULT_BUILD_TIMEOUT_MS,
      options.container?.imageSource ?? "auto",
    );
    if (process.geteuid?.() === 0 && !options.readOnlyWorkspace && MERGED_DRIVERS.has(built.driver)) {
      const session = await startInPlace(input, binary, built);
      if (session) return session;
    }
    return startBound(input, binary, built);
  },
};

/**
 * The engine's ID of the image a task's episode runs in (its run-time layer included): the image's content, which
 * a tag does not pin (a base image rebuilt, a prebuilt tag pushed anew). Built or pulled as the episode would.
 */
export async function episodeImageId(options: {
  container?: "docker" | "podman";
  image?: DockerfileImage;
  imageSource?: ImageSource;
  setupTimeoutMs?: number;
}): Promise<string | undefined> {
  if (!options.image) return undefined;
  const engine = options.container ?? "docker";
  const binary = findTool(engine);
  if (!binary) throw new HsearchError("sandbox", `the task asks for ${engine}, which is not installed here`);
  const scratch = await mkdtemp(join(tmpdir(), "hsearch-image-id-"));
  try {
    const built = await ensureDockerfileImage(
      binary,
      engine,
      options.image,
      scratch,
      options.setupTimeoutMs ?? DEFAULT_BUILD_TIMEOUT_MS,
      options.imageSource ?? "auto",
    );
    return (await engineCommand(binary, ["image", "inspect", "--format", "{{.Id}}", built.tag])).trim();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

function runInput(input: BackendStart, binary: string, built: BuiltImage, name: string) {
  const { options, paths } = input;
  return {
    binary,
    image: built.tag,
    name,
    config: built.config,
    paths,
    readOnlyWorkspace: options.readOnlyWorkspace ?? false,
    resources: options.container?.image?.resources ?? {},
    maxProcs: options.limits?.maxProcs ?? DEFAULT_LIMITS.maxProcs,
    storageLimits: built.storageLimits,
    ...(options.network ? { network: true } : {}),
  };
}

/**
 * The container created first, so the host can find its merged root, then started: what the host placed in the
 * episode's workspace and tmp (the task's files, HOME's profile) is copied in. Undefined when the engine shows no
 * merged root here (its daemon in another mount namespace): the caller binds instead.
 */
async function startInPlace(
  input: BackendStart,
  binary: string,
  built: BuiltImage,
): Promise<SandboxSession | undefined> {
  const { options, paths } = input;
  const name = `hsearch-${randomBytes(8).toString("hex")}`;
  const create = imageRunInvocation({ ...runInput(input, binary, built, name), inPlace: true });
  await engineCommand(binary, create.args);
  const merged = (
    await engineCommand(binary, ["inspect", "--format", "{{.GraphDriver.Data.MergedDir}}", name]).catch(
      () => "",
    )
  ).trim();
  const hostPaths = {
    workspace: join(merged, workspaceMountPoint(built.config)),
    tmp: join(merged, SANDBOX_PATHS.tmp),
    root: merged,
  };
  const session = await openContainer(
    options,
    paths,
    { file: binary, args: ["start", "--attach", "--interactive", name] },
    {
      name,
      binary,
      ownLimitsOnly: true,
      image: built.origin,
      hostPaths,
      workspaceAt: workspaceMountPoint(built.config),
    },
  );
  if (merged === "" || !isDirectory(merged)) {
    await session.close();
    return undefined;
  }
  try {
    await mkdir(hostPaths.workspace, { recursive: true });
    await copyInto(paths.workspace, hostPaths.workspace);
    await mkdir(hostPaths.tmp, { recursive: true });
    await copyInto(paths.tmp, hostPaths.tmp);
  } catch (error) {
    await session.close();
    throw error;
  }
  return session;
}

/** The WORKDIR and /tmp copied out of the image to the host directories the container binds there. */
async function startBound(input: BackendStart, binary: string, built: BuiltImage): Promise<SandboxSession> {
  const { options, paths } = input;
  const workspace = workspaceMountPoint(built.config);
  await copyOutOfImage(binary, built.tag, [
    ...(workspace === built.config.workdir ? [{ from: workspace, to: paths.workspace }] : []),
    { from: SANDBOX_PATHS.tmp, to: paths.tmp, optional: true },
  ]);
  await openTmp(paths.tmp);
  const name = `hsearch-${randomBytes(8).toString("hex")}`;
  const invocation = imageRunInvocation(runInput(input, binary, built, name));
  // Without root, what the container's root made in the bound directories is handed back before it goes.
  const uid = process.geteuid?.();
  const handBack =
    uid !== undefined && uid !== 0
      ? async () => {
          const owner = `${uid}:${process.getegid?.() ?? uid}`;
          const dirs = [workspace, SANDBOX_PATHS.tmp, SANDBOX_PATHS.logs];
          await engineCommand(binary, ["exec", "--user", "0", name, "chown", "-R", owner, ...dirs]).catch(
            () => {},
          );
        }
      : undefined;
  return openContainer(options, paths, invocation, {
    name,
    binary,
    ownLimitsOnly: true,
    image: built.origin,
    workspaceAt: workspace,
    ...(handBack ? { beforeRemove: handBack } : {}),
  });
}

/**
 * Everything in `from` into `to`, owners and modes kept (nothing to do when `from` is empty). `to` itself keeps the
 * image's owner and mode: `cp -a from/.` would give it `from`'s (a /tmp of mode 700 that the image's other users,
 * a git hook's `mktemp`, may not write).
 */
async function copyInto(from: string, to: string): Promise<void> {
  if ((await readdir(from)).length === 0) return;
  const own = await stat(to);
  await new Promise<void>((resolve, reject) => {
    const child = spawn("cp", ["-a", "--", `${from}/.`, to], { stdio: ["ignore", "ignore", "pipe"] });
    let errors = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      errors += chunk.toString("utf8");
    });
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0
        ? resolve()
        : reject(
            new HsearchError(
              "sandbox",
              `cannot copy the episode's files into its container: ${errors.trim()}`,
            ),
          ),
    );
  });
  const now = await stat(to);
  if (now.uid !== own.uid || now.gid !== own.gid) await chown(to, own.uid, own.gid);
  await chmod(to, own.mode & 0o7777);
}
