/**
 * Pure: what a Harbor task's Dockerfile asks for, and whether the sandbox can stand in for it. The sandbox shows
 * the machine's own tools and a workspace at /app, so a Dockerfile that only picks a base image, sets the work
 * directory to /app and copies the build context's files there can be honoured by copying those files; anything
 * that builds an image (RUN), fetches (ADD of a URL), or shapes the running container (ENV, USER, CMD …) cannot,
 * and the task is skipped with the reason.
 */

export interface DockerCopy {
  /** Build-context paths (relative to environment/). */
  sources: string[];
  /** Workspace-relative destination ("" is the workspace root); `dir` when it names a directory. */
  dest: string;
  dir: boolean;
}

export type DockerPlan = { ok: true; copies: DockerCopy[] } | { ok: false; reason: string };

const NETWORK =
  /\b(apt-get|apt|apk|yum|dnf|pip3?|uv|uvx|npm|yarn|curl|wget|git\s+clone|go\s+install|cargo\s+install)\b/;
const IGNORED = new Set(["FROM", "LABEL", "ARG", "MAINTAINER"]);
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
    while (/\\\s*$/.test(line) && i + 1 < lines.length)
      line = `${line.replace(/\\\s*$/, " ")}${lines[++i] ?? ""}`;
    const match = /^\s*(\S+)\s*(.*)$/.exec(line);
    if (match)
      out.push({ keyword: (match[1] ?? "").toUpperCase(), args: (match[2] ?? "").trim(), line: first });
  }
  return out;
}

export function planDockerfile(text: string, where = "environment/Dockerfile"): DockerPlan {
  let workdir = "/app";
  const copies: DockerCopy[] = [];
  for (const { keyword, args, line } of dockerInstructions(text)) {
    const at = `${where}:${line}`;
    if (IGNORED.has(keyword)) continue;
    if (keyword === "WORKDIR") {
      const next = args.startsWith("/") ? args : `${workdir}/${args}`;
      if (!inWorkspace(next)) return skip(`the work directory ${args} is outside /app (WORKDIR at ${at})`);
      workdir = next.replace(/\/+$/, "");
      continue;
    }
    if (keyword === "COPY" || keyword === "ADD") {
      const parts = splitArgs(args);
      if (parts.some((part) => part.startsWith("--from")))
        return skip(`it copies from another image (COPY --from at ${at})`);
      const words = parts.filter((part) => !part.startsWith("--"));
      if (words.length < 2) return skip(`${keyword} at ${at} has no destination`);
      const sources = words.slice(0, -1);
      if (sources.some((source) => /^[a-z]+:\/\//.test(source)))
        return skip(`the environment needs network (${keyword} of a URL at ${at})`);
      if (sources.some((source) => /[*?[]/.test(source)))
        return skip(`${keyword} with a wildcard at ${at} is not supported`);
      const raw = words[words.length - 1] as string;
      const dest = raw.startsWith("/") ? raw : `${workdir}/${raw}`;
      if (!inWorkspace(dest)) return skip(`it copies files to ${raw}, outside /app (${keyword} at ${at})`);
      copies.push({
        sources,
        dest: relativeToWorkspace(dest),
        dir: raw.endsWith("/") || sources.length > 1 || raw === ".",
      });
      continue;
    }
    if (keyword === "RUN") {
      const tool = NETWORK.exec(args)?.[0];
      return skip(
        tool
          ? `the environment needs network and a Docker image build (RUN ${tool} … at ${at})`
          : `the environment needs a Docker image build (RUN at ${at})`,
      );
    }
    return skip(`the container needs ${keyword} (at ${at}), which the sandbox cannot provide`);
  }
  return { ok: true, copies };
}

function skip(reason: string): DockerPlan {
  return { ok: false, reason };
}

function inWorkspace(path: string): boolean {
  const clean = path.replace(/\/+$/, "") || "/";
  return WORKSPACES.some((root) => clean === root || clean.startsWith(`${root}/`));
}

function relativeToWorkspace(path: string): string {
  for (const root of WORKSPACES) {
    const clean = path.replace(/\/+$/, "");
    if (clean === root) return "";
    if (clean.startsWith(`${root}/`)) return clean.slice(root.length + 1);
  }
  return path;
}

/** COPY's JSON form (["a", "b"]) or its shell form. */
function splitArgs(args: string): string[] {
  if (args.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(args);
      if (Array.isArray(parsed) && parsed.every((part) => typeof part === "string")) return parsed;
    } catch {
      // not JSON: read it as the shell form
    }
  }
  return args.split(/\s+/).filter((part) => part !== "");
}
