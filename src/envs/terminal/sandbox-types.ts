/**
 * The terminal sandbox's data: what a caller asks for, what it gets back, and what detection found on this machine.
 */

export const SANDBOX_MECHANISMS = ["bwrap", "unshare"] as const;
export type SandboxMechanism = (typeof SANDBOX_MECHANISMS)[number];

/** Where the sandbox mounts things; fixed so that agents, tasks and verifiers can rely on them. */
export const SANDBOX_PATHS = {
  workspace: "/workspace",
  /** Harbor / Terminal-Bench tasks work in /app: the same directory as /workspace. */
  app: "/app",
  tmp: "/tmp",
  tests: "/tests",
  logs: "/logs",
  /** hsearch's fallbacks, last on PATH: `python` for machines that only have `python3`. */
  shims: "/hsearch/bin",
} as const;

/** An unprivileged host identity for the sandboxed command (used when hsearch runs as root). */
export interface SandboxUser {
  uid: number;
  gid: number;
}

/** The absolute host paths of the programs a mechanism runs. */
export interface SandboxTools {
  bwrap?: string;
  unshare?: string;
  setpriv: string;
  prlimit: string;
  /** coreutils `timeout`: bounds each command of a persistent episode sandbox. */
  timeout?: string;
  mount?: string;
  /** `ip` brings the sandbox's own loopback up; without it the loopback stays down (still no network). */
  ip?: string;
}

export interface SandboxInfo {
  mechanism: SandboxMechanism;
  /**
   * True when hsearch runs as root: namespaces are made without a user namespace and the command drops to an
   * unprivileged uid/gid with `setpriv`. False: a user namespace maps the invoking user, who keeps no capabilities.
   */
  privileged: boolean;
  tools: SandboxTools;
  /** The sandbox's own loopback interface (never the host's). */
  loopback: "up" | "down";
  /** Mechanisms tried before this one, and why they were not usable. */
  rejected: Array<{ mechanism: SandboxMechanism; reason: string }>;
}

/**
 * A sandboxed command's resource limits as a caller asks for them: the one limits type (a request, a session's
 * options, an environment's options and a task's `limits` all give these). An absent limit takes its default
 * (DEFAULT_LIMITS in sandbox-plan.ts); the wall time is each command's own (`SandboxRequest.timeoutMs`).
 */
export interface SandboxLimits {
  /** CPU seconds per process (RLIMIT_CPU). Default: the wall time in seconds, rounded up, plus 1. */
  cpuSeconds?: number;
  /**
   * Memory per process in MiB (RLIMIT_DATA: heap and private writable mappings). Default 4096. Address space that
   * is only reserved (Chromium's and V8's cages, JIT heaps) does not count, so such programs run under it.
   */
  memoryMb?: number;
  /** Address space per process in MiB (RLIMIT_AS); default none, since browsers reserve terabytes of it. */
  addressSpaceMb?: number;
  /** Processes of the sandbox user (RLIMIT_NPROC). Default 256. */
  maxProcs?: number;
  /** Largest file a process may write, in MiB (RLIMIT_FSIZE). Default 1024. */
  maxFileMb?: number;
  /** Bytes kept per stream (stdout, stderr, combined); the middle of longer output is dropped. Default 1 MiB. */
  maxOutputBytes?: number;
}

/** One command's limits with every default applied (`resolveLimits`), as prlimit and the session set them. */
export type ResolvedLimits = Required<
  Pick<SandboxLimits, "cpuSeconds" | "memoryMb" | "maxProcs" | "maxFileMb">
> &
  Pick<SandboxLimits, "addressSpaceMb"> & {
    /** Wall time; on expiry every process of the sandbox is killed. */
    timeoutMs: number;
  };

export interface SandboxRequest extends SandboxLimits {
  /** Wall time; on expiry every process of the sandbox is killed. */
  timeoutMs: number;
  /** Host directory mounted read-write at /workspace and /app (read-only with `readOnlyWorkspace`). */
  workspace: string;
  /** A string runs as `bash -c COMMAND`; an array is an argv run as is (resolved on the sandbox PATH). */
  command: string | readonly string[];
  readOnlyWorkspace?: boolean;
  /** Extra environment variables on top of the clean environment (PATH, HOME, LANG, TERM). */
  env?: Record<string, string>;
  /** Bytes for the command's stdin; without it stdin is empty. */
  stdin?: string | Buffer;
  /** Host directory mounted at /tmp (kept across commands); default a fresh, private tmpfs per command. */
  tmpDir?: string;
  /** Host directory mounted read-only at /tests (verifiers). */
  testsDir?: string;
  /** Host directory mounted read-write at /logs (verifiers write /logs/verifier/reward.txt). */
  logsDir?: string;
  /** The uid/gid to run as when privileged; default derived from the workspace (see `sandboxUserFor`). */
  user?: SandboxUser;
  /** Force a mechanism; default the detected one. */
  mechanism?: SandboxMechanism;
  /** Bytes of the combined output shown in `output`; default 10 KB. */
  displayBytes?: number;
}

export interface SandboxResult {
  /** The command's exit status; 128+N when a signal N ended it; null when the sandbox killed it on timeout. */
  exitCode: number | null;
  /** "SIGKILL" when the sandbox killed the command (timeout); null otherwise. */
  signal: string | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as they arrived, cut to `displayBytes` with the middle omitted. */
  output: string;
  timedOut: boolean;
  durationMs: number;
  /** Bytes the command printed (stdout + stderr), before any cut. */
  outputBytes: number;
  /** How it ran: a sandbox mechanism, or `local` (the machine's own shell: `hsearch agent`). */
  mechanism: SandboxMechanism | "local";
}
