/** The one stylesheet of the report and the viewer, inlined so a report is a single self-contained file. */
export const STYLES = `
:root {
  --ink: #1f2328; --muted: #656d76; --faint: #8c959f; --line: #d8dee4; --soft: #f6f8fa; --paper: #fdfdfc;
  --good: #1a7f37; --bad: #c2410c; --warn: #9a6700; --accent: #3b5b8c;
  --agent: #2f5f9e; --harness: #7a4fa3; --customer: #9a6700; --env: #57606a;
  --add-bg: #e8f7ec; --add-ink: #116329; --del-bg: #fdecea; --del-ink: #a1261a; --hunk-bg: #eef3fb;
}
* { box-sizing: border-box; }
html { background: var(--paper); }
body {
  margin: 0 auto; padding: 28px 32px 64px; max-width: 1120px; color: var(--ink);
  font: 14px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
h1 { font-size: 22px; font-weight: 600; margin: 0 0 4px; }
h2 { font-size: 17px; font-weight: 600; margin: 40px 0 10px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 14px; font-weight: 600; margin: 22px 0 8px; }
p { margin: 6px 0 10px; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
h1 code, h2 code, h3 code { font-size: 0.92em; }
.muted { color: var(--muted); }
.small { font-size: 12.5px; }
.subtitle { color: var(--muted); margin: 0 0 18px; }
nav.toc { display: flex; flex-wrap: wrap; gap: 4px 16px; padding: 8px 0 10px; border-bottom: 1px solid var(--line); font-size: 13px; }
nav.top { display: flex; gap: 18px; font-size: 13px; margin-bottom: 18px; color: var(--muted); }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 500; background: var(--soft); border: 1px solid var(--line); color: var(--muted); }
.badge.finished, .badge.accepted, .badge.passed { color: var(--good); border-color: #aedcbc; background: #f0faf3; }
.badge.failed, .badge.invalid { color: var(--bad); border-color: #f4c7b2; background: #fdf3ee; }
.badge.running, .badge.pending { color: var(--accent); border-color: #bccbe3; background: #f1f5fb; }
.badge.indecisive { color: var(--warn); border-color: #e6d08f; background: #fdf8e8; }
.banner { padding: 10px 14px; border-radius: 6px; margin: 14px 0; border: 1px solid var(--line); background: var(--soft); }
.banner.failed { border-color: #f4c7b2; background: #fdf3ee; }
.banner.running { border-color: #bccbe3; background: #f1f5fb; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 10px; margin: 16px 0 6px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; background: #fff; }
.card .label { font-size: 12px; color: var(--muted); }
.card .value { font-size: 18px; font-variant-numeric: tabular-nums; margin-top: 2px; }
.card .value .from { color: var(--faint); font-size: 14px; }
table { border-collapse: collapse; width: 100%; margin: 8px 0 14px; background: #fff; }
th, td { padding: 5px 9px; border-bottom: 1px solid #eaeef2; text-align: left; vertical-align: top; }
th { font-weight: 600; font-size: 12.5px; color: var(--muted); background: var(--soft); border-bottom: 1px solid var(--line); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.round-start td { border-top: 1px solid var(--line); }
tr.accepted-row { background: #f5fbf7; }
td.rationale { max-width: 560px; overflow-wrap: anywhere; }
td.rationale .reason { color: var(--muted); font-size: 12.5px; margin-top: 2px; }
table.kv { width: auto; min-width: 420px; }
table.kv th { background: none; border-bottom: 1px solid #eaeef2; font-weight: 500; white-space: nowrap; }
table.metrics td.sel { font-weight: 600; }
table.metrics th.group { text-align: center; border-left: 1px solid var(--line); }
table.metrics td.first, table.metrics th.first { border-left: 1px solid var(--line); }
table.metrics td.cmp { font-size: 12.5px; border-left: 1px solid var(--line); }
table.metrics td.cmp .side { white-space: nowrap; }
table.metrics td.cmp .delta { margin-top: 1px; }
.table-scroll { overflow-x: auto; }
.better { color: var(--good); }
.kn { color: var(--muted); font-size: 12px; }
.ci { color: var(--faint); font-size: 11.5px; }
.unclear { color: var(--ink); }
.who.task { color: var(--accent); }
.side-by-side { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; }
.side-by-side > div { min-width: 0; }
.file-text pre { max-height: 260px; }
.worse { color: var(--bad); }
.plot { border: 1px solid var(--line); border-radius: 6px; background: #fff; padding: 8px; overflow-x: auto; }
.plot svg { display: block; width: 100%; height: auto; }
.panels { display: flex; flex-wrap: wrap; gap: 10px; }
.panels svg { border: 1px solid var(--line); border-radius: 6px; background: #fff; max-width: 100%; height: auto; }
.change { margin: 18px 0 26px; }
.change .meta { margin-bottom: 6px; }
pre.diff { margin: 0; padding: 8px 0; border: 1px solid var(--line); border-radius: 6px; background: #fff; overflow-x: auto; line-height: 1.45; }
pre.diff span { display: block; padding: 0 12px; white-space: pre; }
pre.diff .d-add { background: var(--add-bg); color: var(--add-ink); }
pre.diff .d-del { background: var(--del-bg); color: var(--del-ink); }
pre.diff .d-hunk { background: var(--hunk-bg); color: var(--accent); }
pre.diff .d-file { color: var(--ink); font-weight: 600; }
pre.diff .d-meta { color: var(--faint); }
pre.diff del { text-decoration: none; background: #f8c9c2; border-radius: 2px; }
pre.diff ins { text-decoration: none; background: #b7e6c4; border-radius: 2px; }
ul.change-summary { margin: 4px 0 10px; padding-left: 18px; }
th.sort-handle { cursor: pointer; user-select: none; }
th[data-sorted="asc"]::after { content: " ▲"; } th[data-sorted="desc"]::after { content: " ▼"; }
.filter-bar { display: flex; gap: 10px; align-items: center; margin: 6px 0 0; }
.filter-bar input { font: inherit; padding: 3px 8px; border: 1px solid var(--line); border-radius: 4px; min-width: 260px; }
.badge.selected { color: #fff; background: var(--good); border-color: var(--good); }
.badge.incumbent { color: #fff; background: var(--accent); border-color: var(--accent); }
pre.file { white-space: pre-wrap; background: var(--soft); padding: 8px 10px; border-radius: 4px; max-height: 600px; overflow: auto; }
.example { margin: 20px 0 30px; }
.example .head { display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
ol.timeline { list-style: none; margin: 8px 0 0; padding: 0; border-left: 2px solid var(--line); }
ol.timeline > li { position: relative; margin: 0 0 0 0; padding: 5px 10px 5px 14px; display: grid; grid-template-columns: 54px 82px minmax(0, 1fr); gap: 10px; }
ol.timeline > li .step { color: var(--faint); font-size: 12px; font-variant-numeric: tabular-nums; padding-top: 1px; }
ol.timeline > li .who { font-size: 12px; font-weight: 600; padding-top: 1px; }
ol.timeline > li .body { min-width: 0; overflow-wrap: anywhere; }
ol.timeline > li .what { font-size: 12px; color: var(--muted); margin-right: 6px; }
ol.timeline > li pre { margin: 2px 0 0; white-space: pre-wrap; word-break: break-word; background: var(--soft); padding: 6px 8px; border-radius: 4px; max-height: 150px; overflow: auto; }
.who.agent { color: var(--agent); } .who.harness { color: var(--harness); } .who.customer { color: var(--customer); }
.who.env, .who.system { color: var(--env); }
li.marker { display: block !important; padding: 4px 14px !important; font-size: 12px; font-weight: 600; color: var(--accent); background: #f1f5fb; border-radius: 0 4px 4px 0; }
li.marker.end { color: var(--muted); background: var(--soft); }
li.deferral { background: #f0faf3; }
li.forbidden { background: #fdf3ee; }
li.forbidden .what { color: var(--bad); font-weight: 600; }
li.gate { background: #f7f2fb; }
details > summary { cursor: pointer; color: var(--muted); font-size: 12.5px; }
details.earlier { margin: 4px 0 4px 14px; }
ul.events { padding-left: 18px; overflow-wrap: anywhere; }
footer { margin-top: 48px; color: var(--faint); font-size: 12px; }
`;
