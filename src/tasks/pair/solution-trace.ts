/**
 * What the reference solution reads and runs, watched with strace in the survey: an infeasible variant takes away
 * an input the solution really opens (an input the instruction names but the solution never touches leaves it
 * working), and a program it calls is a prerequisite a variant can make absent. Pure but for the command lines;
 * a sandbox without strace gives no trace (null), and the variants fall back to the paths the instruction names.
 */
import { createHash } from "node:crypto";
import { posix } from "node:path";

/** Where the wrapped solution and its trace live in the sandbox's own /tmp (never the workspace). */
const SCRIPT_FILE = "/tmp/.hsearch-solution.sh";
export const TRACE_FILE = "/tmp/.hsearch-solution.trace";

export interface SolutionTrace {
  /** Workspace-relative paths the solution opened for reading (files and folders it listed). */
  reads: string[];
  /** Absolute paths of the programs it ran (execve), outside the workspace. */
  programs: string[];
}

/**
 * The solution as one bash command that runs it under strace when the sandbox has strace (a child `bash FILE`, so
 * an `exit` in it ends only itself); its exit status is the solution's. Only open and exec are traced, through a
 * seccomp filter, so a syscall-heavy build is not slowed by every other call.
 */
export function tracedSolution(script: string): string {
  const delimiter = `HSEARCH_SOLUTION_${createHash("sha256").update(script).digest("hex").slice(0, 16)}`;
  return [
    `cat > ${SCRIPT_FILE} <<'${delimiter}'`,
    script.endsWith("\n") ? script.slice(0, -1) : script,
    delimiter,
    // strace may be there but refused (no ptrace in some sandboxes): then the solution runs untraced.
    "if command -v strace >/dev/null 2>&1 && strace -qq -o /dev/null true >/dev/null 2>&1; then",
    `  strace -f -qq --seccomp-bpf -s 4096 -e trace=open,openat,execve -e signal=none -o ${TRACE_FILE} bash ${SCRIPT_FILE}`,
    "else",
    `  bash ${SCRIPT_FILE}`,
    "fi",
  ].join("\n");
}

/**
 * Prints the start directory, then the trace's successful opens in the workspace (or relative) and its execs, one
 * of each (nothing when there is no trace): small enough that the command's output is never cut.
 */
export function traceReport(workspaceRoots: readonly string[]): string {
  const places = workspaceRoots.map((root) => root.replace(/[.[\]*^$\\]/g, "\\$&")).join("|");
  const keep = `execve\\(|"(${places})(/|")|"[^/"]`;
  return [
    'echo "cwd $PWD"',
    `[ -f ${TRACE_FILE} ] && grep -E '(open|openat|execve)\\(' ${TRACE_FILE} | grep -v ' = -1 ' | sed -E 's/^[0-9]+ +//; s/\\) = [0-9]+$//' | grep -E '${keep}' | cut -c1-4200 | sort -u`,
  ].join("; ");
}

const LINE = /^(open|openat|execve)\((?:(AT_FDCWD), )?"((?:[^"\\]|\\.)*)"(?:\.\.\.)?,\s*(.*)$/;

/** The trace report read back: null when the sandbox had no strace (only the start directory came back). */
export function parseTrace(report: string, workspaceRoots: readonly string[]): SolutionTrace | null {
  const lines = report.split("\n");
  const cwd = /^cwd (.*)$/.exec(lines[0] ?? "")?.[1] ?? "/app";
  const body = lines.slice(1).filter((line) => line.trim() !== "");
  if (body.length === 0) return null;
  const reads = new Set<string>();
  const programs = new Set<string>();
  for (const line of body) {
    const match = LINE.exec(line);
    if (match === null) continue;
    const [, call, , raw, rest] = match as unknown as [string, string, string | undefined, string, string];
    // openat relative to another directory's descriptor: its path is not known here.
    if (call === "openat" && match[2] === undefined) continue;
    const path = posix.resolve(cwd, unescapeC(raw));
    const inWorkspace = workspacePath(path, workspaceRoots);
    // A program of the workspace the solution runs is one of its inputs.
    if (call === "execve" && inWorkspace === null) {
      programs.add(path);
      continue;
    }
    if (inWorkspace === null || inWorkspace === "") continue;
    // A file it creates (a temporary file, an output) is none of its inputs.
    if (/O_WRONLY|O_CREAT/.test(rest)) continue;
    reads.add(inWorkspace);
  }
  return { reads: [...reads].sort(), programs: [...programs].sort() };
}

/** The path relative to the workspace when it is under one of the places the workspace is shown; else null. */
function workspacePath(path: string, roots: readonly string[]): string | null {
  for (const root of roots) {
    if (path === root) return "";
    if (path.startsWith(`${root}/`)) return path.slice(root.length + 1);
  }
  return null;
}

/** strace's C-style escapes in a quoted string (\n, \", \\, \ooo, \xhh). */
function unescapeC(text: string): string {
  return text.replace(/\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)/g, (_, code: string) => {
    if (code[0] === "x") return String.fromCharCode(Number.parseInt(code.slice(1), 16));
    if (/^[0-7]+$/.test(code)) return String.fromCharCode(Number.parseInt(code, 8));
    return ({ n: "\n", t: "\t", r: "\r" } as Record<string, string>)[code] ?? code;
  });
}
