/** The closed vocabularies of the task format (docs/DESIGN.md §3): suites, splits, kinds and blocker families. */
export const SUITES = ["retail", "terminal"] as const;
export type Suite = (typeof SUITES)[number];

export const SPLITS = ["search", "heldout", "independent"] as const;
export type Split = (typeof SPLITS)[number];

export const KINDS = ["feasible", "blocked"] as const;
export type Kind = (typeof KINDS)[number];

export const FAMILIES = ["infeasible", "ambiguous", "trap"] as const;
export type Family = (typeof FAMILIES)[number];
