/**
 * Pure: what a Harbor task's Dockerfile asks for, turned into what the sandbox can do instead. The sandbox shows
 * the machine's own tools and a workspace at /app, so:
 *   COPY/ADD of build-context files to /app     → the workspace's files
 *   RUN apt-get install X / pip install Y       → host requirements (Debian X, Debian's package of Y)
 *   RUN of anything else local                  → a setup step, run in the sandbox before the episode
 *   RUN or ADD that fetches (curl, git clone …) → a network need: the task cannot run offline
 *   ENV                                         → variables of every command the task runs
 *   CMD/ENTRYPOINT                              → ignored (a service it starts is reported as a need)
 *   RUN useradd, service … start, systemctl …  → a root need (the sandbox's user cannot): unrunnable
 *   FROM, LABEL, ARG, EXPOSE, USER, VOLUME …    → ignored
 *   COPY/ADD to another writable place         → files the setup places there (the episode's root is its own)
 *   the last WORKDIR outside /app            → the task's own work directory: the workspace is shown there
 * What cannot be stood in for at all (COPY --from, files placed in the host's read-only system directories, a work
 * directory there or in a path the sandbox mounts itself) skips the task with the reason and line.
 */
import { shellQuote } from "../../../core";
import { HOST_SYSTEM_DIRS, reservedRootOf } from "../../../envs";
import { classifyCommand, requirementsFile, splitCommands, words } from "./install-steps";
import { addPython, emptyRequirements, type TaskRequirements } from "./requirements";
import { joinContinuations } from "./test-script";

export interface DockerCopy {
  /** Build-context paths (relative to environment/). */
  sources: string[];
  /**
   * Workspace-relative destination ("" is the workspace root); an absolute path for a copy outside the workspace
   * (`outside`). `dir` when it names a directory.
   */
  dest: string;
  dir: boolean;
  /**
   * A copy outside the workspace (`/data`, `/protected`, `/tmp`): the episode's writable root holds it, so the
   * setup places it, before the RUN step at this index of `setup` (after every step when it equals the length).
   */
  outside?: { beforeStep: number };
}

export interface DockerEnvironment {
  copies: DockerCopy[];
  /** ENV, in order, with earlier variables and the standard PATH expanded. */
  env: Record<string, string>;
  /** Local RUN steps, each a shell command run from its WORKDIR. */
  setup: string[];
  requires: TaskRequirements;
  /** The last WORKDIR: where the container's commands (the agent's shell, tests, solution) start. */
  workdir: string;
  /**
   * The task's own work directory when the last WORKDIR is outside /app (`/home/user`): the workspace is shown there,
   * copies into it are the workspace's files, and copies to /app are placed by the setup like any other.
   */
  workspace?: string;
}

export type DockerPlan = ({ ok: true } & DockerEnvironment) | { ok: false; reason: string };

/** The PATH of a Debian image, which `ENV PATH=…:$PATH` extends. */
export const IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const IGNORED = new Set([
  "FROM",
  "LABEL",
  "ARG",
  "MAINTAINER",
  "EXPOSE",
  "VOLUME",
  "STOPSIGNAL",
  "HEALTHCHECK",
  "ONBUILD",
  "SHELL",
]);
const WORKSPACES = ["/app", "/workspace"];

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/** Instructions with continuation lines joined; comments and blank lines dropped. */
export function dockerInstructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const first = i + 1;
    let line = lines[i] ?? "";
    if (/^\s*(#|$)/.test(line)) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      const next = lines[++i] ?? "";
      // A comment line inside a continued RUN is dropped by Docker, and the continuation goes on.
      line = /^\s*#/.test(next) ? line : `${line.replace(/\\\s*$/, " ")}${next}`;
    }
    const match = /^\s*(\S+)\s*(.*)$/.exec(line);
    if (match)
      out.push({ keyword: (match[1] ?? "").toUpperCase(), args: (match[2] ?? "").trim(), line: first });
  }
  return out;
}

/**
 * `readContext` reads a build-context file (for `pip install -r requirements.txt`), or returns undefined when the
 * file is not there.
 */
