/**
 * Pure: the persistent sandbox of one episode (docs/DESIGN.md §9). One long-lived set of namespaces per episode, entered
 * once, with a supervisor shell inside that runs each command sent to it; background processes live until the
 * episode ends. No I/O here, so the argument lists and the wire format can be read and tested as data.
 *
 * The view differs from the one-command sandbox (sandbox-plan.ts) as a container's would:
 *   /                     the episode's own root directory (host: <env>/root), writable by the sandbox user, so
 *                         /root, /srv, /home, /opt-like paths and new top-level directories can be made
 *   /usr /etc /bin /lib*  read-only from the host, as before
 *   /var                  the episode's own (log, cache, spool, mail), with the host's /var/lib read-only
 *   /dev                  as before plus /dev/pts (a new devpts instance) and /dev/ptmx
 *   /tests, /logs         always mounted: the verifier runs in the same environment after the agent; /logs is only
 *                         writable by the sandbox user while the verifier runs (the host hands it over then)
 *   /.hsearch             the control directory (read-only): stdin files of commands
 *
 * Who runs what (as root): the supervisor is uid 0 of the namespaces with only CAP_SETUID, CAP_SETGID, CAP_SETPCAP
 * and CAP_KILL, so the agent's uid can neither signal it nor read its memory (and so cannot forge the framing).
 * Each command runs under coreutils `timeout -s KILL` (its own process group, killed on expiry without touching the
 * episode), then `setpriv` drops to the episode's uid with no capabilities. Limits are set with bash's `ulimit` in
 * the forked subshell (no extra process). Without root, the supervisor and its commands are the caller's uid in a
 * user namespace, as the one-command sandbox's are.
 */
import { HsearchError, shellQuote } from "../../core";
import { bwrapMountArgs, containerMountArgs, fstabText, type Mount, viewMounts } from "./sandbox-mounts";
import {
  BASE_ENV,
  bwrapNamespaces,
  DEFAULT_LIMITS,
  DEV_LINKS,
  DEVICES,
  type HostEntry,
  type Invocation,
  SHIMS,
  setprivDropArgv,
  unshareLaunch,
  VAR_TMP_LINK,
} from "./sandbox-plan";
import { SANDBOX_PATHS, type SandboxInfo, type SandboxUser } from "./sandbox-types";
import { workdirAncestry } from "./workdir";

/** Where the control directory appears inside the sandbox. */
export const CONTROL_PATH = "/.hsearch";

/** Directories of the episode root the sandbox user owns (writable, as in a container run as that user). */
export const WRITABLE_ROOT_DIRS = [
  "",
  "root",
  "home",
  "srv",
  "mnt",
  "media",
  "run",
  "var",
  "var/log",
  "var/cache",
  "var/spool",
  "var/mail",
  "var/opt",
  "var/www",
];

/**
 * The writable directories of an episode with the task's own work directory: also /app (an ordinary directory
 * there, where a Dockerfile may still copy files) and the directories above the work directory.
 */
export function writableRootDirs(workdir?: string): string[] {
  if (workdir === undefined) return WRITABLE_ROOT_DIRS;
  const above = workdirAncestry(workdir).slice(0, -1);
  return [...new Set([...WRITABLE_ROOT_DIRS, SANDBOX_PATHS.app.slice(1), ...above])];
}

/** Where the workspace is shown: /workspace, and /app or the task's own work directory. */
export function workspaceTargets(workdir?: string): string[] {
  return [SANDBOX_PATHS.workspace, workdir ?? SANDBOX_PATHS.app];
}

/** The host's /var/lib, shown read-only (package databases: dpkg, python's, ca-certificates). */
export const HOST_VAR_LIB = "/var/lib";

/** Capabilities the privileged supervisor keeps: enough to drop each command to the episode's uid and kill it. */
export const SUPERVISOR_CAPS = ["setuid", "setgid", "setpcap", "kill"] as const;

export interface SessionPaths {
  /** The episode's root directory on the host (see `episodeRootLayout`). */
  root: string;
  workspace: string;
  tmp: string;
  tests: string;
  logs: string;
  control: string;
}

export interface SessionPlanInput {
  info: SandboxInfo;
  hostEntries: HostEntry[];
  paths: SessionPaths;
  readOnlyWorkspace: boolean;
  /** Privileged only: who commands run as. */
  user?: SandboxUser;
  /** Privileged only: host files shown as /etc/passwd and /etc/group, naming `user`. */
  identity?: { passwd: string; group: string };
  /** Whether the host has a /var/lib to show read-only. */
  hasVarLib: boolean;
  /** unshare only: where the fstab text of `sessionFstab` was written. */
  fstabPath?: string;
  /** The task's own work directory (workdir.ts): the workspace is shown there instead of /app, commands start there. */
  workdir?: string;
  /** The host's network instead of a namespace of its own (a task's allow_internet, granted by the user). */
  network?: boolean;
}

