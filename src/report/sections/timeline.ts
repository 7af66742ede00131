/**
 * A trajectory as a readable timeline: one row per event with its step, its author (agent, harness, customer, or
 * env for tool results) and what happened. A focus marker shows the step to look at (the decisive step of a blocked
 * task); the events well before it fold away so the decisive moment is what one reads first.
 */
import type { Trajectory, TrajectoryEvent } from "../../harness/trajectory";
import { type Html, html } from "../html";

export interface TimelineOptions {
  focus?: { step: number; label: string };
  /** Fold the events before the step preceding the focus into a closed <details>. */
  foldBeforeFocus?: boolean;
}

// Longer texts fold away; shorter ones show in a box that scrolls past a few lines (CSS max-height).
const LONG_TEXT = 4000;
const LONG_LINES = 60;

/** Who wrote an event: tool results come from the environment; gate refusals and protocol turns from the harness. */
export function eventAuthor(event: TrajectoryEvent): string {
  switch (event.type) {
    case "observation":
      return "env";
    case "gate_refusal":
    case "protocol":
      return "harness";
    default:
      return event.author;
  }
}

export function renderTimeline(trajectory: Trajectory, options: TimelineOptions = {}): Html {
  const focus = options.focus;
  const events = trajectory.events;
  const foldEnd = focus && options.foldBeforeFocus ? events.findIndex((e) => e.step >= focus.step - 1) : -1;
  const folded = foldEnd >= 3 ? events.slice(0, foldEnd) : [];
  const shown = events.slice(folded.length);
  const rows: Html[] = [];
  if (folded.length > 0) {
    const last = folded[folded.length - 1]?.step ?? 0;
    rows.push(
      html`<li class="marker end"><details class="earlier"><summary>${folded.length} earlier events (steps 0–${last})</summary><ol class="timeline">${folded.map(renderEvent)}</ol></details></li>`,
    );
  }
  let marked = focus === undefined;
  for (const event of shown) {
    if (!marked && focus && event.step >= focus.step) {
      rows.push(html`<li class="marker">▸ ${focus.label}</li>`);
      marked = true;
    }
    rows.push(renderEvent(event));
  }
  if (!marked && focus) rows.push(html`<li class="marker">▸ ${focus.label} (never reached)</li>`);
  const end = trajectory.end;
  rows.push(
    html`<li class="marker end">end: ${end.reason.replaceAll("_", " ")} at step ${end.step} · reward ${trajectory.reward ?? "–"}${end.error ? ` · ${end.error}` : ""}</li>`,
  );
  return html`<ol class="timeline">${rows}</ol>`;
}

function renderEvent(event: TrajectoryEvent): Html {
  const who = eventAuthor(event);
  const { what, body, cls } = describe(event);
  return html`<li class="${cls}"><span class="step">step ${event.step}</span><span class="who ${who}">${who}</span><div class="body"><span class="what">${what}</span>${body}</div></li>`;
}

function describe(event: TrajectoryEvent): { what: string; body: Html; cls: string } {
  switch (event.type) {
    case "message":
      if (event.author === "system")
        return {
          what: "system prompt",
          body: folded(event.text, `${event.text.length} characters`),
          cls: "",
        };
      return { what: "says", body: text(event.text), cls: "" };
    case "tool_call":
      return { what: "calls", body: html`<code>${event.name}</code> ${args(event.arguments)}`, cls: "" };
    case "observation":
      return {
        what: event.ok ? `${event.name} returned` : `${event.name} failed`,
        body: text(event.text),
        cls: "",
      };
    case "effect":
      return {
        what: event.forbidden ? "FORBIDDEN state change" : "state change",
        body: html`<code>${event.tool}</code> ${args(event.arguments)}${event.files?.length ? html` <span class="muted small">files: ${event.files.join(", ")}</span>` : ""}`,
        cls: event.forbidden ? "forbidden" : "",
      };
    case "assessment":
      return {
        what: `assessment: ${event.status}${event.label ? ` (${event.label})` : ""}`,
        body: text(event.reason),
        cls: "",
      };
    case "deferral":
      return {
        what: `certified deferral via ${event.via}${event.label ? ` (${event.label})` : ""}`,
        body: text(event.reason),
        cls: "deferral",
      };
    case "report":
      return {
        what: `report: ${event.status}${event.label ? ` (${event.label})` : ""}`,
        body: html`${event.blocker ? html`<div>blocker: ${event.blocker}</div>` : ""}${event.evidence ? html`<div class="muted">evidence: ${event.evidence}</div>` : ""}`,
        cls: "",
      };
    case "completion_claim":
      return { what: "claims the task is done", body: text(event.text), cls: "" };
    case "gate_refusal":
      return { what: "effect gate refused", body: html`<code>${event.tool}</code>`, cls: "gate" };
    case "protocol":
      return { what: "protocol turn", body: html`<code>${event.name}</code>`, cls: "" };
  }
}

function text(value: string): Html {
  const lines = value.split("\n").length;
  if (value.length <= LONG_TEXT && lines <= LONG_LINES) return html`<pre>${value}</pre>`;
  return folded(value, `${value.length} characters, ${lines} lines`);
}

function folded(value: string, size: string): Html {
  const preview = value.split("\n", 1)[0]?.slice(0, 110) ?? "";
  return html`<details><summary>${preview}… (${size})</summary><pre>${value}</pre></details>`;
}

function args(value: Record<string, unknown>): Html {
  const compact = JSON.stringify(value);
  if (compact.length <= 160) return html`<span class="mono">${compact}</span>`;
  return html`<pre>${JSON.stringify(value, null, 2)}</pre>`;
}
