/**
 * The persistent sandbox of one episode: started once (session-plan.ts says how), then each command is sent to its
 * supervisor and framed back: output up to the command's marker on stdout and stderr, exit status on fd 4. The
 * namespaces, background processes, /tmp and the writable root live until `close`, which kills every process of
 * the episode (the PID namespace dies with its launcher). In a container (docker/podman) the episode is one container;
 * a task with a setup gets an image of its own, built once per content hash and reused (see `TaskImage`).
 *
 * Host layout under the episode's directory `dir`:
 *   root/      the episode's / (mount points, symlinks, writable directories)
 *   control/   stdin files of commands (0700), shown read-only at /.hsearch
 *   verifier/tests, verifier/logs   /tests and /logs (runVerifier fills and hands them over)
 *   passwd, group, fstab            identity files (root only) and the unshare mounts
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { chown, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { badInput, HsearchError } from "../../core/errors";
import { copyOutOfImage, engineCommand, ensureDockerfileImage, openTmp } from "./image-build";
import { type DockerfileImage, imageRunInvocation, workspaceMountPoint } from "./image-plan";
import { CommandOutput, cutMiddle } from "./output-cut";
import {
  findTool,
  handWorkspaceTo,
  hostEntries,
  identityTexts,
  isDirectory,
  sandboxUserFor,
} from "./sandbox-host";
import { commandArgv, DEFAULT_LIMITS, type HostEntry, resolveLimits } from "./sandbox-plan";
import { checkLimits } from "./sandbox-run";
import {
  SANDBOX_PATHS,
  type SandboxInfo,
  type SandboxLimits,
  type SandboxResult,
  type SandboxUser,
} from "./sandbox-types";
import {
  bwrapSessionInvocation,
  CONTROL_PATH,
  type ContainerEngine,
  containerImageLayout,
  containerRunInvocation,
  encodeRequest,
  episodeRootLayout,
  HOST_VAR_LIB,
  IMAGE_OWNER_PATH,
  type SessionPaths,
  type SessionPlanInput,
  sessionFstab,
  supervisorEnv,
  unshareSessionInvocation,
  WRITABLE_ROOT_DIRS,
  writableRootDirs,
} from "./session-plan";
import type { ShellSession } from "./terminal-env";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** How long past a command's own timeout the host waits for the supervisor before giving the episode up. */
const SUPERVISOR_GRACE_MS = 10_000;
const START_TIMEOUT_MS = 30_000;
/** A task image's build without a limit of its own (Harbor's default build_timeout_sec). */
const DEFAULT_BUILD_TIMEOUT_MS = 600_000;

export interface SessionOptions {
  info: SandboxInfo;
  /** The episode's private directory on the host; the session lays out its files there. */
  dir: string;
  /** Host directory shown at /workspace and /app. */
  workspace: string;
  /** Host directory shown at /tmp (HOME). */
  tmp: string;
  /** Privileged only: who commands run as. */
  user?: SandboxUser;
  readOnlyWorkspace?: boolean;
  /**
   * The task's own work directory (workdir.ts, checked by the caller): the workspace is shown there instead of at
   * /app, and every command starts there.
   */
  workdir?: string;
  /** The host's network (a task's allow_internet, granted by the user); containers: the engine's bridge. */
  network?: boolean;
  /** Limits applied to each command (the wall time is per command). */
  limits?: SandboxLimits;
  /** Run the episode in one container of this engine instead of the namespaces of `info`. */
  container?: {
    engine: ContainerEngine;
    network?: boolean;
    taskImage?: TaskImage;
    /** The task's own image (its Dockerfile), built once per content hash; the episode runs in its file system. */
    image?: DockerfileImage;
    /** The limit of that image's build. */
    buildTimeoutMs?: number;
  };
}

/**
 * A container episode's task image: the base image after the task's setup, built once per content hash (as `docker
 * build` caches an image) and reused by every later episode of the same task, which then runs no setup.
 */
export interface TaskImage {
  /** Hash of what the setup starts from and does (the task's files, setup script and variables). */
  key: string;
  /** Runs the task's setup in the build container (a failure is the task's setup error). */
  build: (session: SandboxSession) => Promise<void>;
}

/** Where a task image keeps the workspace its setup left (restored into each episode's workspace). */
const IMAGE_WORKSPACE = "/.hsearch-workspace";

