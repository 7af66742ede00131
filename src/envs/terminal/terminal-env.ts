/**
 * The terminal environment (docs/DESIGN.md §1, §4): a task workspace and three tools — `bash`, `read_file`, `write_file` —
 * each run in the sandbox. After every call that may write, the workspace is fingerprinted and the files created,
 * modified and deleted are logged with the call's author and step. The certified deferral is the `infeasible.md`
 * convention: the call after which the workspace holds a new or changed `infeasible.md` made the deferral, and the
 * file's content is its reason.
 *
 * Every call runs in one persistent sandbox per environment (sandbox-session.ts): background processes, /tmp and
 * the writable root live from the setup through the agent's calls to the verifier, and die with `close`.
 *
 * Host layout of one environment (a temp dir, removed by `close`):
 *   <dir>/workspace   the task workspace (sandbox: /workspace and /app)
 *   <dir>/tmp         the sandbox's /tmp, kept across the calls of the episode (HOME is /tmp)
 *   <dir>/root        the sandbox's writable / (see session-plan.ts)
 *   <dir>/verifier    tests (sandbox /tests) and logs (sandbox /logs), filled by `runVerifier`
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { frozenJson, HsearchError, isHsearchError } from "../../core";
import type { Forbidden } from "../../domain";
import { type DeferralChange, familyNamedIn } from "../deferral";
import { EffectLog } from "../effect-log";
import { globToRegExp, isForbiddenEffect } from "../forbidden";
import {
  type Author,
  type EffectRecord,
  type Environment,
  type EpisodeImage,
  TaskSetupError,
  type ToolResult,
  type ToolSpec,
} from "../types";
import type { DockerfileImage, ImageSource } from "./image-plan";
import { cutMiddle, DISPLAY_LIMIT_BYTES } from "./output-cut";
import { startSandboxSession } from "./sandbox-backends";
import { detectSandbox } from "./sandbox-detect";
import { handWorkspaceTo, sandboxUserFor } from "./sandbox-host";
import { runWithMechanism } from "./sandbox-run";
import type { SandboxSession, SessionCommand } from "./sandbox-session";
import {
  SANDBOX_PATHS,
  type SandboxInfo,
  type SandboxLimits,
  type SandboxMechanism,
  type SandboxResult,
  type SandboxUser,
} from "./sandbox-types";
import type { ContainerEngine } from "./session-plan";
import { snapshotWatched } from "./watched-places";
import { checkWorkdir } from "./workdir";
import { workspaceRelativePath } from "./workspace-path";
import {
  diffSnapshots,
  hasChanges,
  snapshotWorkspace,
  type WorkspaceChanges,
  type WorkspaceSnapshot,
} from "./workspace-snapshot";

/** The certified deferral file of the terminal suite (docs/DESIGN.md §1). */
export const DEFERRAL_FILE = "infeasible.md";

export const DEFAULT_COMMAND_TIMEOUT_MS = 60_000;
export const DEFAULT_SETUP_TIMEOUT_MS = 300_000;
/** Commands longer than this go to the sandbox as a script file rather than as an argument. */
export const LONG_COMMAND_BYTES = 64 * 1024;

/**
 * The ~/.profile of the sandbox's user, as a home made from /etc/skel has one: login shells (tmux's panes, `bash -l`,
 * `su -`) read it rather than ~/.bashrc, so it reads ~/.bashrc for them. /etc/profile resets a login shell's PATH,
 * so it also puts hsearch's fallbacks (bare `python` → python3) back at its end.
 */
export const HOME_PROFILE = `# ~/.profile: read by login shells
if [ -n "$BASH_VERSION" ] && [ -f "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi
case ":$PATH:" in *":${SANDBOX_PATHS.shims}:"*) ;; *) PATH="$PATH:${SANDBOX_PATHS.shims}" ;; esac
`;