export function planDockerfile(
  text: string,
  readContext: (path: string) => string | undefined = () => undefined,
  where = "environment/Dockerfile",
): DockerPlan {
  let workdir = "/app";
  // Copies with their absolute destination; which of them land in the workspace is known once the last WORKDIR is.
  const copies: Array<{ sources: string[]; dest: string; dir: boolean; beforeStep: number }> = [];
  const env: Record<string, string> = {};
  const setup: string[] = [];
  const requires = emptyRequirements();
  // Destinations known to be directories when a later COPY names them (Docker then copies into them).
  const dirs = new Set<string>(WORKSPACES);
  for (const { keyword, args, line } of dockerInstructions(text)) {
    const at = `${where}:${line}`;
    if (IGNORED.has(keyword)) continue;
    if (keyword === "USER") continue;
    if (keyword === "CMD" || keyword === "ENTRYPOINT") {
      const service = serviceOf(args);
      if (service) requires.services.push(`${service} (${keyword} at ${at})`);
      continue;
    }
    if (keyword === "ENV") {
      for (const [name, value] of envPairs(args)) env[name] = expand(value, env);
      continue;
    }
    if (keyword === "WORKDIR") {
      const next = normalisePath(
        expand(args, env).startsWith("/") ? expand(args, env) : `${workdir}/${args}`,
      );
      const system = readOnlySystemDir(next);
      if (system)
        return skip(
          `the work directory ${args} is in ${system}, which the sandbox shows read-only from the host (WORKDIR at ${at})`,
        );
      workdir = next;
      dirs.add(workdir);
      continue;
    }
    if (keyword === "COPY" || keyword === "ADD") {
      const parts = splitArgs(args);
      if (parts.some((part) => part.startsWith("--from")))
        return skip(`it copies from another image (COPY --from at ${at})`);
      const paths = parts.filter((part) => !part.startsWith("--"));
      if (paths.length < 2) return skip(`${keyword} at ${at} has no destination`);
      const sources = paths.slice(0, -1);
      if (sources.some((source) => /^[a-z]+:\/\//.test(source))) {
        requires.network.push(`${keyword} of a URL at ${at}`);
        continue;
      }
      if (sources.some((source) => /[*?[]/.test(source)))
        return skip(`${keyword} with a wildcard at ${at} is not supported`);
      const raw = expand(paths[paths.length - 1] as string, env);
      const dest = normalisePath(raw.startsWith("/") ? raw : `${workdir}/${raw}`);
      const system = readOnlySystemDir(dest);
      if (system)
        return skip(
          `it copies files to ${raw}, in ${system}, which the sandbox shows read-only from the host (${keyword} at ${at})`,
        );
      // Docker copies into a destination that is a directory: one named with a trailing slash or `.`, one that
      // exists already (a work directory, /app, an earlier copy's directory), or the target of several sources.
      const dir = /\/$|(^|\/)\.$/.test(raw) || sources.length > 1 || dirs.has(dest) || isAncestor(dest, dirs);
      copies.push({ sources, dest, dir: dir || dest === "/tmp", beforeStep: setup.length });
      if (dir) dirs.add(dest);
      continue;
    }
    if (keyword === "RUN") {
      const command = runCommand(args);
      const local: string[] = [];
      for (const step of splitCommands(command)) {
        const kind = classifyCommand(step);
        if (kind.kind === "apt") requires.debian.push(...kind.packages);
        else if (kind.kind === "pip") {
          addPython(requires, kind.packages);
          for (const file of kind.requirementFiles) {
            const listed = readContext(file.replace(/^(\.\/|\/app\/)/, ""));
            if (listed === undefined) requires.network.push(`pip install -r ${file} (RUN at ${at})`);
            else addPython(requires, requirementsFile(listed));
          }
        } else if (kind.kind === "network") requires.network.push(`RUN ${kind.tool} … at ${at}`);
        else if (kind.kind === "root") {
          requires.root.push(`RUN ${kind.tool} … at ${at}`);
          local.push(step);
        } else if (kind.kind === "local") {
          const service = /^(?:service\s+(\S+)\s+start|(\S+d)\s*&$)/.exec(step);
          if (service) requires.services.push(`${service[1] ?? service[2]} (RUN at ${at})`);
          scanScript(step, readContext, requires, at);
          local.push(step);
        }
      }
      // A WORKDIR outside the workspace is made by Docker when it is named; the setup makes it too.
      const enter = inWorkspace(workdir, WORKSPACES)
        ? `cd ${shellQuote(workdir)}`
        : `mkdir -p ${shellQuote(workdir)} && cd ${shellQuote(workdir)}`;
      if (local.length > 0) setup.push(`${enter} && ${local.join(" && ")}`);
      continue;
    }
    return skip(`the container needs ${keyword} (at ${at}), which the sandbox cannot provide`);
  }
  // The last WORKDIR outside /app is the task's own work directory: the workspace is shown there.
  const roots = inWorkspace(workdir, WORKSPACES) ? WORKSPACES : [workdir];
  if (roots !== WORKSPACES) {
    const reserved = reservedRootOf(workdir);
    if (reserved || workdir === "/")
      return skip(
        `the work directory ${workdir} is ${reserved ? `in ${reserved}, which the sandbox mounts itself` : "/"}, so the workspace cannot be shown there`,
      );
  }
  const planned: DockerCopy[] = copies.map(({ sources, dest, dir, beforeStep }) =>
    inWorkspace(dest, roots)
      ? { sources, dest: relativeTo(dest, roots), dir }
      : { sources, dest, dir, outside: { beforeStep } },
  );
  return {
    ok: true,
    copies: planned,
    env,
    setup,
    requires,
    workdir,
    ...(roots === WORKSPACES ? {} : { workspace: workdir }),
  };
}

/**
 * A build-context script that a RUN step runs (`bash /app/setup.sh`, `./install.sh`): its own installs and fetches
 * count as the Dockerfile's, one level deep.
 */
function scanScript(
  step: string,
  readContext: (path: string) => string | undefined,
  requires: TaskRequirements,
  at: string,
): void {
  const script = /^(?:bash|sh|source|\.)\s+(\S+)|^(\.\/\S+)/.exec(step);
  const path = script?.[1] ?? script?.[2];
  if (path === undefined) return;
  const name = path.replace(/^(\.\/|\/app\/|\/workspace\/)/, "");
  const text = readContext(name);
  if (text === undefined) return;
  for (const { text: line, data } of joinContinuations(text)) {
    if (data) continue;
    for (const command of splitCommands(line.replace(/#.*$/, ""))) {
      const kind = classifyCommand(command);
      if (kind.kind === "apt") requires.debian.push(...kind.packages);
      else if (kind.kind === "pip") addPython(requires, kind.packages);
      else if (kind.kind === "network") requires.network.push(`${kind.tool} in ${name} (RUN at ${at})`);
      else if (kind.kind === "root") requires.root.push(`${kind.tool} in ${name} (RUN at ${at})`);
    }
  }
}

function skip(reason: string): DockerPlan {
  return { ok: false, reason };
}

/** RUN's JSON (exec) form as one shell command, or its shell form. */
function runCommand(args: string): string {
  if (args.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(args);
      if (Array.isArray(parsed) && parsed.every((part) => typeof part === "string"))
        return parsed[0] === "/bin/sh" ||
          parsed[0] === "/bin/bash" ||
          parsed[0] === "bash" ||
          parsed[0] === "sh"
          ? (parsed.slice(2).join(" ") as string)
          : parsed.map(shellQuote).join(" ");
    } catch {
      // not JSON: the shell form
    }
  }
  return args;
}

/** The long-running program of a CMD/ENTRYPOINT that looks like a service (a server or daemon), if any. */
function serviceOf(args: string): string | null {
  const argv = args.startsWith("[") ? (safeJson(args) ?? words(args)) : words(args);
  const program = (argv[0] ?? "").split("/").pop() ?? "";
  if (program === "" || /^(bash|sh|python3?|sleep|tail|cat)$/.test(program)) {
    const joined = argv.join(" ");
    const started =
      /(?:service\s+(\S+)\s+start|(\S*(?:nginx|sshd|redis-server|postgres|mysqld|apache2|cron))\b)/.exec(
        joined,
      );
    return started ? (started[1] ?? started[2] ?? null) : null;
  }
  return program;
}

function safeJson(args: string): string[] | null {
  try {
    const parsed: unknown = JSON.parse(args);
    return Array.isArray(parsed) && parsed.every((part) => typeof part === "string") ? parsed : null;
  } catch {
    return null;
  }
}

/** `ENV A=1 B="two words"` and the old `ENV A value with spaces`. */
function envPairs(args: string): Array<[string, string]> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(args)) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)\s+(.*)$/.exec(args);
    return match ? [[match[1] as string, match[2] as string]] : [];
  }
  const out: Array<[string, string]> = [];
  const pattern = /([A-Za-z_][A-Za-z0-9_]*)=("((?:[^"\\]|\\.)*)"|'([^']*)'|(\S*))/g;
  for (const match of args.matchAll(pattern))
    out.push([match[1] as string, (match[3] ?? match[4] ?? match[5] ?? "").replace(/\\(.)/g, "$1")]);
  return out;
}

