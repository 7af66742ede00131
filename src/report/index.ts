/** The HTML report, its SVG plot and the local viewer (docs/DESIGN.md §8, §9). */

export { FAILURE_MODES } from "./html/diagnostics-plot";
export { evalResumeCommand, viewCommand } from "./html/format";
export { escapeHtml, Html, html } from "./html/html";
export { page } from "./html/page";
export { loadStoredProbe } from "./html/probe-page";
export { renderReport } from "./html/render-report";
export { type PlotRound, scorePlotSvg } from "./html/score-plot";
export { writeReport } from "./html/write-report";
export type { Comparison, Difference, Rate } from "./model/compare";
export { summaryRate, wilson } from "./model/compare";
export { storedComparisons } from "./model/comparisons";
export type { EvalReport } from "./model/eval-data";
export { evalReport, loadStoredEvaluation } from "./model/eval-data";
export { loadReportData, objectiveDelta, type ReportData } from "./model/report-data";
export type { RunMetricCell, RunMetricTable } from "./model/run-metrics";
export { runMetricModules, runMetricTable } from "./model/run-metrics";
export { isLoopbackHost } from "./viewer/access";
export { type StartedViewer, startViewer, type ViewerOptions } from "./viewer/server";
