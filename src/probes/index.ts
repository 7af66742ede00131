/** The know and hold probes (docs/DESIGN.md §6): beliefs after a read-only episode, and hold under one challenge. */
export * from "./belief-report";
export * from "./beliefs";
export * from "./challenge";
export * from "./hold-status";
export * from "./open-rollout";
export * from "./probe-tools";
