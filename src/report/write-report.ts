import { renameSync, writeFileSync } from "node:fs";
import { openRunStore } from "../store";
import { renderReport } from "./render-report";
import { loadReportData } from "./report-data";

/**
 * Writes the report of the run in `runDir` to `file` (default `<runDir>/report.html`) and returns the path. The
 * run database is opened read-only, so this is safe beside a running search; the file is replaced atomically.
 */
export async function writeReport(runDir: string, file?: string, now?: Date): Promise<string> {
  const store = openRunStore(runDir, { readonly: true });
  let document: string;
  try {
    document = renderReport(await loadReportData(store, { now }));
  } finally {
    store.close();
  }
  const target = file ?? store.paths.report;
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, document);
    renameSync(temporary, target);
  } catch (error) {
    // The user named the report, not its temporary sibling: a failure (a missing or non-directory parent) names it.
    if (error instanceof Error && "path" in error) error.path = target;
    throw error;
  }
  return target;
}