/** `$NAME` and `${NAME}` from earlier ENV values; PATH defaults to the image's. */
function expand(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, a, b) => {
    const name = (a ?? b) as string;
    if (name in env) return env[name] as string;
    if (name === "PATH") return IMAGE_PATH;
    return whole;
  });
}

function readOnlySystemDir(path: string): string | null {
  const clean = normalisePath(path);
  return HOST_SYSTEM_DIRS.find((dir) => clean === dir || clean.startsWith(`${dir}/`)) ?? null;
}

function inWorkspace(path: string, roots: readonly string[]): boolean {
  const clean = normalisePath(path);
  return roots.some((root) => clean === root || clean.startsWith(`${root}/`));
}

/** An absolute path with `.`, `..` and repeated slashes resolved, as Docker reads WORKDIR and COPY targets. */
export function normalisePath(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

function relativeTo(path: string, roots: readonly string[]): string {
  const clean = normalisePath(path);
  for (const root of roots) {
    if (clean === root) return "";
    if (clean.startsWith(`${root}/`)) return clean.slice(root.length + 1);
  }
  return clean;
}

/** Is `path` a known directory's ancestor (so a directory itself)? */
function isAncestor(path: string, dirs: ReadonlySet<string>): boolean {
  return [...dirs].some((dir) => dir.startsWith(`${path === "/" ? "" : path}/`));
}

/** COPY's JSON form (["a", "b"]) or its shell form. */
function splitArgs(args: string): string[] {
  return (args.startsWith("[") ? safeJson(args) : null) ?? args.split(/\s+/).filter((part) => part !== "");
}
