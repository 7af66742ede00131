/** What a viewer page answers, and the pages every viewer shares (not found, waiting for a run). Pure. */
import type { RunRecord } from "../../store/types";
import { html } from "../html/html";
import { page } from "../html/page";
import { viewerNav } from "./nav";

export interface Reply {
  status: number;
  body: string;
  /** Default text/html. */
  type?: string;
}

export function text(status: number, body: string): Reply {
  return { status, body: body.endsWith("\n") ? body : `${body}\n`, type: "text/plain" };
}

/** A 404 page with the navigation, so a wrong link is one click from the report (the run's nav when known). */
export function notFound(what = "no such page", run?: RunRecord): Reply {
  const nav = run
    ? viewerNav(run)
    : html`<nav class="top"><strong>hsearch view</strong><a href="/">home</a></nav>`;
  const body = html`<h1>Not found</h1><p class="not-found">${what}</p>
<p class="muted">Start again from <a href="/">the ${run && run.kind !== "search" ? (run.kind === "eval" ? "evaluation" : "probe") : "report"}</a>${run?.kind === "search" ? html` or <a href="/candidates">the candidates</a>` : ""}.</p>`;
  return { status: 404, body: page({ title: "not found · hsearch view", nav }, body) };
}

/** Before the run has written its database: a page that keeps checking and becomes the report when it can. */
export function waiting(runDir: string): Reply {
  const body = html`<h1>Waiting for the run to start</h1><p class="muted">No run has been recorded in <code>${runDir}</code> yet. This page updates itself once <code>hsearch run</code> has created it.</p>`;
  return {
    status: 200,
    body: page(
      {
        title: "hsearch view · waiting",
        nav: html`<nav class="top"><strong>hsearch view</strong></nav>`,
        live: true,
      },
      body,
    ),
  };
}