export interface SessionCommand {
  /** A string runs as `bash -c COMMAND`; an array is an argv run as is. */
  command: string | readonly string[];
  timeoutMs: number;
  env?: Record<string, string>;
  stdin?: string | Buffer;
  displayBytes?: number;
  /** stderr into stdout, in the order written, as a terminal shows them (`stderr` is then empty). */
  mergeOutput?: boolean;
}

interface Pending {
  stdout: MarkedStream;
  stderr: MarkedStream;
  status: number | null;
  settle: () => void;
  fail: (error: Error) => void;
}

export class SandboxSession implements ShellSession {
  readonly commandTmp = SANDBOX_PATHS.tmp;
  private nextId = 0;
  private pending: { id: number; state: Pending } | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private replies = "";
  private exited = false;
  private stderrTail = "";
  /** Replies after each marker on stdout (containers) instead of on fd 4. */
  private readonly repliesOnStdout: boolean;

  private constructor(
    readonly info: SandboxInfo,
    readonly paths: SessionPaths,
    private readonly child: ChildProcess,
    private readonly options: SessionOptions,
    /** Ends the episode's processes (a container outlives its client, so it is removed by name). */
    private readonly stop: () => Promise<void>,
  ) {
    this.repliesOnStdout = options.container !== undefined;
  }

  /** Lay out the episode's root and start its namespaces and supervisor. */
  static async start(options: SessionOptions): Promise<SandboxSession> {
    const { info, dir, user } = options;
    checkLimits(options.limits ?? {});
    const paths: SessionPaths = {
      root: join(dir, "root"),
      workspace: options.workspace,
      tmp: options.tmp,
      tests: join(dir, "verifier", "tests"),
      logs: join(dir, "verifier", "logs"),
      control: join(dir, "control"),
    };
    const entries = hostEntries();
    // In a user namespace, mount(8) cannot bind /var/lib alone when mounts lie below it (a docker daemon's): the
    // kernel refuses to uncover what they hide. That sandbox goes without it rather than show those mounts.
    const hasVarLib = isDirectory(HOST_VAR_LIB) && (info.privileged || info.mechanism !== "unshare");
    await mkdir(paths.tests, { recursive: true, mode: 0o755 });
    await mkdir(paths.logs, { recursive: true, mode: 0o755 });
    await mkdir(paths.control, { mode: 0o700 });
    if (options.container?.image) return SandboxSession.startImage(options, paths, options.container.image);
    if (options.container) return SandboxSession.startContainer(options, paths, entries, hasVarLib);
    await buildEpisodeRoot(
      paths.root,
      episodeRootLayout(entries, hasVarLib, options.workdir),
      user,
      writableRootDirs(options.workdir),
    );
    const input: SessionPlanInput = {
      info,
      hostEntries: entries,
      paths,
      readOnlyWorkspace: options.readOnlyWorkspace ?? false,
      user: info.privileged ? user : undefined,
      hasVarLib,
      ...(options.workdir !== undefined ? { workdir: options.workdir } : {}),
      ...(options.network ? { network: true } : {}),
    };
    const texts = info.privileged && user ? identityTexts(user) : undefined;
    if (texts) {
      input.identity = { passwd: join(dir, "passwd"), group: join(dir, "group") };
      await writeFile(input.identity.passwd, texts.passwd, { mode: 0o644 });
      await writeFile(input.identity.group, texts.group, { mode: 0o644 });
    }
    if (info.mechanism === "unshare") {
      input.fstabPath = join(dir, "fstab");
      await writeFile(input.fstabPath, sessionFstab(input), { mode: 0o644 });
    }
    const invocation =
      info.mechanism === "bwrap" ? bwrapSessionInvocation(input) : unshareSessionInvocation(input);
    const child = spawn(invocation.file, invocation.args, {
      env: supervisorEnv(),
      stdio: ["pipe", "pipe", "pipe", "pipe", "pipe"],
      // A new session: nothing in the sandbox has our terminal, and the whole group can be killed at once.
      detached: true,
    });
    const session = new SandboxSession(info, paths, child, options, async () => killGroup(child.pid));
    await session.waitReady();
    return session;
  }

