/** The HTML report, its SVG plot and the local viewer (docs/DESIGN.md §8, §9). */
export { escapeHtml, Html, html } from "./html";
export { renderReport } from "./render-report";
export { loadReportData, type ReportData } from "./report-data";
export { type PlotRound, scorePlotSvg } from "./score-plot";
export { type StartedViewer, startViewer, type ViewerOptions } from "./viewer/server";
export { writeReport } from "./write-report";
