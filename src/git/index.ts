/** The harness repository of a run (docs/DESIGN.md §3, §7): seed, proposal commits, incumbent, selection, diff, export. */

export { composeCommitMessage, type HsearchTrailers, parseCommitMessage } from "./commit-message";
export {
  type CommittedProposal,
  commitProposal,
  type ProposalCommit,
  proposalBranch,
} from "./commit-proposal";
export { diffContents } from "./content-diff";
export { type ExportedHarness, exportHarness, PROVENANCE_FILE } from "./export-harness";
export { assertHarnessPath } from "./harness-path";
export { DEFAULT_COMMIT_DATE, type InitializedRepo, type InitOptions, initHarnessRepo } from "./init-repo";
export { type CommitInfo, commitInfo, diff } from "./inspect";
export {
  branchCommit,
  INCUMBENT_BRANCH,
  listProposalBranches,
  moveIncumbent,
  type ProposalBranch,
  SELECTED_TAG,
  tagSelected,
} from "./refs";
export { type RepoSettings, readRepoSettings } from "./repo-settings";
export {
  type HarnessFile,
  listTree,
  materialize,
  readFiles,
  readTree,
  resolveCommit,
  type TreeEntry,
  treeHash,
} from "./tree";