  private static async startContainer(
    options: SessionOptions,
    paths: SessionPaths,
    entries: HostEntry[],
    hasVarLib: boolean,
  ): Promise<SandboxSession> {
    const { dir } = options;
    const engine = options.container?.engine ?? "docker";
    const binary = findTool(engine);
    if (!binary)
      throw new HsearchError("sandbox", `the task asks for ${engine}, which is not installed here`);
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
      SandboxSession.launchContainer(options, {
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

  /**
   * A task image's episode (image-plan.ts): build the image unless the engine has it, copy its WORKDIR and /tmp
   * out to the host directories the container binds there, and start the supervisor as the image's user.
   */
  private static async startImage(
    options: SessionOptions,
    paths: SessionPaths,
    image: DockerfileImage,
  ): Promise<SandboxSession> {
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
    );
    const workspace = workspaceMountPoint(built.config);
    await copyOutOfImage(binary, built.tag, [
      ...(workspace === built.config.workdir ? [{ from: workspace, to: paths.workspace }] : []),
      { from: SANDBOX_PATHS.tmp, to: paths.tmp, optional: true },
    ]);
    await openTmp(paths.tmp);
    const name = `hsearch-${randomBytes(8).toString("hex")}`;
    const invocation = imageRunInvocation({
      binary,
      image: built.tag,
      name,
      config: built.config,
      paths,
      readOnlyWorkspace: options.readOnlyWorkspace ?? false,
      resources: image.resources,
      maxProcs: options.limits?.maxProcs ?? DEFAULT_LIMITS.maxProcs,
      storageLimits: built.storageLimits,
      ...(options.network ? { network: true } : {}),
    });
    // Without root, what the container's root made in the bound directories is handed back before it goes.
    const uid = process.geteuid?.();
    const handBack =
      uid !== undefined && uid !== 0
        ? async () => {
            const owner = `${uid}:${process.getegid?.() ?? uid}`;
            const dirs = [workspaceMountPoint(built.config), SANDBOX_PATHS.tmp, SANDBOX_PATHS.logs];
            await engineCommand(binary, ["exec", "--user", "0", name, "chown", "-R", owner, ...dirs]).catch(
              () => {},
            );
          }
        : undefined;
    const session = await SandboxSession.spawnContainer(options, paths, invocation, name, binary, handBack);
    session.imageEpisode = true;
    return session;
  }

  /** One container of `image` with the supervisor as its first process; `keep` leaves it for a commit. */
  private static async launchContainer(
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
    return SandboxSession.spawnContainer(
      { ...options, user: spec.user },
      spec.paths,
      invocation,
      name,
      spec.binary,
    );
  }

  /** Start a container's `run` and wait for its supervisor; `beforeRemove` runs when the episode ends. */
  private static async spawnContainer(
    options: SessionOptions,
    paths: SessionPaths,
    invocation: { file: string; args: string[] },
    name: string,
    binary: string,
    beforeRemove?: () => Promise<void>,
  ): Promise<SandboxSession> {
    const child = spawn(invocation.file, invocation.args, {
      env: { ...process.env },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    const stop = async () => {
      await beforeRemove?.();
      await engineCommand(binary, ["rm", "--force", name]).catch(() => {});
      killGroup(child.pid);
    };
    const session = new SandboxSession(options.info, paths, child, options, stop);
    session.containerName = name;
    try {
      await session.waitReady();
    } catch (error) {
      await stop();
      throw error;
    }
    return session;
  }

  /** The container's name (container sessions only). */
  containerName: string | undefined;
  /**
   * A task image's episode: per-command CPU, memory and file-size limits are the task's own only (the container's
   * cpus and memory and the wall time bound the rest, as in Harbor).
   */
  private imageEpisode = false;

  /** Let the supervisor end on its own (no more requests) and wait for it: a kept container then stops. */
  async finish(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.stdin?.end();
    const timer = setTimeout(() => void this.stop(), START_TIMEOUT_MS);
    await gone;
    clearTimeout(timer);
  }

  /** Run one command in the episode; commands run one at a time, in call order. */
  run(command: SessionCommand): Promise<SandboxResult> {
    const next = this.queue.then(() => this.runNow(command));
    this.queue = next.catch(() => {});
    return next;
  }

  /** Kill every process of the episode. Safe to call twice. */
  async close(): Promise<void> {
    if (!this.exited) {
      const gone = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
      await this.stop();
      await gone;
    }
  }

  /**
   * Hand /logs to the episode's identity for the verifier. Until then it belongs to root, so nothing the agent ran
   * could write a reward there (as root; without root the agent is the same user as hsearch).
   */
  async openLogs(): Promise<void> {
    if (this.options.user && this.info.privileged)
      await chown(this.paths.logs, this.options.user.uid, this.options.user.gid);
  }

  private waitReady(): Promise<void> {
    const { child } = this;
    let status = "";
    let ready = "";
    child.stdio[3]?.on("data", (chunk: Buffer) => {
      status += chunk.toString("utf8");
    });
    child.stderr?.on("data", (chunk: Buffer) => this.onOutput("stderr", chunk));
    child.stdin?.on("error", () => {});
    const replies = this.repliesOnStdout ? child.stdout : child.stdio[4];
    if (!this.repliesOnStdout) child.stdout?.on("data", (chunk: Buffer) => this.onOutput("stdout", chunk));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        killGroup(child.pid);
        reject(new HsearchError("sandbox", `the ${this.info.mechanism} sandbox did not start in time`));
      }, START_TIMEOUT_MS);
      const onReady = (chunk: Buffer) => {
        ready += chunk.toString("utf8");
        if (!ready.startsWith("ready\n")) return;
        clearTimeout(timer);
        replies?.off("data", onReady);
        if (this.repliesOnStdout) child.stdout?.on("data", (more: Buffer) => this.onOutput("stdout", more));
        else {
          this.replies = ready.slice("ready\n".length);
          replies?.on("data", (more: Buffer) => this.onReply(more));
        }
        resolve();
      };
      replies?.on("data", onReady);
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(new HsearchError("sandbox", `cannot start ${this.info.mechanism}: ${error.message}`));
      });
      child.once("exit", (code, signal) => {
        this.exited = true;
        clearTimeout(timer);
        const why = this.stderrTail.trim() || status.trim() || `exit status ${code ?? signal}`;
        const error = new HsearchError(
          "sandbox",
          `the ${this.info.mechanism} sandbox of the episode could not be set up or ended: ${cutMiddle(why, 2000)}`,
        );
        reject(error);
        this.pending?.state.fail(error);
      });
    });
  }

  private onOutput(stream: "stdout" | "stderr", chunk: Buffer): void {
    const pending = this.pending?.state;
    if (pending) pending[stream].push(chunk);
    else if (stream === "stderr") this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-4000);
  }

  private onReply(chunk: Buffer): void {
    this.replies += chunk.toString("utf8");
    let newline = this.replies.indexOf("\n");
    while (newline >= 0) {
      const [id, status] = this.replies.slice(0, newline).split(" ");
      this.replies = this.replies.slice(newline + 1);
      if (this.pending && Number(id) === this.pending.id) {
        this.pending.state.status = Number(status);
        this.pending.state.settle();
      }
      newline = this.replies.indexOf("\n");
    }
  }

  private async runNow(request: SessionCommand): Promise<SandboxResult> {
    if (this.exited) throw new HsearchError("sandbox", "the episode's sandbox has ended");
    if (!Number.isFinite(request.timeoutMs) || request.timeoutMs <= 0)
      throw badInput(`timeoutMs must be a positive number, got ${request.timeoutMs}`, { field: "timeoutMs" });
    for (const name of Object.keys(request.env ?? {}))
      if (!ENV_NAME.test(name))
        throw badInput(`invalid environment variable name '${name}'`, { field: "env" });
    const argv = commandArgv(request.command);
    if (argv.length === 0 || argv[0] === "") throw badInput("the command is empty", { field: "command" });
    const limits = resolveLimits({ ...this.options.limits, timeoutMs: request.timeoutMs });
    this.nextId += 1;
    const id = this.nextId;
    const marker = `\x01\x02hsearch-end-${randomBytes(16).toString("hex")}\x02\x01`;
    const stdinFile = request.stdin === undefined ? undefined : join(this.paths.control, `${id}.in`);
    if (stdinFile) await writeFile(stdinFile, request.stdin ?? "", { mode: 0o600 });
    const own = this.options.limits ?? {};
    const bytes = encodeRequest({
      id,
      marker,
      ...limits,
      ...(this.imageEpisode
        ? {
            cpuSeconds: own.cpuSeconds ?? "unlimited",
            memoryMb: own.memoryMb ?? "unlimited",
            maxFileMb: own.maxFileMb ?? "unlimited",
          }
        : {}),
      addressSpaceMb: this.options.limits?.addressSpaceMb,
      stdinPath: stdinFile ? `${CONTROL_PATH}/${id}.in` : "",
      mergeOutput: request.mergeOutput ?? false,
      env: request.env ?? {},
      argv,
    });

    const maxOutputBytes = this.options.limits?.maxOutputBytes ?? DEFAULT_LIMITS.maxOutputBytes;
    const output = new CommandOutput(maxOutputBytes);
    const started = performance.now();
    let status: number;
    try {
      status = await new Promise<number>((resolve, reject) => {
        const state: Pending = {
          stdout: new MarkedStream(
            marker,
            (data) => output.push("stdout", data),
            this.repliesOnStdout ? (rest) => this.onReply(rest) : undefined,
          ),
          stderr: new MarkedStream(marker, (data) => output.push("stderr", data)),
          status: null,
          settle: () => {
            if (state.status === null || !state.stdout.done || !state.stderr.done) return;
            clearTimeout(watchdog);
            resolve(state.status);
          },
          fail: (error) => {
            clearTimeout(watchdog);
            reject(error);
          },
        };
        state.stdout.onDone = state.settle;
        state.stderr.onDone = state.settle;
        const watchdog = setTimeout(() => {
          killGroup(this.child.pid);
          state.fail(
            new HsearchError(
              "sandbox",
              `the episode's sandbox stopped answering (command ${id}); it was killed`,
            ),
          );
        }, request.timeoutMs + SUPERVISOR_GRACE_MS);
        this.pending = { id, state };
        this.child.stdin?.write(bytes);
      });
    } finally {
      this.pending = null;
      if (stdinFile) await rm(stdinFile, { force: true });
    }
    const durationMs = performance.now() - started;
    // `timeout -s KILL` kills itself with the command's group, so a timeout shows as 128 + 9 at the deadline.
    const timedOut = status === 137 && durationMs >= request.timeoutMs - 5;
    return output.result(
      { exitCode: status, timedOut, durationMs, mechanism: this.info.mechanism },
      request.displayBytes,
    );
  }
}

