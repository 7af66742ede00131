/** The smaller sections: the run header, usage, configuration and the activity log. */

import { describeStoppedEarly } from "../../../store";
import type { EventRecord, JsonObject, UsageTotal } from "../../../store/types";
import type { ReportData } from "../../model/report-data";
import {
  exportCommand,
  fmtCount,
  fmtDuration,
  fmtRate,
  fmtTime,
  fmtUsd,
  resumeCommand,
  shortSha,
} from "../format";
import { type Html, html } from "../html";

export function renderHeader(data: ReportData): Html {
  const { run, status } = data;
  const duration = fmtDuration(run.created_at, run.ended_at);
  const final = status.selected ?? status.incumbent;
  const banner =
    run.state === "failed"
      ? html`<div class="banner failed"><strong>This run failed.</strong> ${run.error ?? "No error was recorded."} The report shows what was stored before it stopped.</div>`
      : run.state === "running"
        ? html`<div class="banner running"><strong>This run is still running</strong> (or was stopped without finishing; <code>${resumeCommand(data.runDir)}</code> continues it, from any directory). The report shows what is stored so far; the harness marked “incumbent” is the best one yet, not the selected one.</div>`
        : "";
  return html`<h1>Run ${run.id}</h1>
<p class="subtitle">${run.name} · <span class="badge ${run.state}">${run.state}</span> · objective ${run.objective} · seed ${run.seed} · started ${fmtTime(run.created_at)}${duration ? ` · took ${duration}` : ""}</p>
${banner}
${status.stopped_early ? html`<p class="muted">${capitalised(describeStoppedEarly(status.stopped_early))}.</p>` : ""}
${
  final
    ? html`<p>${status.selected ? "Selected" : "Incumbent"} harness: <code>${shortSha(final.commit)}</code> with search score <strong>${fmtRate(final.score)}</strong>${status.selected ? html` (git tag <code>selected</code>; <code>${exportCommand(data.runDir)}</code> exports it)` : ""}.</p>`
    : html`<p class="muted">No harness has been evaluated yet.</p>`
}`;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export function renderUsage(usage: ReportData["status"]["usage"]): Html {
  const rows = (usage.by_model as UsageTotal[]).map(
    (u) =>
      html`<tr><td>${u.role}</td><td class="mono">${u.model}</td><td class="num">${fmtCount(u.calls)}</td><td class="num">${fmtCount(u.cached_calls)}</td><td class="num">${fmtCount(u.input_tokens)}</td><td class="num">${fmtCount(u.cache_read_tokens)} / ${fmtCount(u.cache_write_tokens)}</td><td class="num">${fmtCount(u.output_tokens)}</td><td class="num">${fmtUsd(u.usd)}</td></tr>`,
  );
  const u = usage;
  return html`<p>${fmtCount(u.rollouts)} rollouts stored${u.cached_rollouts > 0 ? `, ${fmtCount(u.cached_rollouts)} of them answered whole from the request cache (free)` : ""}. Costs come from the price table (unknown for a model without a price); simulated models cost nothing. Calls answered by the request cache are counted apart and not billed; prompt-cache tokens are those the provider reported reading / writing.</p>
<table><thead><tr><th>role</th><th>model</th><th class="num">billed calls</th><th class="num">cached calls</th><th class="num">input tokens</th><th class="num">prompt cache read / written</th><th class="num">output tokens</th><th class="num">cost</th></tr></thead>
<tbody>${rows}<tr><td><strong>total</strong></td><td></td><td class="num">${fmtCount(u.calls)}</td><td class="num">${fmtCount(u.cached_calls)}</td><td class="num">${fmtCount(u.input_tokens)}</td><td class="num">${fmtCount(u.cache_read_tokens)} / ${fmtCount(u.cache_write_tokens)}</td><td class="num">${fmtCount(u.output_tokens)}</td><td class="num">${fmtUsd(u.usd)}</td></tr></tbody></table>`;
}

/** A config or event value in YAML's flow style: `{rule: greater}`, `[retail]`. */
function flowValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flowValue).join(", ")}]`;
  if (typeof value === "object" && value !== null)
    return `{${Object.entries(value)
      .map(([key, item]) => `${key}: ${flowValue(item)}`)
      .join(", ")}}`;
  if (typeof value === "string") return /^[\w./:@+-]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === "number" && !Number.isInteger(value)) return String(Number(value.toFixed(4)));
  return String(value);
}

export function renderConfig(config: JsonObject): Html {
  const rows = Object.keys(config)
    .sort()
    .map(
      (key) =>
        html`<tr><th>${key}</th><td class="mono">${typeof config[key] === "string" ? (config[key] as string) : flowValue(config[key])}</td></tr>`,
    );
  return html`<table class="kv"><tbody>${rows}</tbody></table>`;
}

const EVENTS_SHOWN = 15;

export function renderEvents(events: readonly EventRecord[]): Html {
  if (events.length === 0) return html`<p class="muted">No events yet.</p>`;
  const recent = events.slice(-EVENTS_SHOWN).reverse();
  const items = recent.map((event) => {
    const data = Object.entries(event.data)
      .map(
        ([key, value]) =>
          // A null says that nothing was (no proposal accepted), not the word "null".
          `${key} ${value === null ? "none" : typeof value === "string" && /^[0-9a-f]{40}$/.test(value) ? shortSha(value) : typeof value === "string" ? value : flowValue(value)}`,
      )
      .join(" · ");
    return html`<li><span class="muted mono">${fmtTime(event.at)}</span> <strong>${event.kind}</strong> <span class="small">${data}</span></li>`;
  });
  const more =
    events.length > EVENTS_SHOWN
      ? html`<p class="muted small">The latest ${EVENTS_SHOWN} of ${events.length} events, newest first.</p>`
      : "";
  return html`${more}<ul class="events">${items}</ul>`;
}
