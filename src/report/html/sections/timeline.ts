/**
 * A trajectory as a readable timeline: one row per event with its step, its author (agent, harness, customer, or
 * env for tool results) and what happened. A focus marker shows the step to look at (the decisive step of a blocked
 * task); the events well before it fold away so the decisive moment is what one reads first.
 */
import type { Trajectory, TrajectoryEvent } from "../../../harness";
import { type Html, html } from "../html";

export interface TimelineOptions {
  focus?: { step: number; label: string };
  /** Fold the events before the step preceding the focus into a closed <details>. */
  foldBeforeFocus?: boolean;
}

// Longer texts fold away; shorter ones show in a box that scrolls past a few lines (CSS max-height).
const LONG_TEXT = 4000;
const LONG_LINES = 60;

/**
 * Who wrote an event: tool results come from the environment; gate refusals and protocol turns from the harness. A
 * terminal task has no customer: its opening message is the task's instruction.
 */
export function eventAuthor(event: TrajectoryEvent, suite?: string): string {
  switch (event.type) {
    case "observation":
      return "env";
    case "gate_refusal":
    case "protocol":
      return "harness";
    case "message":
      return event.author === "customer" && suite === "terminal" ? "task" : event.author;
    default:
      return event.author;
  }
}

/**
 * The events as rows: a completion claim the agent made in the message just before it (same step, same text) is
 * folded into that message rather than shown twice.
 */
function mergeClaims(events: readonly TrajectoryEvent[]): Array<{ event: TrajectoryEvent; claims: boolean }> {
  const rows: Array<{ event: TrajectoryEvent; claims: boolean }> = [];
  for (const event of events) {
    const previous = rows[rows.length - 1];
    if (
      event.type === "completion_claim" &&
      previous?.event.type === "message" &&
      previous.event.author === event.author &&
      previous.event.step === event.step &&
      previous.event.text === event.text
    ) {
      previous.claims = true;
      continue;
    }
    rows.push({ event, claims: false });
  }
  return rows;
}

export function renderTimeline(trajectory: Trajectory, options: TimelineOptions = {}): Html {
  const focus = options.focus;
  const events = mergeClaims(trajectory.events);
  const renderEvent = (row: { event: TrajectoryEvent; claims: boolean }) =>
    renderRow(row.event, row.claims, trajectory.suite);
  const foldEnd =
    focus && options.foldBeforeFocus ? events.findIndex((e) => e.event.step >= focus.step - 1) : -1;
  const folded = foldEnd >= 3 ? events.slice(0, foldEnd) : [];
  const shown = events.slice(folded.length);
  const rows: Html[] = [];
  if (folded.length > 0) {
    const last = folded[folded.length - 1]?.event.step ?? 0;
    rows.push(
      html`<li class="marker end"><details class="earlier"><summary>${folded.length} earlier events (steps 0–${last})</summary><ol class="timeline">${folded.map(renderEvent)}</ol></details></li>`,
    );
  }
  let marked = focus === undefined;
  for (const event of shown) {
    if (!marked && focus && event.event.step >= focus.step) {
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

function renderRow(event: TrajectoryEvent, claims: boolean, suite: string): Html {
  const who = eventAuthor(event, suite);
  const described = describe(event);
  const base = who === "task" ? "instruction" : described.what;
  const what = claims ? `${base} (and claims the task is done)` : base;
  const { body, cls } = described;
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
        body: html`<code>${event.tool}</code> ${effectTarget(event.arguments)}${event.files?.length ? html` <span class="muted small">files: ${event.files.join(", ")}</span>` : ""}`,
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

/**
 * A tool call's arguments: short ones as compact JSON; a multi-line string (a file's content, a script) as its text
 * under its name, so a written file reads as the file rather than a JSON string full of `\n`.
 */
function args(value: Record<string, unknown>): Html {
  const texts = Object.entries(value).filter(
    (entry): entry is [string, string] => typeof entry[1] === "string" && entry[1].includes("\n"),
  );
  if (texts.length === 0) {
    const compact = JSON.stringify(value);
    if (compact.length <= 160) return html`<span class="mono">${compact}</span>`;
    return html`<pre>${JSON.stringify(value, null, 2)}</pre>`;
  }
  const multiline = new Set(texts.map(([key]) => key));
  const rest = Object.fromEntries(Object.entries(value).filter(([key]) => !multiline.has(key)));
  return html`${Object.keys(rest).length > 0 ? html`<span class="mono">${JSON.stringify(rest)}</span>` : ""}${texts.map(
    ([key, content]) =>
      html`<div class="file-text"><span class="muted small">${key}:</span><pre>${content}</pre></div>`,
  )}`;
}

/** What a state change touched, without repeating the content its tool call already showed. */
function effectTarget(value: Record<string, unknown>): Html {
  const short = Object.fromEntries(
    Object.entries(value).filter(([, item]) => !(typeof item === "string" && item.includes("\n"))),
  );
  return Object.keys(short).length > 0 ? html`<span class="mono">${JSON.stringify(short)}</span>` : html``;
}