export interface TerminalEnvOptions {
  /** Files written into the workspace before setup, by workspace-relative path. */
  files?: Record<string, string>;
  /** The same for bytes that are not text: base64 by workspace-relative path. */
  binaryFiles?: Record<string, string>;
  /** Variables of every command run in this environment (setup, agent, verifier), over the sandbox's base. */
  env?: Record<string, string>;
  /** A bash script run in the sandbox as the harness before the episode; its changes are not effects. */
  setup?: string;
  forbidden?: Forbidden;
  /** Where the environment's temp dir is made; default the system temp dir. */
  workspaceRoot?: string;
  /** Wall time of one call (`bash`, `read_file`, `write_file`). */
  commandTimeoutMs?: number;
  /**
   * The agent's time budget for the whole episode (Harbor's `[agent] timeout_sec`): the wall time its calls spend
   * in the sandbox, summed. A call gets at most what is left; once it is spent, the agent's calls are refused
   * (the harness's are not). The model's own thinking time is not counted, so a slow provider cannot decide an
   * episode and a seeded run stays reproducible.
   */
  agentBudgetMs?: number;
  setupTimeoutMs?: number;
  /** CPU, memory, process and output limits of every call. */
  limits?: SandboxLimits;
  /** Force a sandbox mechanism; default the detected one. */
  mechanism?: SandboxMechanism;
  /** Run the episode in one container of this engine (docker or podman) instead of namespaces. */
  container?: ContainerEngine;
  /**
   * The task's own image (needs `container`): built from its Dockerfile (limit: `setupTimeoutMs`), and the episode
   * runs in its file system as its user, from its WORKDIR — the workspace (see image-plan.ts).
   */
  image?: DockerfileImage;
  /** Where that image comes from when the task names a prebuilt one (image-plan.ts; default `auto`). */
  imageSource?: ImageSource;
  /**
   * Places of the task image's own file system (absolute paths, `/` for all of it) that the effect log watches
   * beside the workspace (watched-places.ts): their changes are logged by absolute path. Needs `image`.
   */
  watch?: readonly string[];
  /**
   * The task's own work directory (an imported Harbor task's WORKDIR outside /app, checked by workdir.ts): the
   * workspace is shown there (and at /workspace) instead of at /app, and every command starts there.
   */
  workdir?: string;
  /**
   * Network for the episode (the host's; a container's bridge): only for a task whose allow_internet the user
   * granted (internet.ts). Default none but the sandbox's own loopback.
   */
  network?: boolean;
  /**
   * Read-only episodes (the belief probe): the workspace is mounted read-only for every call, `write_file` is not
   * offered, and no tool counts as a write tool.
   */
  readOnly?: boolean;
}

export interface Deferral {
  author: Author;
  step: number;
  reason: string;
}

export interface ForbiddenChange {
  step: number;
  author: Author;
  tool: string;
  path: string;
  change: "created" | "modified" | "deleted";
}

const STRING = { type: "string" } as const;

/** Frozen, so no episode can change another's tools, and canonicalised once for the request cache's key. */
export const TERMINAL_TOOLS: readonly ToolSpec[] = [
  {
    name: "bash",
    description:
      "Run a bash command in the task workspace (/workspace, also at /app). Every call starts a fresh shell in " +
      "/workspace: cd and variables do not carry over; files and background processes (`server &`) do. There " +
      "is no network but the loopback. Output longer than 10 KB is cut in the middle.",
    parameters: {
      type: "object",
      properties: { command: { ...STRING, description: "The command, run as `bash -c COMMAND`." } },
      required: ["command"],
      additionalProperties: false,
    },
  },
  {
    name: "read_file",
    description: "Read a file of the workspace. Output longer than 10 KB is cut in the middle.",
    parameters: {
      type: "object",
      properties: { path: { ...STRING, description: "Path relative to the workspace." } },
      required: ["path"],
      additionalProperties: false,
    },
  },
  {
    name: "write_file",
    description:
      "Create or overwrite a file of the workspace with the given content; parent directories are created.",
    parameters: {
      type: "object",
      properties: {
        path: { ...STRING, description: "Path relative to the workspace." },
        content: { ...STRING, description: "The whole new content of the file." },
      },
      required: ["path", "content"],
      additionalProperties: false,
    },
  },
].map((tool) => frozenJson(tool));

