/**
 * Pure: the exact process invocation that runs one command in the sandbox, for each mechanism. No I/O here, so the
 * security-relevant argument lists can be read and tested as data.
 *
 * Both mechanisms build the same view:
 *   /usr /etc /opt (+ /bin /sbin /lib* as on the host)       read-only; the rest of the host (/home, /root, /tmp,
 *                                                             /run, /var, project and run directories) is not there
 *                                                             (/var is left out because daemons keep Unix sockets
 *                                                             there, and a read-only mount does not stop connect)
 *   /var/tmp                                                 a symlink to /tmp
 *   /workspace and /app                                      the task workspace, read-write (or read-only)
 *   /tmp, /dev/shm                                           private (a fresh tmpfs, or the env's own /tmp dir)
 *   /proc                                                    of a new PID namespace: only the sandbox's processes
 *   /dev                                                     null zero full random urandom tty
 *   /tests (ro), /logs (rw)                                  only for verifiers
 * plus new network (own loopback only), IPC, UTS and PID namespaces; then `prlimit` sets the limits and `setpriv`
 * drops to the unprivileged identity with no capabilities and no_new_privs before the command runs.
 */
import { HsearchError } from "../../core";
import { bwrapMountArgs, fstabText, type HostEntry, MIB, type Mount, viewMounts } from "./sandbox-mounts";
import {
  type ResolvedLimits,
  SANDBOX_PATHS,
  type SandboxInfo,
  type SandboxLimits,
  type SandboxUser,
} from "./sandbox-types";

export { DEVICES, fstabEscape, type HostEntry, MIB } from "./sandbox-mounts";

export const DEFAULT_LIMITS = {
  memoryMb: 4096,
  maxProcs: 256,
  maxFileMb: 1024,
  maxOutputBytes: MIB,
  /** Size of a per-command /tmp tmpfs and of /dev/shm. */
  tmpfsMb: 512,
  shmMb: 64,
} as const;

/** The clean environment every sandboxed command starts from; nothing of the host's environment passes. */
export const BASE_ENV: Readonly<Record<string, string>> = {
  PATH: `/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:${SANDBOX_PATHS.shims}`,
  HOME: SANDBOX_PATHS.tmp,
  LANG: "C.UTF-8",
  TERM: "dumb",
};

/** The sandbox's fallback programs in SANDBOX_PATHS.shims (name → target inside the sandbox). */
export const SHIMS: Readonly<Record<string, string>> = { python: "/usr/bin/python3" };

/** Top-level host entries the sandbox shows read-only: directories are bound, symlinks (merged /usr) copied. */
export const SYSTEM_ENTRIES = ["usr", "etc", "opt", "bin", "sbin", "lib", "lib32", "lib64", "libx32"];

/** /var/tmp, which some programs expect, is the sandbox's /tmp. */
export const VAR_TMP_LINK = { path: "/var/tmp", target: "../tmp" } as const;

/** Symlinks of a minimal /dev. */
export const DEV_LINKS: Record<string, string> = {
  fd: "/proc/self/fd",
  stdin: "/proc/self/fd/0",
  stdout: "/proc/self/fd/1",
  stderr: "/proc/self/fd/2",
};

/** Everything a plan needs, already validated and resolved to absolute host paths. */
export interface PlanInput {
  info: SandboxInfo;
  /** The host's system entries (see SYSTEM_ENTRIES) that exist. */
  hostEntries: HostEntry[];
  workspace: string;
  readOnlyWorkspace: boolean;
  tmpDir?: string;
  testsDir?: string;
  logsDir?: string;
  /** Privileged only: who the command runs as. */
  user?: SandboxUser;
  /** Privileged only: host files shown as /etc/passwd and /etc/group, naming `user`. */
  identity?: { passwd: string; group: string };
  /** Host directory shown read-only at SANDBOX_PATHS.shims. */
  shimDir?: string;
  limits: ResolvedLimits;
  /** The command's argv inside the sandbox. */
  argv: readonly string[];
}

export interface Invocation {
  file: string;
  args: string[];
}

