/**
 * Tool calls as data for the terminal suite: the steps a skilled agent takes (sim cues) and the reference solution
 * derived from them, so the script the checks run and the calls the simulator makes cannot drift apart.
 */
import { HsearchError } from "../../../core";
import type { ToolCallSpec } from "../../../domain";

export type Step = ToolCallSpec;

export function bash(command: string): Step {
  return { name: "bash", arguments: { command } };
}

export function readFile(path: string): Step {
  return { name: "read_file", arguments: { path } };
}

export function writeFile(path: string, content: string): Step {
  if (!content.endsWith("\n"))
    throw new HsearchError("internal", `write_file ${path}: content must end in a newline`);
  return { name: "write_file", arguments: { path, content } };
}

const HEREDOC = "HSEARCH_EOF";

/** A quoted here-document holding `text` (which must end in a newline and never contain the marker line). */
export function heredoc(text: string, marker = HEREDOC): string {
  if (!text.endsWith("\n")) throw new HsearchError("internal", "a here-document body must end in a newline");
  if (text.split("\n").includes(marker))
    throw new HsearchError("internal", `text contains the marker ${marker}`);
  return `<<'${marker}'\n${text}${marker}`;
}

/**
 * The reference solution: the state-changing steps in order, each bash step in its own subshell started in /app
 * (as every agent call starts in a fresh shell there), each write_file as a here-document. Reads are left out.
 */
export function solutionScript(steps: readonly Step[]): string {
  const body = steps.flatMap((step) => {
    if (step.name === "read_file") return [];
    if (step.name === "bash") return [`(\n${String(step.arguments.command)}\n)`];
    if (step.name === "write_file") {
      const path = String(step.arguments.path);
      return [
        `mkdir -p -- "$(dirname -- '${path}')"\ncat > '${path}' ${heredoc(String(step.arguments.content))}`,
      ];
    }
    throw new HsearchError("internal", `no solution line for a ${step.name} step`);
  });
  return ["#!/bin/bash", "set -euo pipefail", "cd /app", ...body, ""].join("\n");
}

/**
 * The reference of a blocked task: the reads that reveal the blocker (their failure is the point, so it does not
 * stop the script), then the certified deferral with the right reason.
 */
export function deferralScript(reads: readonly Step[], deferral: string, root = "/app"): string {
  const body = reads.flatMap((step) =>
    step.name === "bash" ? [`(\n${String(step.arguments.command)}\n) || true`] : [],
  );
  return [
    "#!/bin/bash",
    `cd ${workspaceWord(root)}`,
    ...body,
    `cat > infeasible.md ${heredoc(deferral)}`,
    "",
  ].join("\n");
}

/** The workspace's path as a shell word: bare when it needs no quotes (/app), else single-quoted. */
export function workspaceWord(root: string): string {
  return /^[\w./-]+$/.test(root) ? root : `'${root.replace(/'/g, `'\\''`)}'`;
}
