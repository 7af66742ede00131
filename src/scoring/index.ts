/** The scorer (docs/DESIGN.md §6): judges, per-episode gates, timeliness, aggregation, calibration, hold, paired tests. */
export * from "./bootstrap";
export * from "./calibration";
export * from "./create-judge";
export * from "./episode";
export { episodeScoreSchema } from "./episode-score-schema";
export * from "./hold";
export type { Judge, JudgeVerdict } from "./judge";
export * from "./judge-input";
export * from "./llm-judge";
export * from "./metrics";
export * from "./objective";
export * from "./pairing";
export * from "./rules-judge";
export * from "./summary";
export type { ProbeReport, ProbeReportInput, StoredSummary } from "./summary-schema";
export { probeReportSchema, roleUsageSchema, SUMMARY_FORMAT, storedSummarySchemas } from "./summary-schema";
export * from "./timeliness";
export * from "./wilson";