/** `bash -c COMMAND` for a string, the argv itself otherwise. */
export function commandArgv(command: string | readonly string[]): string[] {
  return typeof command === "string" ? ["/bin/bash", "-c", command] : [...command];
}

export function resolveLimits(request: SandboxLimits & { timeoutMs: number }): ResolvedLimits {
  return {
    timeoutMs: request.timeoutMs,
    cpuSeconds: request.cpuSeconds ?? Math.ceil(request.timeoutMs / 1000) + 1,
    memoryMb: request.memoryMb ?? DEFAULT_LIMITS.memoryMb,
    ...(request.addressSpaceMb === undefined ? {} : { addressSpaceMb: request.addressSpaceMb }),
    maxProcs: request.maxProcs ?? DEFAULT_LIMITS.maxProcs,
    maxFileMb: request.maxFileMb ?? DEFAULT_LIMITS.maxFileMb,
  };
}

/** The tail every mechanism ends with: limits, then the drop to an unprivileged identity, then the command. */
export function limitAndDropArgv(input: PlanInput): string[] {
  const { info, limits, user } = input;
  const prlimit = [
    info.tools.prlimit,
    `--cpu=${limits.cpuSeconds}`,
    `--data=${limits.memoryMb * MIB}`,
    ...(limits.addressSpaceMb === undefined ? [] : [`--as=${limits.addressSpaceMb * MIB}`]),
    `--nproc=${limits.maxProcs}`,
    `--fsize=${limits.maxFileMb * MIB}`,
    "--core=0",
    "--",
  ];
  const setpriv = setprivDropArgv(info.tools.setpriv, info.privileged ? requireUser(user) : undefined);
  return [...prlimit, ...setpriv, ...input.argv];
}

