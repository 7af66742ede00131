import type { Purpose } from "../store";
import { type Html, html, trustedMarkup } from "./html";
import { STYLES } from "./styles";

/** Where the viewer links candidates and rollouts; the static report has no links (it is a single file). */
export interface Links {
  candidate(commit: string): string;
  rollout(purpose: Purpose, key: string): string;
}

export interface PageOptions {
  title: string;
  /** Reload every N seconds (the viewer, while a run is running); a plain meta refresh, no script. */
  refreshSeconds?: number;
  /** Navigation above the content (the viewer's). */
  nav?: Html;
}

/**
 * A complete HTML document: inline CSS, no script, and a content security policy that forbids scripts and
 * external loads, so even a bug in escaping could not run code or reach the network.
 */
export function page(options: PageOptions, body: Html): string {
  const refresh =
    options.refreshSeconds !== undefined
      ? html`<meta http-equiv="refresh" content="${options.refreshSeconds}">`
      : "";
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="referrer" content="no-referrer">
${refresh}
<title>${options.title}</title>
<style>${trustedMarkup(STYLES)}</style>
</head>
<body>
${options.nav ?? ""}
${body}
</body>
</html>
`.text;
}
