/**
 * The container backend (docker or podman): the episode is one container of a base image imported from the
 * episode root's layout (no registry), the host's directories bound as the namespaces backend shows them. A task
 * with a setup gets an image of its own, built once per content hash and reused (see `TaskImage`).
 */
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { HsearchError } from "../../core";
import { openContainer } from "./container-supervisor";
import { buildEpisodeRoot } from "./episode-root";
import { engineCommand } from "./image-build";
import type { BackendStart, SandboxBackend } from "./sandbox-backend";
import { findTool, handWorkspaceTo, identityTexts, sandboxUserFor } from "./sandbox-host";
import { DEFAULT_LIMITS, type HostEntry } from "./sandbox-plan";
import type { SandboxSession, SessionOptions } from "./sandbox-session";
import type { SandboxUser } from "./sandbox-types";
import {
  type ContainerEngine,
  containerImageLayout,
  containerRunInvocation,
  IMAGE_OWNER_PATH,
  type SessionPaths,
} from "./session-plan";

/** Where a task image keeps the workspace its setup left (restored into each episode's workspace). */
const IMAGE_WORKSPACE = "/.hsearch-workspace";

export const containerBackend: SandboxBackend = {
  name: "container",
  accepts: (options) => options.container !== undefined && options.container.image === undefined,
  start: startContainer,
};

async function startContainer({ options, paths, entries, hasVarLib }: BackendStart): Promise<SandboxSession> {
  const { dir } = options;
  const engine = options.container?.engine ?? "docker";
  const binary = findTool(engine);
  if (!binary) throw new HsearchError("sandbox", `the task asks for ${engine}, which is not installed here`);
  const user = options.user ?? (process.geteuid?.() === 0 ? sandboxUserFor(options.workspace) : undefined);
  const texts = user ? identityTexts(user) : undefined;
  let identity: { passwd: string; group: string } | undefined;
  if (texts) {
    identity = { passwd: join(dir, "passwd"), group: join(dir, "group") };
    await writeFile(identity.passwd, texts.passwd, { mode: 0o644 });
    await writeFile(identity.group, texts.group, { mode: 0o644 });
  }
  const base = await ensureBaseImage(binary, engine, containerImageLayout(entries, hasVarLib), dir);
  const launch = (image: string, keep: boolean) =>
    launchContainer(options, {
      engine,
      binary,
      paths,
      entries,
      hasVarLib,
      user,
      identity,
      image,
      keep,
    });
  const task = options.container?.taskImage;
  if (!task) return launch(base, false);
  const image = `hsearch-task:${createHash("sha256").update(`${base}\n${task.key}`).digest("hex").slice(0, 16)}`;
  const builtHere = await ensureTaskImage(binary, engine, image, async () => {
    const builder = await launch(base, true);
    try {
      await task.build(builder);
    } catch (error) {
      await builder.close();
      throw error;
    }
    await finishBuild(binary, builder, image, paths.workspace, user);
  });
  if (!builtHere) await restoreWorkspace(binary, image, paths.workspace, user);
  return launch(image, false);
}

/** One container of `image` with the supervisor as its first process; `keep` leaves it for a commit. */
async function launchContainer(
  options: SessionOptions,
  spec: {
    engine: ContainerEngine;
    binary: string;
    paths: SessionPaths;
    entries: HostEntry[];
    hasVarLib: boolean;
    user: SandboxUser | undefined;
    identity: { passwd: string; group: string } | undefined;
    image: string;
    keep: boolean;
  },
): Promise<SandboxSession> {
  const { info } = options;
  const timeout = info.tools.timeout ?? findTool("timeout");
  if (!timeout) throw new HsearchError("sandbox", "coreutils timeout is not installed");
  const name = `hsearch-${randomBytes(8).toString("hex")}`;
  const invocation = containerRunInvocation({
    engine: spec.engine,
    binary: spec.binary,
    image: spec.image,
    name,
    tools: { timeout, setpriv: info.tools.setpriv },
    hostEntries: spec.entries,
    hasVarLib: spec.hasVarLib,
    paths: spec.paths,
    readOnlyWorkspace: options.readOnlyWorkspace ?? false,
    user: spec.user,
    identity: spec.identity,
    maxProcs: options.limits?.maxProcs ?? DEFAULT_LIMITS.maxProcs,
    network: options.container?.network ?? options.network ?? false,
    keep: spec.keep,
    ...(options.workdir !== undefined ? { workdir: options.workdir } : {}),
  });
  return openContainer({ ...options, user: spec.user }, spec.paths, invocation, {
    name,
    binary: spec.binary,
  });
}

