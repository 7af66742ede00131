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

/** The compact trace: "X /path" per program run, "R path" per file opened for reading, one of each. */
const REPORT_FILE = "/tmp/.hsearch-solution.report";
/** Lines of the report read back per command: well under the 10 KB a command's output shows. */
export const REPORT_PAGE_LINES = 30;

/**
 * Makes the compact report of the trace (in the sandbox) and prints its line count, or nothing without a trace:
 * execs by path, opens in the workspace (or relative) that neither write nor create, each line cut to 300 bytes.
 */
export function traceReport(workspaceRoots: readonly string[]): string {
  const places = workspaceRoots.map((root) => root.replace(/[.[\]*^$\\]/g, "\\$&")).join("|");
  const quoted = String.raw`"((\\.|[^"\\])*)"`;
  return [
    `[ -f ${TRACE_FILE} ] || exit 0`,
    String.raw`{ grep -v ' = -1 ' ${TRACE_FILE} | sed -nE 's/^[0-9]+ +//; s/^execve\(${quoted}.*/X \1/p'`,
    String.raw`  grep -v ' = -1 ' ${TRACE_FILE} | grep -vE 'O_WRONLY|O_CREAT' | sed -nE 's/^[0-9]+ +//; s/^openat\(AT_FDCWD, ${quoted}.*/R \1/p; s/^open\(${quoted}.*/R \1/p' | grep -E '^R ((${places})(/|$)|[^/])'`,
    `} | cut -c1-300 | sort -u > ${REPORT_FILE}`,
    `echo "cwd $PWD"; wc -l < ${REPORT_FILE}`,
  ].join("\n");
}

/** Lines [from, from + REPORT_PAGE_LINES) of the compact report. */
export function reportPage(from: number): string {
  return `sed -n '${from + 1},${from + REPORT_PAGE_LINES}p' ${REPORT_FILE}`;
}

/**
 * The compact report read back (`head`: traceReport's output; `lines`: the report's lines): null when the sandbox
 * had no strace (traceReport printed nothing).
 */
export function parseTrace(
  head: string,
  lines: readonly string[],
  workspaceRoots: readonly string[],
): SolutionTrace | null {
  const cwd = /^cwd (.*)$/m.exec(head)?.[1];
  if (cwd === undefined) return null;
  const reads = new Set<string>();
  const programs = new Set<string>();
  for (const line of lines) {
    const match = /^([XR]) (.+)$/.exec(line);
    if (match === null) continue;
    const path = posix.resolve(cwd, unescapeC(match[2] as string));
    const inWorkspace = workspacePath(path, workspaceRoots);
    // A program of the workspace the solution runs is one of its inputs.
    if (match[1] === "X" && inWorkspace === null) programs.add(path);
    else if (inWorkspace !== null && inWorkspace !== "") reads.add(inWorkspace);
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