/** setpriv to `user` (when given) with no capabilities and no_new_privs: every sandboxed command's last step. */
export function setprivDropArgv(setpriv: string, user: SandboxUser | undefined): string[] {
  const identity = user ? [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups"] : [];
  return [setpriv, ...identity, "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"];
}

function requireUser(user: SandboxUser | undefined): SandboxUser {
  if (!user) throw new HsearchError("internal", "sandbox plan: a privileged sandbox needs a user");
  return user;
}

// ---------------------------------------------------------------------------------------------------------------
// bubblewrap

export function bwrapInvocation(input: PlanInput): Invocation {
  const { info } = input;
  if (!info.tools.bwrap) throw new HsearchError("internal", "sandbox plan: the bwrap path is unknown");
  const args = [...bwrapNamespaces(info), "--die-with-parent", "--new-session"];
  args.push(...bwrapMountArgs(commandMounts(input)));
  args.push("--chdir", SANDBOX_PATHS.workspace, "--json-status-fd", "3");
  args.push("--", ...limitAndDropArgv(input));
  return { file: info.tools.bwrap, args };
}

/** The one-command view: a read-only root (`skeleton` under unshare), no /var but the /var/tmp link. */
export function commandMounts(input: PlanInput & { skeleton?: string }): Mount[] {
  return viewMounts({
    hostEntries: input.hostEntries,
    hostSymlinks: true,
    ...(input.skeleton ? { root: input.skeleton } : {}),
    writableRoot: false,
    varTmpLink: VAR_TMP_LINK,
    ...(input.identity ? { identity: input.identity } : {}),
    workspace: input.workspace,
    readOnlyWorkspace: input.readOnlyWorkspace,
    ...(input.tmpDir ? { tmpDir: input.tmpDir } : {}),
    tmpfsMb: DEFAULT_LIMITS.tmpfsMb,
    shmMb: DEFAULT_LIMITS.shmMb,
    pts: false,
    ...(input.testsDir ? { testsDir: input.testsDir } : {}),
    ...(input.logsDir ? { logsDir: input.logsDir } : {}),
    readOnlyExtras: input.shimDir ? [{ source: input.shimDir, target: SANDBOX_PATHS.shims }] : [],
  });
}

// ---------------------------------------------------------------------------------------------------------------
// unshare + mount + setpriv

/**
 * Runs as PID 1 of the new PID namespace, inside the new mount namespace, before the drop: mounts the fstab,
 * brings the sandbox's own loopback up, reports "ok" on fd 3 (so a setup failure is never mistaken for the
 * command's failure), then runs the command as a child and exits with its status. Staying PID 1 (instead of
 * exec) gives the command ordinary signal semantics and tears the namespace down when the command ends.
 */
export const UNSHARE_SETUP_SCRIPT = [
  '"$1" -a -T "$2" || exit 125',
  'if [ -n "$3" ]; then "$3" link set lo up || exit 125; fi',
  "printf ok >&3",
  "exec 3>&-",
  "shift 3",
  '"$@"',
  "exit $?",
].join("\n");

export interface UnshareInput extends PlanInput {
  /** The host directory used as the sandbox's root (a skeleton of empty mount points). */
  skeleton: string;
  /** Where the fstab text of `unshareFstab` was written. */
  fstabPath: string;
}

/** The mounts of the unshare mechanism, as an fstab for one `mount -a` (one process instead of one per mount). */
export function unshareFstab(input: PlanInput & { skeleton: string }): string {
  return fstabText(commandMounts(input), input.skeleton);
}

export function unshareInvocation(input: UnshareInput): Invocation {
  return unshareLaunch(input.info, input.fstabPath, input.skeleton, limitAndDropArgv(input));
}

/**
 * setpriv (for its parent-death signal) → unshare of new namespaces → the setup script (mounts `fstabPath`, brings
 * the loopback up) → unshare into `root`, in /workspace → `tail`.
 */
export function unshareLaunch(
  info: SandboxInfo,
  fstabPath: string,
  root: string,
  tail: string[],
  workdir: string = SANDBOX_PATHS.workspace,
  /** The host's network (no network namespace, so no loopback of its own to bring up). */
  network = false,
): Invocation {
  if (!info.tools.unshare || !info.tools.mount)
    throw new HsearchError("internal", "sandbox plan: the unshare or mount path is unknown");
  const namespaces = [
    // Without root: a user namespace mapping the caller to itself; --keep-caps lets the setup script mount
    // (ambient capabilities), and setpriv clears them all before the command.
    ...(info.privileged ? [] : ["--user", "--map-current-user", "--keep-caps"]),
    ...["--mount", ...(network ? [] : ["--net"]), "--pid", "--ipc", "--uts", "--fork", "--kill-child"],
  ];
  const args = [
    // If hsearch itself dies, the kernel kills `unshare`, whose --kill-child then tears the namespace down.
    "--pdeathsig=KILL",
    "--",
    info.tools.unshare,
    ...namespaces,
    "--",
    "/bin/sh",
    "-c",
    UNSHARE_SETUP_SCRIPT,
    "hsearch-sandbox",
    info.tools.mount,
    fstabPath,
    info.loopback === "up" && !network ? (info.tools.ip ?? "") : "",
    info.tools.unshare,
    `--root=${root}`,
    `--wd=${workdir}`,
    ...tail,
  ];
  return { file: info.tools.setpriv, args };
}

/**
 * bwrap's namespaces: with root no user namespace (the command drops with setpriv), without root a mapped one.
 * `network`: the host's network instead of a namespace of its own (a task's granted allow_internet).
 */
export function bwrapNamespaces(info: SandboxInfo, network = false): string[] {
  if (info.privileged)
    return [
      "--unshare-ipc",
      "--unshare-pid",
      ...(network ? [] : ["--unshare-net"]),
      "--unshare-uts",
      "--unshare-cgroup-try",
    ];
  return ["--unshare-all", ...(network ? ["--share-net"] : []), "--unshare-user", "--disable-userns"];
}

/** The environment a command sees: the clean base plus the caller's variables (a PATH of theirs keeps the shims). */
export function sandboxEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = { ...BASE_ENV, ...extra };
  if (extra.PATH !== undefined && !extra.PATH.split(":").includes(SANDBOX_PATHS.shims))
    env.PATH = `${extra.PATH}:${SANDBOX_PATHS.shims}`;
  return env;
}
