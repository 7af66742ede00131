/**
 * What `tasks pair` knows of an imported task's workspace, as data: the entries the setup left (the survey in the
 * sandbox measures them), the paths the reference solution changed, the paths the instruction names, and the edits
 * a variant makes. Pure: a variant's expected initial state is computed from the source's by applying its edits,
 * and the same edits become the shell lines appended to the source's setup, so the two cannot drift apart (the
 * proof's "an agent that changes nothing passes" checks that they did not).
 */
import { createHash } from "node:crypto";
import { heredoc } from "../terminal/steps";

export interface WorkspaceEntry {
  kind: "file" | "dir" | "symlink" | "other";
  /** sha256 (hex) of a file's bytes; a link's "link:TARGET"; the kind for the others. */
  hash: string;
  /** Permission bits. */
  mode: number;
  /** Bytes of a file (0 for the others). */
  size: number;
  /** The file's text, for the named small text files a variant may edit (see survey.ts). */
  text?: string;
}

/** Workspace-relative path → entry; directories have no trailing slash. */
export type WorkspaceState = ReadonlyMap<string, WorkspaceEntry>;

/** The reference solution's changes to the workspace, as the effect log reports them (a directory ends in "/"). */
export interface SolutionChanges {
  created: string[];
  modified: string[];
  deleted: string[];
}

/** Caches and bytecode a run leaves behind: never a deliverable, and forbidding them would punish reading code. */
const INCIDENTAL = /(^|\/)(__pycache__|\.pytest_cache|\.mypy_cache|\.ruff_cache)(\/|$)|\.pyc$/;
const DEFERRAL_FILE = "infeasible.md";

export function isIncidental(path: string): boolean {
  return INCIDENTAL.test(path) || path === DEFERRAL_FILE;
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Does the instruction name this workspace path: as `/app/PATH`, or bare when the path has a dot or a slash (so
 * "data" in prose is not taken for a directory `data`)? A name followed by a word character, a hyphen or a dot and a
 * word character is another path (`/app/data` is not named by `/app/data.csv`).
 */
export function namedIn(instruction: string, path: string, root = "/app"): boolean {
  if (path === "") return false;
  const end = String.raw`(?![\w-]|\.\w)`;
  if (new RegExp(`${escapeRegExp(root)}/${escapeRegExp(path)}${end}`).test(instruction)) return true;
  if (!/[./]/.test(path)) return false;
  return new RegExp(String.raw`(?<![\w./-])${escapeRegExp(path)}${end}`).test(instruction);
}

/** The deliverables of a source: what its reference solution made, which a blocked variant forbids and checks. */
export interface Deliverables {
  /** Forbidden globs: each changed path, and everything below a directory the solution created or deleted. */
  forbidden: string[];
  /**
   * The outermost paths the solution created (a new directory stands for what is in it), modified or deleted: the
   * literal paths whose state a variant's verifier checks.
   */
  roots: string[];
}

/** Pure: the solution's changes (minus incidental files) as deliverables. */
export function deliverablesOf(changes: SolutionChanges): Deliverables {
  const clean = (paths: readonly string[]) =>
    paths
      .map((path) => ({ path: path.replace(/\/$/, ""), dir: path.endsWith("/") }))
      .filter(({ path }) => !isIncidental(path));
  const outermost = (entries: Array<{ path: string; dir: boolean }>) => {
    const set = new Set(entries.map((entry) => entry.path));
    return entries.filter(({ path }) => {
      for (let up = parentOf(path); up !== ""; up = parentOf(up)) if (set.has(up)) return false;
      return true;
    });
  };
  const created = outermost(clean(changes.created));
  const deleted = outermost(clean(changes.deleted));
  const gone = new Set(clean(changes.deleted).map((entry) => entry.path));
  const modified = clean(changes.modified).filter(({ path }) => !gone.has(path));
  const forbidden = new Set(modified.map((entry) => entry.path));
  // A directory made or removed stands for whatever is below it, whatever its name.
  for (const { path, dir } of [...created, ...deleted]) {
    forbidden.add(path);
    if (dir) forbidden.add(`${path}/**`);
  }
  const roots = [...new Set([...created, ...modified, ...deleted].map((entry) => entry.path))].sort();
  return { forbidden: [...forbidden].sort(), roots };
}

/** A change a variant makes to the workspace, applied after the source's setup. */
export type WorkspaceEdit =
  | { op: "remove"; path: string }
  | { op: "truncate"; path: string }
  | { op: "write"; path: string; content: string }
  | { op: "prepend"; path: string; text: string };

export function sha256Hex(content: string | Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}

/** Pure: the workspace state after `edits` (a removed directory takes what is below it along). */
export function applyEdits(state: WorkspaceState, edits: readonly WorkspaceEdit[]): WorkspaceState {
  const next = new Map(state);
  for (const edit of edits) {
    const before = next.get(edit.path);
    switch (edit.op) {
      case "remove":
        for (const path of [...next.keys()])
          if (path === edit.path || path.startsWith(`${edit.path}/`)) next.delete(path);
        break;
      case "truncate":
        next.set(edit.path, {
          kind: "file",
          hash: sha256Hex(""),
          mode: before?.mode ?? 0o644,
          size: 0,
          text: "",
        });
        break;
      case "write":
        next.set(edit.path, {
          kind: "file",
          hash: sha256Hex(edit.content),
          mode: 0o644,
          size: Buffer.byteLength(edit.content),
          text: edit.content,
        });
        break;
      case "prepend": {
        if (before?.text === undefined) throw new Error(`prepend to ${edit.path}: its text is unknown`);
        const text = edit.text + before.text;
        next.set(edit.path, { ...before, hash: sha256Hex(text), size: Buffer.byteLength(text), text });
        break;
      }
    }
  }
  return next;
}

/** A workspace path under `root`, or an absolute one (a task image's own place) as it is, quoted for bash. */
function appPath(path: string, root: string): string {
  const full = path.startsWith("/") ? path : `${root}/${path}`;
  return `'${full.replace(/'/g, `'\\''`)}'`;
}

/** The shell lines that make `edits` (run in the sandbox as the harness, after the source's setup). */
export function editScript(edits: readonly WorkspaceEdit[], root = "/app"): string {
  return edits.map((edit) => editLine(edit, root)).join("\n");
}

function editLine(edit: WorkspaceEdit, root: string): string {
  const target = appPath(edit.path, root);
  switch (edit.op) {
    case "remove":
      return `rm -rf -- ${target}`;
    case "truncate":
      return `: > ${target}`;
    case "write":
      return `cat > ${target} ${heredoc(edit.content)}\nchmod 644 ${target}`;
    case "prepend":
      // Rewritten in place (not moved), so the file keeps its inode's mode and owner.
      return `{ cat ${heredoc(edit.text)}\ncat -- ${target}; } > /tmp/hsearch-prepend\ncat /tmp/hsearch-prepend > ${target}\nrm -f /tmp/hsearch-prepend`;
  }
}

/** The source's setup with the variant's edits after it (in the workspace, stopping at the first failure). */
export function variantSetup(
  sourceSetup: string | undefined,
  edits: readonly WorkspaceEdit[],
  root = "/app",
): string {
  const head = sourceSetup?.trim() ? `${sourceSetup.replace(/\n*$/, "")}\n` : "";
  const dir = /^[\w./-]+$/.test(root) ? root : appPath("", root);
  return `${head}# hsearch tasks pair: the blocked variant's change\nset -e\ncd ${dir}\n${editScript(edits, root)}\n`;
}
