/**
 * The survey of a source in the sandbox, which is also its proof as a feasible task: the reference solution runs
 * once in the initial state with every workspace path watched (so the effect log reports all it created, changed or
 * deleted), the verifier must then give 1, and an agent that does nothing must score 0. Before the solution runs,
 * the workspace the setup left is fingerprinted, and the small text files the instruction names are read (a
 * variant may put a notice in one). The idle run fingerprints its own initial workspace too: what two runs of the
 * setup leave different is not pinned by a variant's verifier.
 */
import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { isHsearchError } from "../../../core";
import type { TerminalTask } from "../../../domain";
import { cutMiddle, snapshotWorkspace } from "../../../envs";
import { idleReward, runScriptIn } from "../terminal/check";
import {
  parseTrace,
  REPORT_PAGE_LINES,
  reportPage,
  type SolutionTrace,
  tracedSolution,
  traceReport,
} from "./solution-trace";
import {
  type Deliverables,
  deliverablesOf,
  namedIn,
  type SolutionChanges,
  type WorkspaceEntry,
  type WorkspaceState,
} from "./workspace-state";

/** Named text files up to this size are read, so a notice can be put in one. */
const TEXT_LIMIT_BYTES = 256 * 1024;

export interface SourceSurvey {
  /** The workspace the setup left. */
  initial: WorkspaceState;
  /** Paths of the initial workspace that the instruction names. */
  named: string[];
  changes: SolutionChanges;
  deliverables: Deliverables;
  /** Paths the solution created or modified that the instruction names (any depth). */
  namedOutputs: string[];
  /** Paths whose content two runs of the setup left different: a variant's verifier checks no hash of them. */
  unstable: string[];
  /** What the solution opened and ran, watched with strace; null when the sandbox could not trace it. */
  trace: SolutionTrace | null;
  /** Where the commands see the workspace: /app, or a task image's WORKDIR (the variants' edits and texts use it). */
  root: string;
  /**
   * In a task's own image: the places outside the workspace the solution changed (`/etc/nginx`, `/git/server`),
   * which the effect log does not watch, so no variant can forbid them. Absent on the sandbox path.
   */
  outside?: string[];
}

export type SurveyOutcome = { ok: true; survey: SourceSurvey } | { ok: false; reason: string };

export async function surveySource(task: TerminalTask): Promise<SurveyOutcome> {
  let initial: WorkspaceState = new Map();
  let named: string[] = [];
  let root = "/app";
  let outside: string[] | undefined;
  const image = task.env.image !== undefined;
  const watched: TerminalTask = { ...task, forbidden: { paths: ["**"] } };
  try {
    // Callers survey only sources with a reference solution (hasReferenceSolution).
    let trace: SolutionTrace | null = null;
    const solved = await runScriptIn(watched, tracedSolution(task.reference.solution ?? ""), {
      before: async (env) => {
        root = env.sandboxWorkspace();
        if (image) await env.runCommand(`touch ${START_MARK}`, { timeoutMs: 30_000 });
        ({ initial, named } = await readInitialState(env.workspace, task.instruction, root));
      },
      after: async (env) => {
        const roots = workspaceRoots(task, root);
        const ctx = { step: 2, author: "harness" } as const;
        const head = (await env.call("bash", { command: traceReport(roots) }, ctx)).output;
        const count = Number(/^\d+$/m.exec(head.replace(/^cwd .*$/m, ""))?.[0] ?? 0);
        const lines: string[] = [];
        // Page by page: one command's output is cut past 10 KB.
        for (let from = 0; from < count; from += REPORT_PAGE_LINES)
          lines.push(...(await env.call("bash", { command: reportPage(from) }, ctx)).output.split("\n"));
        trace = parseTrace(head, lines, roots);
        if (image) {
          const found = await env.runCommand(changedOutside(root), {
            timeoutMs: 120_000,
            displayBytes: 64 * 1024,
          });
          outside = placesOf(found.stdout);
        }
      },
    });
    if (solved.reward !== 1)
      return {
        ok: false,
        reason: `the reference solution scores ${solved.reward}: ${cutMiddle(solved.output, 600)}`,
      };
    // The idle run's setup is a second one: what differs from the first (a git commit's time, a random token) is
    // not the same in every episode, so a verifier cannot pin it.
    let again: WorkspaceState = new Map();
    const idle = await idleReward(task, async (env) => {
      ({ initial: again } = await readInitialState(env.workspace, task.instruction, root));
    });
    if (idle !== 0) return { ok: false, reason: `an agent that does nothing scores ${idle}` };
    const unstable = [...new Set([...initial.keys(), ...again.keys()])]
      .filter((path) => initial.get(path)?.hash !== again.get(path)?.hash)
      .sort();
    const changes: SolutionChanges = { created: [], modified: [], deleted: [] };
    for (const change of solved.changes) changes[change.change].push(change.path);
    const deliverables = deliverablesOf(changes);
    const namedOutputs = [...changes.created, ...changes.modified]
      .map((path) => path.replace(/\/$/, ""))
      .filter((path) => namedIn(task.instruction, path, root))
      .sort();
    return {
      ok: true,
      survey: {
        initial,
        named,
        changes,
        deliverables,
        namedOutputs,
        unstable,
        trace,
        root,
        ...(outside === undefined ? {} : { outside }),
      },
    };
  } catch (error) {
    // The task's setup failed: the source cannot be used (the others go on).
    if (isHsearchError(error, "bad_input")) return { ok: false, reason: error.message };
    throw error;
  }
}

