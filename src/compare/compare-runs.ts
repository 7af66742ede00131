/**
 * Two runs or evaluations side by side (`hsearch compare`, the viewer's /compare-runs): their harnesses on the
 * splits both ran, paired task by task; their configs field by field; what each spent; the diff of the two
 * harnesses by content (two runs have two git repositories). Runs that share no scored episode are bad input.
 */
import { HsearchError } from "../core";
import { diffContents } from "../git";
import type { Purpose } from "../store/types";
import { type ConfigDifference, configDifferences } from "./config-diff";
import { type PairedSplit, pairSplit } from "./paired-split";
import type { RunSide } from "./side";

export interface RunComparison {
  a: Omit<RunSide, "episodes" | "files">;
  b: Omit<RunSide, "episodes" | "files">;
  /** Each split both ran, in the order search, held-out, independent. */
  splits: PairedSplit[];
  config: ConfigDifference[];
  /** The unified diff from A's harness to B's ("" when they are the same files). */
  diff: string;
  sameHarness: boolean;
}

const ORDER: readonly Purpose[] = ["search", "heldout", "independent"];

function describeEpisodes(side: RunSide): string {
  const parts = ORDER.flatMap((purpose) => {
    const rollouts = side.episodes[purpose];
    return rollouts ? [`${purpose} ${new Set(rollouts.map((r) => r.task_id)).size} tasks`] : [];
  });
  return parts.length === 0 ? "no episodes" : parts.join(", ");
}

export async function compareRuns(a: RunSide, b: RunSide): Promise<RunComparison> {
  const splits = ORDER.flatMap((purpose) => {
    const [left, right] = [a.episodes[purpose], b.episodes[purpose]];
    if (!left || !right) return [];
    const split = pairSplit(purpose, left, right);
    return split.paired > 0 ? [split] : [];
  });
  if (splits.length === 0)
    throw new HsearchError(
      "bad_input",
      `${a.dir} and ${b.dir} share no scored episode on a held-out, independent or evaluated split (A ${a.candidate}: ${describeEpisodes(a)}; B ${b.candidate}: ${describeEpisodes(b)}): compare needs the same tasks on both sides`,
    );
  const diff = await diffContents(a.files, b.files);
  const { episodes: _ea, files: _fa, ...aInfo } = a;
  const { episodes: _eb, files: _fb, ...bInfo } = b;
  return {
    a: aInfo,
    b: bInfo,
    splits,
    config: configDifferences(a.config, b.config),
    diff,
    sameHarness: diff.trim() === "",
  };
}