/**
 * A stream up to a marker: bytes are passed on as they arrive, except a tail that could be the start of the marker
 * (held until the next chunk tells), so that stdout and stderr keep their interleaving in the combined output.
 */
export class MarkedStream {
  private held: Buffer = Buffer.alloc(0);
  private readonly marker: Buffer;
  done = false;
  onDone: () => void = () => {};

  constructor(
    marker: string,
    private readonly sink: (data: Buffer) => void,
    /** Where the bytes after the marker go (a container's reply line); default dropped. */
    private readonly after?: (data: Buffer) => void,
  ) {
    this.marker = Buffer.from(marker, "utf8");
  }

  push(chunk: Buffer): void {
    if (this.done) {
      this.after?.(chunk);
      return;
    }
    const data = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
    const at = data.indexOf(this.marker);
    if (at >= 0) {
      if (at > 0) this.sink(data.subarray(0, at));
      this.held = Buffer.alloc(0);
      this.done = true;
      this.onDone();
      const rest = data.subarray(at + this.marker.length);
      if (rest.length > 0) this.after?.(rest);
      return;
    }
    const keep = markerPrefixAtEnd(data, this.marker);
    if (data.length > keep) this.sink(data.subarray(0, data.length - keep));
    this.held = Buffer.from(data.subarray(data.length - keep));
  }
}

/** The length of the longest end of `data` that is a beginning of `marker` (shorter than the marker). */
function markerPrefixAtEnd(data: Buffer, marker: Buffer): number {
  const longest = Math.min(data.length, marker.length - 1);
  for (let length = longest; length > 0; length--)
    if (data.subarray(data.length - length).equals(marker.subarray(0, length))) return length;
  return 0;
}

/** Lay out the episode's root; the sandbox user owns its writable directories. */
async function buildEpisodeRoot(
  root: string,
  entries: ReturnType<typeof episodeRootLayout>,
  user: SandboxUser | undefined,
  writable: readonly string[] = WRITABLE_ROOT_DIRS,
): Promise<void> {
  await mkdir(root, { mode: 0o755 });
  for (const entry of entries) {
    const path = join(root, entry.name);
    if (entry.kind === "symlink") await symlink(entry.target, path);
    else if (entry.kind === "dir") await mkdir(path, { recursive: true, mode: 0o755 });
    else await writeFile(path, "", { mode: 0o644 });
  }
  if (!user || process.geteuid?.() !== 0) return;
  for (const name of writable) await chown(join(root, name), user.uid, user.gid);
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, "SIGKILL");
    } catch {
      // already gone
    }
  }
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