/** An entry of the episode root: a directory, an empty file (a device's mount point) or a symlink. */
export type RootEntry =
  | { name: string; kind: "dir" | "file" }
  | { name: string; kind: "symlink"; target: string };

/** What the episode root holds before any mount: mount points, symlinks and the writable directories. */
export function episodeRootLayout(
  hostEntries: readonly HostEntry[],
  hasVarLib: boolean,
  workdir?: string,
): RootEntry[] {
  const dirs = new Set<string>();
  const entries: RootEntry[] = [];
  const dir = (name: string) => {
    if (name === "" || dirs.has(name)) return;
    dirs.add(name);
    entries.push({ name, kind: "dir" });
  };
  for (const entry of hostEntries) {
    if (entry.kind === "dir") dir(entry.name);
    else entries.push(entry);
  }
  for (const path of Object.values(SANDBOX_PATHS)) dir(path.slice(1));
  for (const name of writableRootDirs(workdir)) dir(name);
  if (workdir !== undefined) for (const name of workdirAncestry(workdir)) dir(name);
  for (const name of ["proc", "dev", "dev/shm", "dev/pts", CONTROL_PATH.slice(1)]) dir(name);
  if (hasVarLib) dir(HOST_VAR_LIB.slice(1));
  for (const device of DEVICES) entries.push({ name: `dev/${device}`, kind: "file" });
  for (const [name, target] of Object.entries(DEV_LINKS))
    entries.push({ name: `dev/${name}`, kind: "symlink", target });
  entries.push({ name: "dev/ptmx", kind: "symlink", target: "pts/ptmx" });
  entries.push({ name: VAR_TMP_LINK.path.slice(1), kind: "symlink", target: VAR_TMP_LINK.target });
  for (const [name, target] of Object.entries(SHIMS))
    entries.push({ name: `${SANDBOX_PATHS.shims.slice(1)}/${name}`, kind: "symlink", target });
  return entries;
}

/**
 * The supervisor: reads requests from stdin (NUL-separated fields, see `encodeRequest`), runs each command in a
 * forked subshell under `timeout`, then writes the request's marker to stdout and stderr (so the host knows where
 * the command's output ends, even while background processes still hold those pipes) and `ID STATUS` to fd 4.
 * Its own stderr is /dev/null (bash would report a killed command there); commands get the real one, kept on fd 9,
 * or stdout itself when merged (one stream, in the order written, as a terminal shows it).
 * Arguments: the timeout program, then the argv that drops to the episode's identity (empty without root).
 */
export function supervisorScript(workdir: string = SANDBOX_PATHS.workspace): string {
  return `
exec 3>&- 9>&2 2>/dev/null
timeout_bin=$1; shift
drop=("$@")
field() { IFS= read -r -d '' "$1"; }
printf 'ready\\n' >&4
while field id && field marker && field secs && field cpu && field data && field as && field nproc &&
  field fsize && field input && field merge && field nenv; do
  envs=()
  for ((i = 0; i < nenv; i++)); do field kv || exit 0; envs+=("$kv"); done
  field nargv || exit 0
  argv=()
  for ((i = 0; i < nargv; i++)); do field a || exit 0; argv+=("$a"); done
  (
    if [ "$merge" = 1 ]; then exec 2>&1 9>&-; else exec 2>&9 9>&-; fi
    cd ${shellQuote(workdir)} || exit 125
    for kv in "\${envs[@]}"; do export "$kv"; done
    ulimit -c 0 -t "$cpu" -d "$data" -v "$as" -u "$nproc" -f "$fsize" || exit 125
    exec "$timeout_bin" -s KILL "$secs" "\${drop[@]}" "\${argv[@]}" <"\${input:-/dev/null}" 4>&-
  )
  status=$?
  printf '%s' "$marker"
  printf '%s' "$marker" >&9
  printf '%s %s\\n' "$id" "$status" >&4
done
`;
}

/** The supervisor of every episode that works in /workspace (a task image's episode starts in its WORKDIR). */
export const SUPERVISOR_SCRIPT = supervisorScript();

/** One command for the supervisor. */
export interface SessionRequest {
  id: number;
  /** Written after the command's output on stdout and stderr; unguessable, so output cannot fake the end. */
  marker: string;
  timeoutMs: number;
  /** "unlimited" in a task image's episode where the task sets none: the container and the wall time bound it. */
  cpuSeconds: number | "unlimited";
  memoryMb: number | "unlimited";
  addressSpaceMb?: number;
  maxProcs: number;
  maxFileMb: number | "unlimited";
  /** Path inside the sandbox of the command's stdin; empty: /dev/null. */
  stdinPath: string;
  /** stderr into stdout, in the order written. */
  mergeOutput: boolean;
  env: Record<string, string>;
  argv: readonly string[];
}