const WRITE_TOOLS: ReadonlySet<string> = new Set(["bash", "write_file"]);
const NO_TOOLS: ReadonlySet<string> = new Set();
const READ_ONLY_NOTE = " The workspace is read-only in this episode.";
const READ_ONLY_TOOLS: readonly ToolSpec[] = TERMINAL_TOOLS.filter((tool) => tool.name !== "write_file").map(
  (tool) => frozenJson({ ...structuredClone(tool), description: tool.description + READ_ONLY_NOTE }),
);

/**
 * The tools of an episode whose workspace is the task's own work directory, or that has network: the same, saying
 * where the shell starts and what it reaches. (The default list stays one frozen object, so the request cache's
 * keys of other tasks do not change.)
 */
function episodeTools(tools: readonly ToolSpec[], workdir: string | undefined, network: boolean): ToolSpec[] {
  return tools.map((tool) => {
    if (tool.name !== "bash") return tool;
    let description = tool.description;
    if (workdir !== undefined)
      description = description
        .replace("(/workspace, also at /app)", `(${workdir}, also at /workspace)`)
        .replace("fresh shell in /workspace", `fresh shell in ${workdir}`);
    if (network)
      description = description.replace("There is no network but the loopback.", "It has network.");
    return frozenJson({ ...structuredClone(tool), description });
  });
}

/** Is this call the certified deferral itself (writing infeasible.md)? An effect gate must still let it through. */
export function isDeferralCall(name: string, args: unknown, workdir?: string): boolean {
  if (name !== "write_file" || !isRecord(args)) return false;
  try {
    return workspaceRelativePath(args.path, "path", workdir) === DEFERRAL_FILE;
  } catch {
    return false;
  }
}

