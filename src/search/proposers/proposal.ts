import { HsearchError } from "../../core";

/**
 * A proposal: file edits to the incumbent harness (new content, or null to delete) and the rationale that becomes
 * the commit message. Paths are relative to the harness root; `assertProposalPaths` refuses anything that could
 * leave it before a proposal reaches git.
 */
export interface Proposal {
  files: Record<string, string | null>;
  rationale: string;
  /** Which operator or proposer made it (a commit trailer). */
  operator: string;
  /** Who proposed it, when not the run's proposer (pareto's merge step). */
  proposer?: string;
}

export function assertProposalPaths(files: Record<string, string | null>): void {
  for (const path of Object.keys(files)) {
    const bad =
      path.length === 0 ||
      path.startsWith("/") ||
      /^[A-Za-z]:/.test(path) ||
      path.includes("\\") ||
      path.split("/").some((part) => part === ".." || part === "." || part === "" || part === ".git");
    if (bad)
      throw new HsearchError("bad_input", `a proposal may only edit files inside the harness: '${path}'`, {
        field: "files",
      });
  }
}

/** The incumbent's files with a proposal's edits applied. */
export function applyProposal(files: Record<string, string>, proposal: Proposal): Record<string, string> {
  const next = { ...files };
  for (const [path, content] of Object.entries(proposal.files)) {
    if (content === null) delete next[path];
    else next[path] = content;
  }
  return next;
}