/** The bytes of one request on the supervisor's stdin. */
export function encodeRequest(request: SessionRequest): Buffer {
  const fields = [
    String(request.id),
    request.marker,
    `${(request.timeoutMs / 1000).toFixed(3)}s`,
    String(request.cpuSeconds),
    kib(request.memoryMb),
    request.addressSpaceMb === undefined ? "unlimited" : String(request.addressSpaceMb * 1024),
    String(request.maxProcs),
    // bash counts -f in 1024-byte blocks.
    kib(request.maxFileMb),
    request.stdinPath,
    request.mergeOutput ? "1" : "0",
    String(Object.keys(request.env).length),
    ...Object.entries(request.env).map(([name, value]) => `${name}=${value}`),
    String(request.argv.length),
    ...request.argv,
  ];
  for (const field of fields)
    if (field.includes("\0"))
      throw new HsearchError(
        "bad_input",
        "a command, its arguments and environment cannot contain NUL bytes",
        {
          field: "command",
        },
      );
  return Buffer.from(fields.map((field) => `${field}\0`).join(""), "utf8");
}

/** MiB as bash's ulimit takes them (KiB). */
function kib(mb: number | "unlimited"): string {
  return mb === "unlimited" ? mb : String(mb * 1024);
}

/** The argv that drops a command to the episode's identity (privileged), run by the supervisor before it. */
export function commandDropArgv(info: SandboxInfo, user: SandboxUser | undefined): string[] {
  if (!info.privileged) return [];
  if (!user) throw new HsearchError("internal", "session plan: a privileged sandbox needs a user");
  return setprivDropArgv(info.tools.setpriv, user);
}

/** The supervisor's own argv; without root it first sheds every capability, as a one-shot command would. */
function supervisorArgv(input: SessionPlanInput): string[] {
  const { info } = input;
  if (!info.tools.timeout) throw new HsearchError("internal", "session plan: the timeout path is unknown");
  const supervisor = [
    "/bin/bash",
    "-c",
    supervisorScript(input.workdir),
    "hsearch-supervisor",
    info.tools.timeout,
    ...commandDropArgv(info, input.user),
  ];
  if (info.privileged) {
    if (info.mechanism === "bwrap") return supervisor;
    const keep = SUPERVISOR_CAPS.map((cap) => `+${cap}`).join(",");
    return [info.tools.setpriv, `--bounding-set=-all,${keep}`, "--inh-caps=-all", "--", ...supervisor];
  }
  return [...setprivDropArgv(info.tools.setpriv, undefined), ...supervisor];
}

/**
 * The episode's view: its own writable root, the host's /var/lib, /dev/pts, /tests, /logs and the control dir. A
 * container's root is its image (no `root` path): the engine mounts the rest the same way.
 */
export function sessionMounts(input: {
  hostEntries: readonly HostEntry[];
  hasVarLib: boolean;
  identity?: { passwd: string; group: string };
  paths: Omit<SessionPaths, "root"> & { root?: string };
  readOnlyWorkspace: boolean;
  workdir?: string;
}): Mount[] {
  const { paths } = input;
  return viewMounts({
    hostEntries: input.hostEntries,
    hostSymlinks: false,
    ...(paths.root ? { root: paths.root } : {}),
    writableRoot: true,
    ...(input.hasVarLib ? { varLib: HOST_VAR_LIB } : {}),
    ...(input.identity ? { identity: input.identity } : {}),
    workspace: paths.workspace,
    readOnlyWorkspace: input.readOnlyWorkspace,
    workspaceTargets: workspaceTargets(input.workdir),
    tmpDir: paths.tmp,
    tmpfsMb: DEFAULT_LIMITS.tmpfsMb,
    shmMb: DEFAULT_LIMITS.shmMb,
    pts: true,
    testsDir: paths.tests,
    logsDir: paths.logs,
    readOnlyExtras: [{ source: paths.control, target: CONTROL_PATH }],
  });
}

export function bwrapSessionInvocation(input: SessionPlanInput): Invocation {
  const { info } = input;
  if (!info.tools.bwrap) throw new HsearchError("internal", "session plan: the bwrap path is unknown");
  const args = [...bwrapNamespaces(info, input.network ?? false), "--die-with-parent", "--new-session"];
  args.push(...bwrapMountArgs(sessionMounts(input)));
  if (info.privileged) for (const cap of SUPERVISOR_CAPS) args.push("--cap-add", `CAP_${cap.toUpperCase()}`);
  args.push("--chdir", input.workdir ?? SANDBOX_PATHS.workspace, "--json-status-fd", "3");
  args.push("--", ...supervisorArgv(input));
  return { file: info.tools.bwrap, args };
}

