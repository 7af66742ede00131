/**
 * Pairing statistics: two harnesses compared on matched (task, seed) episodes. One place for the episode
 * matching, the paired interval of a pass-rate difference (Bonett–Price), McNemar's test (exact conditional, one
 * rule at every count), the paired bootstrap of a mean difference, the per-task paired difference under an
 * objective, and Newcombe's interval for the one unpaired case (two stored rates); diff, compare, the report, the
 * viewer and the acceptance rules all call these. Pure.
 */
export * from "./episodes";
export * from "./format";
export * from "./independent";
export * from "./objective-delta";
export * from "./proportions";
export * from "./task-outcomes";
export * from "./tests";
