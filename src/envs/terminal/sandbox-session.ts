/**
 * The persistent sandbox of one episode: started once by its backend (sandbox-backends.ts lists them: namespaces,
 * a container, a task's Dockerfile image), then each command is sent to its supervisor and framed back: output up to
 * the command's marker on stdout and stderr, exit status on fd 4 (after the marker on stdout in a container). The
 * background processes, /tmp and the writable root live until `close`, which ends every process of the episode as
 * its backend says (the PID namespace dies with its launcher; a container is removed by name).
 *
 * Host layout under the episode's directory `dir`:
 *   root/      the episode's / (mount points, symlinks, writable directories)
 *   control/   stdin files of commands (0700), shown read-only at /.hsearch
 *   verifier/tests, verifier/logs   /tests and /logs (runVerifier fills and hands them over)
 *   passwd, group, fstab            identity files (root only) and the unshare mounts
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chown, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { badInput, HsearchError } from "../../core";
import type { EpisodeImage } from "../types";
import type { DockerfileImage, ImageSource } from "./image-plan";
import { CommandOutput, cutMiddle } from "./output-cut";
import { commandArgv, DEFAULT_LIMITS, resolveLimits } from "./sandbox-plan";
import {
  SANDBOX_PATHS,
  type SandboxInfo,
  type SandboxLimits,
  type SandboxResult,
  type SandboxUser,
} from "./sandbox-types";
import { CONTROL_PATH, type ContainerEngine, encodeRequest, type SessionPaths } from "./session-plan";
import type { ShellSession } from "./terminal-env";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** How long past a command's own timeout the host waits for the supervisor before giving the episode up. */
const SUPERVISOR_GRACE_MS = 10_000;
export const START_TIMEOUT_MS = 30_000;

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
    /** Where that image comes from when the task names a prebuilt one (default `auto`). */
    imageSource?: ImageSource;
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

/** What a backend started: the supervisor's process and how the session talks to it and ends it. */
export interface Supervisor {
  child: ChildProcess;
  /** Replies follow each marker on stdout (containers have no fd 4) instead of coming on fd 4. */
  repliesOnStdout: boolean;
  /** Ends the episode's processes (a container outlives its client, so it is removed by name). */
  stop: () => Promise<void>;
  /** The container's name (container backends only). */
  containerName?: string;
  /**
   * Per-command CPU, memory and file-size limits are the episode's own only (a task image's episode: the
   * container's cpus and memory and the wall time bound the rest, as in Harbor).
   */
  ownLimitsOnly?: boolean;
  /** The task image the episode runs in (the task image backend). */
  image?: EpisodeImage;
  /**
   * Where the host sees the episode's workspace and /tmp, when not at the session's own paths, and the container's
   * whole file system (`root`: its merged root) when the host can read it.
   */
  hostPaths?: { workspace: string; tmp: string; root?: string };
  /** Where commands see the workspace when not at /workspace and /app (a task image's WORKDIR). */
  workspaceAt?: string;
}

export class SandboxSession implements ShellSession {
  readonly commandTmp = SANDBOX_PATHS.tmp;
  private nextId = 0;
  private pending: { id: number; state: Pending } | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private replies = "";
  private exited = false;
  private stderrTail = "";
  private readonly child: ChildProcess;
  private readonly repliesOnStdout: boolean;
  private readonly stop: () => Promise<void>;
  private readonly ownLimitsOnly: boolean;
  /** The container's name (container sessions only). */
  readonly containerName: string | undefined;
  /** The task image the episode runs in (task image sessions only). */
  readonly image: EpisodeImage | undefined;
  /** Where the host sees the workspace and /tmp: a task image's container root, or the session's own paths. */
  readonly hostPaths: { workspace: string; tmp: string; root?: string };
  /** Where commands see the workspace: a task image's WORKDIR; undefined for /workspace and /app. */
  readonly workspaceAt: string | undefined;

  private constructor(
    readonly info: SandboxInfo,
    readonly paths: SessionPaths,
    private readonly options: SessionOptions,
    supervisor: Supervisor,
  ) {
    this.child = supervisor.child;
    this.repliesOnStdout = supervisor.repliesOnStdout;
    this.stop = supervisor.stop;
    this.ownLimitsOnly = supervisor.ownLimitsOnly ?? false;
    this.containerName = supervisor.containerName;
    this.image = supervisor.image;
    this.hostPaths = supervisor.hostPaths ?? { workspace: paths.workspace, tmp: paths.tmp };
    this.workspaceAt = supervisor.workspaceAt;
  }

  /** The session of a supervisor a backend started, once it is ready (stopped when it never gets ready). */
  static async open(
    options: SessionOptions,
    paths: SessionPaths,
    supervisor: Supervisor,
  ): Promise<SandboxSession> {
    const session = new SandboxSession(options.info, paths, options, supervisor);
    try {
      await session.waitReady();
    } catch (error) {
      await supervisor.stop();
      throw error;
    }
    return session;
  }

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
      ...(this.ownLimitsOnly
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

/** SIGKILL a process group and its leader (the launcher of an episode). */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