/** The mounts of an episode under the unshare mechanism, as an fstab for one `mount -a`. */
export function sessionFstab(input: SessionPlanInput): string {
  return fstabText(sessionMounts(input), input.paths.root);
}

export function unshareSessionInvocation(input: SessionPlanInput): Invocation {
  if (!input.fstabPath) throw new HsearchError("internal", "session plan: the fstab is unknown");
  return unshareLaunch(
    input.info,
    input.fstabPath,
    input.paths.root,
    supervisorArgv(input),
    input.workdir ?? SANDBOX_PATHS.workspace,
    input.network ?? false,
  );
}

/** The supervisor's environment: the clean base; each command adds its own variables. */
export function supervisorEnv(): Record<string, string> {
  return { ...BASE_ENV };
}

// ---------------------------------------------------------------------------------------------------------------
// A container (docker or podman) as the episode's sandbox

export const CONTAINER_ENGINES = ["docker", "podman"] as const;
export type ContainerEngine = (typeof CONTAINER_ENGINES)[number];

/** Where a task image notes the uid:gid that built it (backend-container.ts writes it). */
export const IMAGE_OWNER_PATH = "/.hsearch-owner";

/** The container's supervisor also hands the writable root to the episode's uid when it starts. */
export const CONTAINER_CAPS = [...SUPERVISOR_CAPS, "chown"] as const;

export interface ContainerPlanInput {
  engine: ContainerEngine;
  /** The engine's program (absolute path). */
  binary: string;
  image: string;
  /** The container's name (unique per episode; `rm -f` ends it). */
  name: string;
  /** Programs inside the container (the host's /usr is bound read-only, so the host's paths). */
  tools: { timeout: string; setpriv: string };
  hostEntries: HostEntry[];
  hasVarLib: boolean;
  paths: Omit<SessionPaths, "root">;
  readOnlyWorkspace: boolean;
  /** Who commands run as; without it they run as the container's root (no capabilities but the supervisor's). */
  user?: SandboxUser;
  identity?: { passwd: string; group: string };
  maxProcs: number;
  /** A network of the engine's default kind instead of none. */
  network: boolean;
  /** Leave the container when it ends (a task image's build is committed from it); default removed. */
  keep?: boolean;
  /** The task's own work directory: the workspace is bound there instead of /app, and commands start there. */
  workdir?: string;
}

/** The base image: the episode root's directories and symlinks (the container engine supplies /dev and /proc). */
export function containerImageLayout(hostEntries: readonly HostEntry[], hasVarLib: boolean): RootEntry[] {
  return episodeRootLayout(hostEntries, hasVarLib).filter(
    (entry) => entry.kind !== "file" && entry.name !== "dev" && !entry.name.startsWith("dev/"),
  );
}

/** `docker run` (or podman's) of the episode: one container, the supervisor as its first process, on stdin. */
export function containerRunInvocation(input: ContainerPlanInput): Invocation {
  const args = ["run", "-i", ...(input.keep ? [] : ["--rm"]), "--name", input.name];
  args.push("--network", input.network ? "bridge" : "none");
  args.push("--cap-drop", "ALL");
  for (const cap of CONTAINER_CAPS) args.push("--cap-add", cap.toUpperCase());
  // Processes of the whole container: the episode's own limit plus the supervisor and its helpers.
  args.push("--pids-limit", String(input.maxProcs + 16), "--ipc", "private", "--hostname", "sandbox");
  // The clean environment of every sandbox (the image has none of its own).
  for (const [name, value] of Object.entries(BASE_ENV)) args.push("--env", `${name}=${value}`);
  args.push(...containerMountArgs(sessionMounts(input)));
  args.push("--workdir", input.workdir ?? SANDBOX_PATHS.workspace, input.image);
  const owner = input.user ? `${input.user.uid}:${input.user.gid}` : "";
  // A task image's files belong to the uid that built it: handed to this episode's uid (this file system only).
  const handOver = owner
    ? `chown ${owner} ${writableRootDirs(input.workdir)
        .map((dir) => `/${dir}`)
        .join(" ")} || exit 125\n` +
      `if [ -f ${IMAGE_OWNER_PATH} ]; then find / -xdev -user "$(cut -d: -f1 ${IMAGE_OWNER_PATH})" -exec chown -h ${owner} {} + 2>/dev/null; fi\n`
    : "";
  const drop = input.user ? setprivDropArgv(input.tools.setpriv, input.user) : [];
  // No fd 4 in a container: replies follow each command's marker on stdout, where nothing can fake them.
  const script = `exec 4>&1\n${handOver}${supervisorScript(input.workdir)}`;
  args.push("/bin/bash", "-c", script, "hsearch-supervisor", input.tools.timeout, ...drop);
  return { file: input.binary, args };
}
