import type { Purpose } from "../../store/types";
import { type Html, html, trustedMarkup } from "./html";
import { STYLES } from "./styles";

/** Where the viewer links candidates and rollouts; the static report has no links (it is a single file). */
export interface Links {
  candidate(commit: string): string;
  rollout(purpose: Purpose, key: string): string;
  /** Two candidates compared, by any of their names (the viewer only). */
  compare?(before: string, after: string): string;
  /** Two episodes of the same task side by side (the viewer only). */
  pair?(purpose: Purpose, beforeKey: string, afterKey: string): string;
}

export interface PageOptions {
  title: string;
  /**
   * The viewer's pages of a running run: a small script (served by the viewer, never part of a report) fetches the
   * page again and swaps its sections in place, keeping open sections, scroll, sort and filter.
   */
  live?: boolean;
  /** Navigation above the content (the viewer's). */
  nav?: Html;
}

/** The viewer's script: sort and filter in tables, and in-place updates of a running run's pages. */
export const VIEWER_SCRIPT_PATH = "/assets/viewer.js";

/**
 * A complete HTML document: inline CSS and a content security policy that forbids inline scripts and external
 * loads, so even a bug in escaping could not run code or reach the network. A report (no `nav`) carries no script
 * at all; a viewer page loads only the viewer's own script file.
 */
export function page(options: PageOptions, body: Html): string {
  const viewer = options.nav !== undefined;
  const csp = viewer
    ? "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'self'; connect-src 'self'"
    : "default-src 'none'; style-src 'unsafe-inline'; img-src data:";
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<title>${options.title}</title>
<style>${trustedMarkup(STYLES)}</style>
${viewer ? html`<script src="${VIEWER_SCRIPT_PATH}" defer></script>` : ""}
</head>
<body${options.live ? html` data-live="true"` : ""}>
${options.nav ?? ""}
${body}
</body>
</html>
`.text;
}
