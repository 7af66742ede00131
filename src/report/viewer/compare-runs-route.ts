/**
 * The registration point of `/compare-runs` (`hsearch compare A B --view`): the viewer of run A also serves A
 * beside B. Both directories are read afresh on each request (a run still going changes), with the same loaders
 * `hsearch compare` uses; a comparison that cannot be made is a page saying why.
 */

import { compareRuns, loadSide } from "../../compare";
import { isHsearchError } from "../../core";
import type { RunRecord } from "../../store/types";
import { html } from "../html/html";
import { page } from "../html/page";
import type { ViewerLinks } from "./compare-pages";
import { renderRunComparisonPage } from "./compare-runs-page";
import { viewerNav } from "./nav";

export const COMPARE_RUNS_PATH = "/compare-runs";

export interface CompareRunsOptions {
  /** The other run or evaluation directory (B). */
  with: string;
  /** Names of the harnesses compared (default: each side's selection or evaluated harness). */
  candidateA?: string;
  candidateB?: string;
}

export async function compareRunsReply(
  runDir: string,
  run: RunRecord | undefined,
  options: CompareRunsOptions,
  links: ViewerLinks,
): Promise<{ status: number; body: string }> {
  const nav = run ? viewerNav(run) : html`<nav class="top"><strong>hsearch view</strong></nav>`;
  try {
    const comparison = await compareRuns(
      await loadSide(runDir, options.candidateA),
      await loadSide(options.with, options.candidateB),
    );
    return { status: 200, body: renderRunComparisonPage(comparison, nav, links) };
  } catch (error) {
    if (!isHsearchError(error)) throw error;
    const body = html`<h1>Compare two runs</h1><p class="worse">${error.describe()}</p>`;
    return { status: 400, body: page({ title: "compare · cannot compare", nav }, body) };
  }
}
