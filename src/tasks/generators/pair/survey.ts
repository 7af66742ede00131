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
import { cutMiddle, snapshotWorkspace, UNWATCHED_PLACES, type WorkspaceSnapshot } from "../../../envs";
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
   * In a task's own image: the places outside the workspace the solution changed (`/etc/nginx`, `/git/server`).
   * Where the host reads the container's file system, its changes there are in `changes` by absolute path and
   * `watched` is true; else only these places are known, and no variant can forbid them. Absent on the sandbox path.
   */
  outside?: string[];
  /** The container's own file system was watched: its changes are in `changes` (absolute paths). */
  watched?: boolean;
}

export type SurveyOutcome = { ok: true; survey: SourceSurvey } | { ok: false; reason: string };

export async function surveySource(task: TerminalTask): Promise<SurveyOutcome> {
  const image = task.env.image !== undefined;
  // In a task's own image the container's whole file system is watched too, where the host can read it.
  const first = await surveyWatching(task, image ? ["/"] : []);
  if (first !== "unwatchable") return first;
  return (await surveyWatching(task, [])) as SurveyOutcome;
}

/** `places`: of the task image's file system, watched beside the workspace; "unwatchable" when the host cannot. */
async function surveyWatching(
  task: TerminalTask,
  places: readonly string[],
): Promise<SurveyOutcome | "unwatchable"> {
  let initial: WorkspaceState = new Map();
  let named: string[] = [];
  let root = "/app";
  let outside: string[] | undefined;
  let before: WorkspaceSnapshot = new Map();
  const image = task.env.image !== undefined;
  const watched = watching({ ...task, forbidden: { paths: ["**"] } }, places);
  try {
    // Callers survey only sources with a reference solution (hasReferenceSolution).
    let trace: SolutionTrace | null = null;
    const solved = await runScriptIn(watched, tracedSolution(task.reference.solution ?? ""), {
      before: async (env) => {
        root = env.sandboxWorkspace();
        before = env.currentSnapshot();
        if (image && places.length === 0) await env.runCommand(`touch ${START_MARK}`, { timeoutMs: 30_000 });
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
        if (image && places.length === 0) {
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
    const changes: SolutionChanges = { created: [], modified: [], deleted: [] };
    for (const change of solved.changes)
      if (!isIncidentalOutside(change.path)) changes[change.change].push(change.path);
    // What the solution changed outside the workspace, as it was before: the only outside entries kept.
    const outsideBefore = outsideEntries(before, changes);
    for (const [path, entry] of outsideBefore) (initial as Map<string, WorkspaceEntry>).set(path, entry);
    if (places.length > 0) outside = placesOf(outsidePaths(changes).join("\n"));
    // The idle run's setup is a second one: what differs from the first (a git commit's time, a random token) is
    // not the same in every episode, so a verifier cannot pin it.
    let again: WorkspaceState = new Map();
    const outsideWatch = outsidePaths(changes);
    const idle = await idleReward(watching(task, outsideWatch), async (env) => {
      ({ initial: again } = await readInitialState(env.workspace, task.instruction, root));
      for (const [path, entry] of outsideEntries(env.currentSnapshot(), changes))
        (again as Map<string, WorkspaceEntry>).set(path, entry);
    });
    if (idle !== 0) return { ok: false, reason: `an agent that does nothing scores ${idle}` };
    const unstable = [...new Set([...initial.keys(), ...again.keys()])]
      .filter((path) => initial.get(path)?.hash !== again.get(path)?.hash)
      .sort();
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
        ...(places.length > 0 ? { watched: true } : {}),
      },
    };
  } catch (error) {
    if (isHsearchError(error, "sandbox") && error.location.field === "env.watch") return "unwatchable";
    // The task's setup failed: the source cannot be used (the others go on).
    if (isHsearchError(error, "bad_input")) return { ok: false, reason: error.message };
    throw error;
  }
}

/** The task with these places of its image watched too (none: the task as it is). */
function watching(task: TerminalTask, places: readonly string[]): TerminalTask {
  return places.length === 0 ? task : { ...task, env: { ...task.env, watch: [...places] } };
}

/** The changed paths outside the workspace (absolute), without a folder's trailing slash. */
function outsidePaths(changes: SolutionChanges): string[] {
  return [...new Set([...changes.created, ...changes.modified, ...changes.deleted].map(withoutSlash))]
    .filter((path) => path.startsWith("/"))
    .sort();
}

/** The entries the snapshot had of the outside paths the solution modified or deleted (the created had none). */
function outsideEntries(snapshot: WorkspaceSnapshot, changes: SolutionChanges): Map<string, WorkspaceEntry> {
  const entries = new Map<string, WorkspaceEntry>();
  for (const path of [...changes.modified, ...changes.deleted].map(withoutSlash)) {
    const entry = snapshot.get(path);
    if (path.startsWith("/") && entry)
      entries.set(path, { kind: entry.kind, hash: entry.hash, mode: entry.mode, size: sizeOf(entry) });
  }
  return entries;
}

/** A snapshot's stat fingerprint starts with the size. */
function sizeOf(entry: { kind: string; stat: string }): number {
  return entry.kind === "file" ? Number(entry.stat.split(":")[0]) : 0;
}

function withoutSlash(path: string): string {
  return path.replace(/\/$/, "");
}

/**
 * What a run leaves in the container's own places whoever runs it — the package manager's locks and lists, byte
 * code, an editor's or a shell's history — is never a deliverable (the workspace's own incidental files are left
 * out later, by deliverablesOf).
 */
function isIncidentalOutside(path: string): boolean {
  return (
    path.startsWith("/") &&
    /^\/var\/lib\/(apt|dpkg)\/|^\/var\/lib\/ucf\/|(^|\/)__pycache__(\/|$)|\.pyc$|^\/root\/\.(bash_history|viminfo|lesshst|cache|wget-hsts)(\/|$)/.test(
      path,
    )
  );
}

/** Made in the task image's /tmp before the solution runs: what it changes later is newer. */
const START_MARK = "/tmp/.hsearch-survey-start";

/**
 * The files (not folders) changed since START_MARK in the container's own file system, outside the workspace and
 * the places the sandbox or the kernel keeps (/tmp, /proc, the verifier's mounts, logs and caches): where the
 * host cannot read the container's file system, what the survey says of the work done outside the workspace.
 */
function changedOutside(root: string): string {
  const skip = [root, ...UNWATCHED_PLACES];
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