const baseImages = new Map<string, Promise<string>>();

/**
 * The engine's base image for episodes: the episode root's directories and symlinks, imported once from a local
 * tar (no registry), tagged by the hash of its content so that a changed layout makes a new image.
 */
export function ensureBaseImage(
  binary: string,
  engine: ContainerEngine,
  layout: ReturnType<typeof containerImageLayout>,
  scratch: string,
): Promise<string> {
  const hash = createHash("sha256").update(JSON.stringify(layout)).digest("hex").slice(0, 16);
  const tag = `hsearch-base:${hash}`;
  const key = `${binary} ${tag}`;
  let image = baseImages.get(key);
  if (!image) {
    image = buildBaseImage(binary, tag, layout, scratch);
    baseImages.set(key, image);
    image.catch(() => baseImages.delete(key));
  }
  return image.catch((error: Error) => {
    throw new HsearchError("sandbox", `${engine} cannot make the episode image ${tag}: ${error.message}`);
  });
}

async function buildBaseImage(
  binary: string,
  tag: string,
  layout: ReturnType<typeof containerImageLayout>,
  scratch: string,
): Promise<string> {
  const present = await engineCommand(binary, ["image", "inspect", "--format", "{{.Id}}", tag]).then(
    () => true,
    () => false,
  );
  if (present) return tag;
  const dir = await mkdtemp(join(scratch, "image-"));
  try {
    const root = join(dir, "root");
    await buildEpisodeRoot(root, layout, undefined);
    const tar = join(dir, "root.tar");
    await run("tar", ["--create", "--file", tar, "--directory", root, "--numeric-owner", "."]);
    await engineCommand(binary, ["import", tar, tag]);
    return tag;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const taskImages = new Map<string, Promise<void>>();

/**
 * Make `image` unless the engine has it: `build` runs at most once per image in this process (concurrent episodes
 * of a task wait for it). True when this call built it (its workspace already holds what the setup left).
 */
async function ensureTaskImage(
  binary: string,
  engine: ContainerEngine,
  image: string,
  build: () => Promise<void>,
): Promise<boolean> {
  const key = `${binary} ${image}`;
  const pending = taskImages.get(key);
  if (pending) {
    await pending;
    return false;
  }
  const present = await engineCommand(binary, ["image", "inspect", "--format", "{{.Id}}", image]).then(
    () => true,
    () => false,
  );
  if (present) return false;
  const building = build();
  taskImages.set(key, building);
  building.catch(() => taskImages.delete(key));
  try {
    await building;
  } catch (error) {
    if (error instanceof HsearchError) throw error;
    throw new HsearchError(
      "sandbox",
      `${engine} cannot make the task image ${image}: ${(error as Error).message}`,
    );
  }
  return true;
}

/** After the setup ran in the kept build container: stop it, put the workspace and its uid in, commit, remove it. */
async function finishBuild(
  binary: string,
  builder: SandboxSession,
  image: string,
  workspace: string,
  user: SandboxUser | undefined,
): Promise<void> {
  const name = builder.containerName ?? "";
  try {
    await builder.finish();
    await engineCommand(binary, ["cp", workspace, `${name}:${IMAGE_WORKSPACE}`]);
    if (user) {
      const owner = join(dirname(workspace), "image-owner");
      await writeFile(owner, `${user.uid}:${user.gid}\n`, { mode: 0o644 });
      await engineCommand(binary, ["cp", owner, `${name}:${IMAGE_OWNER_PATH}`]);
      await rm(owner, { force: true });
    }
    await engineCommand(binary, ["commit", name, image]);
  } finally {
    await engineCommand(binary, ["rm", "--force", name]).catch(() => {});
  }
}

/** An episode of a task image starts from the workspace its setup left, copied out of the image. */
async function restoreWorkspace(
  binary: string,
  image: string,
  workspace: string,
  user: SandboxUser | undefined,
): Promise<void> {
  for (const name of await readdir(workspace))
    await rm(join(workspace, name), { recursive: true, force: true });
  const name = `hsearch-${randomBytes(8).toString("hex")}`;
  await engineCommand(binary, ["create", "--name", name, image, "/bin/true"]);
  try {
    await engineCommand(binary, ["cp", `${name}:${IMAGE_WORKSPACE}/.`, workspace]);
  } finally {
    await engineCommand(binary, ["rm", "--force", name]).catch(() => {});
  }
  if (user) await handWorkspaceTo(workspace, user);
}

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args[0] ?? ""}: ${String(stderr).trim() || error.message}`));
      else resolve(String(stdout));
    });
  });
}
