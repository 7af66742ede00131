import type { ProtocolName } from "../../config";
import type { SuiteName } from "../../domain";
import type { Harness } from "../../harness";
import type { RejectedProposal } from "../../store/types";
import type { Digest, FamilyRow } from "./digest";

// Apart from proposer-input.ts (which reads the store's search view) because the library exports ProposerInput for
// proposer modules: its declarations must reach no store or database type (test/api/package.e2e.test.ts).

/**
 * Everything a proposer sees in a round (issue 11), the same for the `operators` and the `llm` proposer, a proposer
 * module (src/plugins) and `hsearch digest`: the incumbent's files and rendered system prompt, the tools the agent has, the digest of its
 * search-split outcomes, its parent's per-family table, the lineage of accepted edits with their score deltas, and
 * the proposals rejected in earlier rounds with their diffs. Read only through the search view, so no held-out,
 * independent or diagnostic data can reach it.
 */
export interface ProposerInput {
  round: number;
  /**
   * `name` is the candidate's stable name (`seed`, `r2p1`), which the llm proposer's prompt uses: commit ids differ
   * from run to run (the run id is a trailer of every commit), and a prompt that held them would never be answered
   * by a request cache shared across runs.
   */
  incumbent: { commit: string; name: string; score: number };
  harness: Harness;
  digest: Digest;
  parent: { commit: string; name: string; score: number | null; families: FamilyRow[] } | null;
  /** Per suite: the system prompt as the agent reads it (the policy shown as a marker) and the tool names. */
  suites: Array<{ suite: SuiteName; system_prompt: string; policy_chars: number; tools: string[] }>;
  /** Every protocol of harness.yaml: whether it is on and what it does. */
  protocols: Array<{ name: ProtocolName; enabled: boolean; description: string }>;
  /** Accepted edits from the seed to the incumbent, oldest first. */
  lineage: LineageStep[];
  /** Proposals of earlier rounds that were not accepted, oldest first, with their diff against their parent. */
  rejected: RejectedWithDiff[];
  /**
   * Every candidate's stable name by commit id: stored texts (a duplicate's reason, a merge's rationale) name
   * commits, and the llm proposer's prompt shows these names in their place.
   */
  names: Record<string, string>;
}

export interface LineageStep {
  round: number;
  commit: string;
  /** `r2p1`: the stable name the prompt shows (see ProposerInput.incumbent). */
  name: string;
  rationale: string;
  score: number | null;
  /** Score minus the parent's score. */
  delta: number | null;
}

export interface RejectedWithDiff extends RejectedProposal {
  parent: string | null;
  diff: string | null;
}