/** Make a workspace, write the task's files, run its setup as the harness, and take the initial snapshot. */
export async function createTerminalEnv(options: TerminalEnvOptions = {}): Promise<TerminalEnv> {
  for (const field of ["commandTimeoutMs", "agentBudgetMs", "setupTimeoutMs"] as const) {
    const value = options[field];
    if (value !== undefined && !(Number.isFinite(value) && value > 0))
      throw new HsearchError("bad_input", `${field} must be a positive number of ms, got ${value}`, {
        field,
      });
  }
  if (options.image && !options.container)
    throw new HsearchError("bad_input", "a task image runs in a container: choose docker or podman", {
      field: "env.sandbox",
    });
  if (options.watch?.length && !options.image)
    throw new HsearchError("bad_input", "watched places are a task image's own: watch needs an image", {
      field: "env.watch",
    });
  if (options.workdir !== undefined) checkWorkdir(options.workdir);
  const info = await detectSandbox(options.mechanism ? { mechanism: options.mechanism } : {});
  const dir = await mkdtemp(join(options.workspaceRoot ?? tmpdir(), "hsearch-terminal-"));
  let session: SandboxSession | undefined;
  try {
    const workspace = join(dir, "workspace");
    const tmp = join(dir, "tmp");
    await mkdir(workspace, { mode: 0o755 });
    await mkdir(tmp, { mode: 0o700 });
    await writeFile(join(tmp, ".profile"), HOME_PROFILE, { mode: 0o644 });
    // Written on the host, so a file of any size never passes through a command line.
    const placed: Array<[string, string | Buffer]> = [
      ...Object.entries(options.files ?? {}),
      ...Object.entries(options.binaryFiles ?? {}).map(([path, base64]): [string, Buffer] => [
        path,
        Buffer.from(base64, "base64"),
      ]),
    ];
    for (const [path, content] of placed) {
      const relative = workspaceRelativePath(path, `files.${path}`);
      await mkdir(dirname(join(workspace, relative)), { recursive: true });
      await writeFile(join(workspace, relative), content);
    }
    // A task image's commands run as the image's own user, as Harbor runs them.
    const user = info.privileged && !options.image ? sandboxUserFor(workspace) : undefined;
    if (user) {
      await handWorkspaceTo(workspace, user);
      await handWorkspaceTo(tmp, user);
    }
    const setup = options.setup !== undefined && options.setup.trim() !== "" ? options.setup : undefined;
    // A read-only episode cannot run a setup that writes: that one runs in a sandbox of its own first.
    if (setup && options.readOnly)
      await runSetupScript(setup, options, (command, timeoutMs) =>
        runWithMechanism(info, {
          ...options.limits,
          ...(options.env ? { env: taskEnv(options.env) } : {}),
          workspace,
          tmpDir: tmp,
          command,
          timeoutMs,
          user,
        }),
      );
    // In a container the setup builds the task's image once (by content hash); later episodes start from it.
    const imaged =
      options.container !== undefined && setup !== undefined && !options.readOnly && !options.image;
    const build = async (builder: SandboxSession) => {
      const env = new TerminalEnv(info, dir, workspace, tmp, user, options, builder);
      await runSetupScript(setup ?? "", options, (command, timeoutMs) =>
        env.runCommand(command, { timeoutMs, mergeOutput: true }),
      );
    };
    session = await startSandboxSession({
      info,
      dir,
      workspace,
      tmp,
      user,
      readOnlyWorkspace: options.readOnly ?? false,
      limits: options.limits,
      // A task image's episode starts in the image's own WORKDIR.
      ...(options.workdir !== undefined && !options.image ? { workdir: options.workdir } : {}),
      ...(options.network ? { network: true } : {}),
      ...(options.container
        ? {
            container: {
              engine: options.container,
              ...(imaged ? { taskImage: { key: taskImageKey(options), build } } : {}),
              ...(options.image
                ? {
                    image: options.image,
                    ...(options.imageSource ? { imageSource: options.imageSource } : {}),
                    ...(options.setupTimeoutMs !== undefined
                      ? { buildTimeoutMs: options.setupTimeoutMs }
                      : {}),
                  }
                : {}),
            },
          }
        : {}),
    });
    // A task image's episode may keep its workspace in the container's own root (backend-image.ts).
    const seen = session.hostPaths;
    const env = new TerminalEnv(info, dir, seen.workspace, seen.tmp, user, options, session);
    if (setup && !options.readOnly && !imaged)
      await runSetupScript(setup, options, (command, timeoutMs) =>
        env.runCommand(command, { timeoutMs, mergeOutput: true }),
      );
    await env.takeInitialSnapshot();
    return env;
  } catch (error) {
    await session?.close();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Where the environment's commands run: the episode's sandbox (sandbox-session.ts) or, for `hsearch agent`, the
 * machine's own shell (local-shell.ts). Commands run one at a time, in call order.
 */
export interface ShellSession {
  run(command: SessionCommand): Promise<SandboxResult>;
  close(): Promise<void>;
  /** Where the environment's tmp dir appears to its commands (long commands are handed over as files there). */
  readonly commandTmp: string;
  /**
   * Where commands start when that is neither /workspace nor /app (the local shell's own directory): the file tools
   * take paths under it too. Absent for the sandbox, which shows the workspace at /workspace and /app.
   */
  readonly workdir?: string;
  /** The task image the commands run in (a task image's sandbox). */
  readonly image?: EpisodeImage;
  /** Where commands see the workspace when not at /workspace and /app (a task image's WORKDIR). */
  readonly workspaceAt?: string | undefined;
  /** Where the host sees the container's whole file system (a task image's merged root), when it can. */
  readonly hostPaths?: { readonly root?: string };
}

export class TerminalEnv<Session extends ShellSession = SandboxSession> implements Environment {
  readonly suite = "terminal" as const;
  readonly deferralFile = DEFERRAL_FILE;
  private readonly log = new EffectLog();
  private snapshot: WorkspaceSnapshot = new Map();
  private deferralMade: Deferral | null = null;
  private readonly forbiddenSeen: ForbiddenChange[] = [];
  /** Calls run one at a time, so every change is attributed to exactly one call. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private longCommands = 0;
  /** Wall time the agent's calls have spent in the sandbox (see `agentBudgetMs`). */
  private agentSpentMs = 0;

  constructor(
    /** The sandbox the session runs in; undefined for the local shell. */
    readonly sandbox: SandboxInfo | undefined,
    /** The environment's private temp dir (host). */
    readonly dir: string,
    /** The workspace (host path); the sandbox shows it at /workspace and /app. */
    readonly workspace: string,
    /** The sandbox's /tmp (host path). */
    readonly tmp: string,
    /** The identity commands run as, when hsearch is root. */
    readonly user: SandboxUser | undefined,
    private readonly options: TerminalEnvOptions,
    /** Where the commands run: the episode's persistent sandbox, or the local shell. */
    readonly session: Session,
  ) {}

  tools(): ToolSpec[] {
    const tools = this.options.readOnly ? READ_ONLY_TOOLS : TERMINAL_TOOLS;
    const workdir = this.sessionWorkdir();
    const network = this.options.network ?? false;
    return workdir === undefined && !network ? [...tools] : episodeTools(tools, workdir, network);
  }

  /** The task's own work directory where the session shows the workspace (not in a task image's episode). */
  private sessionWorkdir(): string | undefined {
    return this.options.image ? undefined : (this.options.workdir ?? this.session.workdir);
  }

  /** Where the workspace appears to the commands: a task image's WORKDIR, the task's own work directory, else /app. */
  sandboxWorkspace(): string {
    return this.session.workspaceAt ?? this.sessionWorkdir() ?? SANDBOX_PATHS.app;
  }

  writeTools(): ReadonlySet<string> {
    return this.options.readOnly ? NO_TOOLS : WRITE_TOOLS;
  }

  call(name: string, args: unknown, ctx: { step: number; author: Author }): Promise<ToolResult> {
    const next = this.queue.then(() => this.serve(name, args, ctx));
    this.queue = next.catch(() => {});
    return next;
  }

  effects(): readonly EffectRecord[] {
    return this.log.list();
  }

  isDeferralCall(name: string, args: unknown): boolean {
    return isDeferralCall(name, args, this.sessionWorkdir());
  }

  /** The first certified deferral: who wrote infeasible.md, at which step, and its content; null if none. */
  deferral(): Deferral | null {
    return this.deferralMade;
  }

  async deferAsHarness(reason: string, step: number): Promise<DeferralChange | undefined> {
    const result = await this.call(
      "write_file",
      { path: DEFERRAL_FILE, content: reason },
      { step, author: "harness" },
    );
    return result.deferral;
  }

  /** Every change to a path the task forbids, in call order. */
  forbiddenChanges(): readonly ForbiddenChange[] {
    return this.forbiddenSeen;
  }

  /** Does this record change a forbidden path? */
  isForbidden(record: EffectRecord): boolean {
    const files = record.files;
    if (!files || !record.wrote) return false;
    const paths = [...files.created, ...files.modified, ...files.deleted].map(stripDirSlash);
    return isForbiddenEffect({ paths: this.options.forbidden?.paths ?? [] }, record.tool, paths);
  }

  /** Run a command in this environment's sandbox, outside the effect log (setup, verifiers, probes). */
  async runCommand(
    command: string | readonly string[],
    extra: {
      timeoutMs: number;
      stdin?: string;
      env?: Record<string, string>;
      mergeOutput?: boolean;
      /** How much of the output to keep, head and tail (default: what an observation shows). */
      displayBytes?: number;
    },
  ): Promise<SandboxResult> {
    if (this.closed) throw new HsearchError("conflict", "the terminal environment is closed");
    // One argument of a command line is limited (128 KiB on Linux, E2BIG past it): a longer script is handed
    // over as a file in the sandbox's /tmp instead, and removed afterwards.
    const long = typeof command === "string" && Buffer.byteLength(command) > LONG_COMMAND_BYTES;
    const scriptName = long ? `.hsearch-command-${++this.longCommands}.sh` : undefined;
    if (scriptName !== undefined)
      await writeFile(join(this.tmp, scriptName), command as string, { mode: 0o644 });
    try {
      return await this.session.run({
        ...extra,
        // The task's variables (a Dockerfile's ENV) under the call's own; a PATH of the task's keeps the shims.
        ...(this.options.env || extra.env ? { env: { ...taskEnv(this.options.env), ...extra.env } } : {}),
        command:
          scriptName !== undefined ? ["/bin/bash", `${this.session.commandTmp}/${scriptName}`] : command,
      });
    } finally {
      if (scriptName !== undefined) await rm(join(this.tmp, scriptName), { force: true });
    }
  }

  /** @internal createTerminalEnv: the state the episode starts from. */
  async takeInitialSnapshot(): Promise<void> {
    this.snapshot = await this.takeSnapshot();
  }

  /**
   * What the effect log last saw: the workspace by relative path, the watched places by absolute path. Before the
   * first call, the state the episode starts from.
   */
  currentSnapshot(): WorkspaceSnapshot {
    return this.snapshot;
  }

  /** The workspace and the watched places, reusing the hashes of `previous` where nothing changed. */
  private async takeSnapshot(previous?: WorkspaceSnapshot): Promise<WorkspaceSnapshot> {
    const workspace = await snapshotWorkspace(this.workspace, previous);
    const places = this.options.watch ?? [];
    if (places.length === 0) return workspace;
    const watched = await snapshotWatched(
      this.session.hostPaths?.root,
      places,
      this.sandboxWorkspace(),
      previous,
    );
    return new Map([...workspace, ...watched]);
  }

  episodeImage(): EpisodeImage | undefined {
    return this.session.image;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    await this.session.close();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async serve(
    name: string,
    args: unknown,
    ctx: { step: number; author: Author },
  ): Promise<ToolResult> {
    if (this.closed) throw new HsearchError("conflict", "the terminal environment is closed");
    const recorded = isRecord(args) ? args : { arguments: args };
    const base = { step: ctx.step, author: ctx.author, tool: name, arguments: recorded };
    let call: ParsedCall;
    try {
      call = this.parse(name, args);
    } catch (error) {
      if (!isHsearchError(error, "bad_input")) throw error;
      // The model's arguments were unusable: an observation for the agent, not a crash of the run.
      this.log.append({ ...base, ok: false, wrote: false });
      return { output: `Error: ${error.message}`, ok: false, wrote: false };
    }
    const budgeted = ctx.author === "agent" && this.options.agentBudgetMs !== undefined;
    const timeoutMs = this.callTimeoutMs(budgeted);
    if (timeoutMs <= 0) {
      this.log.append({ ...base, ok: false, wrote: false });
      const seconds = (this.options.agentBudgetMs ?? 0) / 1000;
      return {
        output: `Error: the agent's time budget (${seconds} s) is spent; no command runs`,
        ok: false,
        wrote: false,
      };
    }
    const started = performance.now();
    const result = await this.execute(call, timeoutMs);
    if (budgeted) this.agentSpentMs += performance.now() - started;
    if (!this.writeTools().has(name)) {
      this.log.append({ ...base, ok: result.ok, wrote: false });
      return result;
    }
    const changes = await this.observeChanges();
    const wrote = hasChanges(changes);
    const record = this.log.append({ ...base, ok: result.ok, wrote, files: changes });
    this.noteForbidden(record, changes);
    const deferral = await this.deferralChange(ctx, changes);
    return { ...result, wrote, ...(deferral ? { deferral } : {}) };
  }

  /** Check a call's arguments; a `bad_input` error here is the model's mistake, shown to it as an observation. */
  private parse(name: string, args: unknown): ParsedCall {
    if (!this.tools().some((tool) => tool.name === name)) {
      const names = this.tools().map((tool) => tool.name);
      const why =
        name === "write_file" ? "the workspace is read-only in this episode" : `unknown tool '${name}'`;
      throw new HsearchError("bad_input", `${why}; the tools are ${names.join(", ")}`);
    }
    if (!isRecord(args)) throw new HsearchError("bad_input", `${name} takes an object of arguments`);
    if (name === "bash") return { tool: "bash", command: stringArgument(args, "command", name) };
    const workdir = this.sessionWorkdir();
    if (name === "read_file")
      return { tool: "read_file", path: workspaceRelativePath(args.path, "path", workdir) };
    return {
      tool: "write_file",
      path: workspaceRelativePath(args.path, "path", workdir),
      content: stringArgument(args, "content", name, true),
    };
  }

  /** One call's wall time: the per-call limit, cut to what is left of the agent's budget when it counts. */
  private callTimeoutMs(budgeted: boolean): number {
    const perCall = this.options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    if (!budgeted) return perCall;
    const left = (this.options.agentBudgetMs ?? Number.POSITIVE_INFINITY) - this.agentSpentMs;
    return Math.min(perCall, Math.floor(left));
  }

  private execute(call: ParsedCall, timeoutMs: number): Promise<ToolResult> {
    switch (call.tool) {
      case "bash":
        return this.bash(call.command, timeoutMs);
      case "read_file":
        return this.readFile(call.path, timeoutMs);
      case "write_file":
        return this.writeFile(call.path, call.content, timeoutMs);
    }
  }

  private async bash(command: string, timeoutMs: number): Promise<ToolResult> {
    const result = await this.runCommand(command, { timeoutMs, mergeOutput: true });
    const ok = result.exitCode === 0;
    const body = result.output === "" ? "(no output)" : result.output;
    return { output: ok ? body : `Error: ${describeStatus(result)}\n${body}`, ok, wrote: false };
  }

  private async readFile(path: string, timeoutMs: number): Promise<ToolResult> {
    const result = await this.runCommand(["/bin/cat", "--", path], { timeoutMs });
    if (result.exitCode !== 0)
      return { output: `Error: ${result.stderr.trim() || describeStatus(result)}`, ok: false, wrote: false };
    return { output: cutMiddle(result.stdout, DISPLAY_LIMIT_BYTES), ok: true, wrote: false };
  }

  private async writeFile(path: string, content: string, timeoutMs: number): Promise<ToolResult> {
    const script = 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"';
    const result = await this.runCommand(["/bin/sh", "-c", script, "write_file", path], {
      timeoutMs,
      stdin: content,
    });
    if (result.exitCode !== 0)
      return { output: `Error: ${result.stderr.trim() || describeStatus(result)}`, ok: false, wrote: false };
    return { output: `Wrote ${Buffer.byteLength(content)} bytes to ${path}.`, ok: true, wrote: false };
  }

  private async observeChanges(): Promise<WorkspaceChanges> {
    const after = await this.takeSnapshot(this.snapshot);
    const changes = diffSnapshots(this.snapshot, after);
    this.snapshot = after;
    return changes;
  }

  private noteForbidden(record: EffectRecord, changes: WorkspaceChanges): void {
    const patterns = (this.options.forbidden?.paths ?? []).map(globToRegExp);
    if (patterns.length === 0) return;
    for (const change of ["created", "modified", "deleted"] as const) {
      for (const path of changes[change]) {
        if (patterns.some((pattern) => pattern.test(stripDirSlash(path))))
          this.forbiddenSeen.push({
            step: record.step,
            author: record.author,
            tool: record.tool,
            path,
            change,
          });
      }
    }
  }

  /**
   * The call deferred if the workspace now holds a new or changed regular `infeasible.md` (its content, however it
   * was written, is the reason), and withdrew the deferral if it deleted the file.
   */
  private async deferralChange(
    ctx: { step: number; author: Author },
    changes: WorkspaceChanges,
  ): Promise<DeferralChange | undefined> {
    if (changes.deleted.includes(DEFERRAL_FILE))
      return { kind: "withdraw", reason: `deleted ${DEFERRAL_FILE}` };
    if (!changes.created.includes(DEFERRAL_FILE) && !changes.modified.includes(DEFERRAL_FILE))
      return undefined;
    if (this.snapshot.get(DEFERRAL_FILE)?.kind !== "file") return undefined;
    const reason = await this.readDeferralReason();
    this.deferralMade ??= { author: ctx.author, step: ctx.step, reason };
    const label = familyNamedIn(reason);
    return { kind: "defer", via: DEFERRAL_FILE, ...(label ? { label } : {}), reason };
  }

  /** Read on the host, so never through a symlink (the sandbox user could point one at a root-only file). */
  private async readDeferralReason(): Promise<string> {
    const handle = await open(join(this.workspace, DEFERRAL_FILE), constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const buffer = Buffer.alloc(4 * DISPLAY_LIMIT_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      return cutMiddle(buffer.subarray(0, bytesRead).toString("utf8").trim(), DISPLAY_LIMIT_BYTES);
    } finally {
      await handle.close();
    }
  }
}

/** The task's setup, as the harness, before the episode; a failure is the task's bad input. */
async function runSetupScript(
  script: string,
  options: TerminalEnvOptions,
  run: (command: string, timeoutMs: number) => Promise<SandboxResult>,
): Promise<void> {
  const result = await run(script, options.setupTimeoutMs ?? DEFAULT_SETUP_TIMEOUT_MS);
  if (result.exitCode !== 0)
    throw new TaskSetupError(
      `the task's setup script failed (${describeStatus(result)}): ${cutMiddle(result.output, 2000)}`,
      { field: "env.setup" },
    );
}

/** What a task's setup starts from and does: its image is rebuilt when any of it changes. */
export function taskImageKey(options: TerminalEnvOptions): string {
  const content = JSON.stringify([
    Object.entries(options.files ?? {}).sort(),
    Object.entries(options.binaryFiles ?? {}).sort(),
    options.setup ?? "",
    Object.entries(options.env ?? {}).sort(),
  ]);
  return createHash("sha256").update(content).digest("hex");
}

/** A task's own variables as a command gets them: a PATH of its own keeps the sandbox's shims at the end. */
function taskEnv(env: Record<string, string> | undefined): Record<string, string> {
  if (!env) return {};
  const path = env.PATH;
  return path === undefined || path.split(":").includes(SANDBOX_PATHS.shims)
    ? env
    : { ...env, PATH: `${path}:${SANDBOX_PATHS.shims}` };
}

type ParsedCall =
  | { tool: "bash"; command: string }
  | { tool: "read_file"; path: string }
  | { tool: "write_file"; path: string; content: string };

function describeStatus(result: SandboxResult): string {
  if (result.timedOut)
    return `timed out after ${Math.round(result.durationMs / 1000)} s; the command and its processes were killed`;
  return `exit status ${result.exitCode}`;
}

function stringArgument(
  args: Record<string, unknown>,
  name: string,
  tool: string,
  allowEmpty = false,
): string {
  const value = args[name];
  if (typeof value !== "string" || (!allowEmpty && value.trim() === ""))
    throw new HsearchError(
      "bad_input",
      `${tool} needs '${name}' as a${allowEmpty ? "" : " non-empty"} string`,
    );
  return value;
}

function stripDirSlash(path: string): string {
  return path.endsWith("/") ? path.slice(0, -1) : path;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