/** Made in the task image's /tmp before the solution runs: what it changes later is newer. */
const START_MARK = "/tmp/.hsearch-survey-start";

/**
 * The files (not folders) changed since START_MARK in the container's own file system, outside the workspace and
 * the places the sandbox or the kernel keeps (/tmp, /proc, the verifier's mounts, logs and caches).
 */
function changedOutside(root: string): string {
  const skip = [
    root,
    "/proc",
    "/sys",
    "/dev",
    "/run",
    "/tmp",
    "/var/tmp",
    "/logs",
    "/tests",
    "/var/log",
    "/var/cache",
  ];
  const prune = skip.map((path) => `-path '${path.replace(/'/g, `'\\''`)}'`).join(" -o ");
  return `find / -xdev \\( ${prune} \\) -prune -o ! -type d -cnewer ${START_MARK} -print 2>/dev/null | head -n 2000`;
}

/**
 * The changed files as places, sorted: the folder two levels down they are in (`/etc/nginx`, `/git/server`), or the
 * top-level one for a file right below it (`/etc/passwd` → `/etc`).
 */
function placesOf(listing: string): string[] {
  const places = new Set<string>();
  for (const line of listing.split("\n")) {
    const parts = line.split("/").filter(Boolean);
    if (parts.length > 0) places.add(`/${parts.slice(0, parts.length > 2 ? 2 : 1).join("/")}`);
  }
  return [...places].sort();
}

/** Where the sandbox shows the workspace: /app and /workspace, the task's own work directory, or its image's WORKDIR. */
function workspaceRoots(task: TerminalTask, root: string): string[] {
  const own = task.env.image ? [root] : ["/app", "/workspace", root];
  return [...new Set([...own, ...(task.env.workdir && !task.env.image ? [task.env.workdir] : [])])];
}

async function readInitialState(
  workspace: string,
  instruction: string,
  root: string,
): Promise<{ initial: WorkspaceState; named: string[] }> {
  const snapshot = await snapshotWorkspace(workspace);
  const initial = new Map<string, WorkspaceEntry>();
  const named: string[] = [];
  for (const [path, entry] of [...snapshot.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const size = entry.kind === "file" ? Number((await lstat(join(workspace, path))).size) : 0;
    const record: WorkspaceEntry = { kind: entry.kind, hash: entry.hash, mode: entry.mode, size };
    if (namedIn(instruction, path, root)) {
      named.push(path);
      if (entry.kind === "file" && size <= TEXT_LIMIT_BYTES) {
        const text = asText(await readFile(join(workspace, path)));
        if (text !== undefined) record.text = text;
      }
    }
    initial.set(path, record);
  }
  return { initial, named };
}

/** The bytes as text when they are UTF-8 without NUL bytes (what an editor would open as text). */
function asText(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  const text = bytes.toString("utf8");
  return Buffer.from(text, "utf8").equals(bytes) ? text : undefined;
}
