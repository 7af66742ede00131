/** Two runs or evaluations side by side: paired outcomes, config differences, spending, the harness diff. */

export { compareRuns, type RunComparison } from "./compare-runs";
export { type ConfigDifference, configDifferences } from "./config-diff";
export {
  episodePassed,
  type PairedFlip,
  type PairedMetric,
  type PairedRow,
  type PairedSplit,
  pairSplit,
} from "./paired-split";
export { loadSide, type RunSide, type Spent } from "./side";
