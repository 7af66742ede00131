import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { objectiveDelta } from "../../src/report/model/report-data";
import { loadSearchConfig } from "../../src/search/config/load-config";
import { createRunDir, openRunStore } from "../../src/store";
import type { RunStatus } from "../../src/store/run-status";
import { runCli } from "../helpers/cli";
import { HOSTILE_DESCRIPTION, makeRun } from "./run-fixture";

const HOSTILE_RATIONALE = "<script>alert('rationale')</script> keep & stop";
const HOSTILE_REASON = `<img src=x onerror="alert('reason')">`;

let work: string;
let runDir: string;
let status: RunStatus;
let report: string;

beforeAll(async () => {
  ({ work, runDir, status } = await makeRun());
  // A refused proposal whose rationale and reason are hostile, as an LLM proposer could write them.
  const store = openRunStore(runDir);
  store.recordProposalFailure({
    round: 1,
    proposal: 9,
    proposer: "llm",
    rationale: HOSTILE_RATIONALE,
    reason: HOSTILE_REASON,
  });
  store.close();
  const result = await runCli(["report", runDir], { cwd: work });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout.trim()).toBe(join(runDir, "report.html"));
  report = readFileSync(join(runDir, "report.html"), "utf8");
});

const git = (...args: string[]) =>
  execFileSync("git", ["-C", join(runDir, "harness"), ...args], { encoding: "utf8" });

describe("hsearch report on a finished run", () => {
  it("is one self-contained document: inline style, no script, no external asset", () => {
    expect(report.startsWith("<!doctype html>")).toBe(true);
    expect(report).toContain("<style>");
    expect(report).not.toMatch(/<script/i);
    expect(report).not.toMatch(/<link\b/i);
    expect(report).not.toMatch(/\b(src|href)="(https?:)?\/\//i);
    expect(report).toContain("Content-Security-Policy");
  });

  it("has the round table with every proposal, its score and verdict", () => {
    const table = report.slice(
      report.indexOf('<table class="rounds">'),
      report.indexOf("</table>", report.indexOf('<table class="rounds">')),
    );
    expect(table.length).toBeGreaterThan(0);
    for (const round of status.rounds)
      for (const proposal of round.proposals) {
        expect(table).toContain(`<td>${proposal.id}</td>`);
        expect(table).toContain(proposal.commit.slice(0, 10));
        if (proposal.score !== null) expect(table).toContain(proposal.score.toFixed(3));
        // Each proposal names its parent (the seed's id for round 1).
        if (round.round === 1) expect(table).toContain(`<td>${proposal.id}</td><td class="parent">seed</td>`);
      }
    const accepted = status.rounds.filter((r) => r.round > 0 && r.accepted !== null).length;
    expect(accepted).toBeGreaterThan(0);
    expect(table.match(/<span class="badge accepted">accepted<\/span>/g)?.length).toBe(accepted);
    expect(table).toContain("refused");
  });

  it("gives every Δ against the parent a paired 95% interval over tasks, coloured only when it excludes 0", () => {
    const signed = (v: number) => `${v >= 0 ? "+" : "−"}${Math.abs(v).toFixed(3)}`;
    const store = openRunStore(runDir);
    try {
      for (const round of status.rounds) {
        if (round.round === 0) continue;
        for (const p of round.proposals) {
          if (p.score === null) continue;
          const d = objectiveDelta(store, status, p.parent ?? round.incumbent_before, p.commit);
          expect(d).not.toBeNull();
          if (!d) continue;
          const cls = d.clear ? (d.delta > 0 ? "better" : "worse") : "unclear";
          const text = `${signed(d.delta)} <span class="ci">[${signed(d.low)}, ${signed(d.high)}]</span>`;
          const row = report.slice(
            report.indexOf(`<td>${p.id}</td>`),
            report.indexOf("</tr>", report.indexOf(`<td>${p.id}</td>`)),
          );
          expect(row).toContain(`<span class="${cls}"`);
          expect(row).toContain(text);
          if (p.accepted) {
            const at = report.indexOf(`→ ${p.score.toFixed(3)} (Δ <span class="${cls}"`);
            expect(at).toBeGreaterThan(0);
            expect(report.slice(at, report.indexOf("</p>", at))).toContain(text);
          }
        }
      }
    } finally {
      store.close();
    }
  });

  it("plots the incumbent and every scored proposal as SVG", () => {
    const svg = report.slice(report.indexOf("<svg"), report.indexOf("</svg>") + 6);
    expect(svg).toContain('class="score-plot"');
    const scored = status.rounds.flatMap((r) =>
      r.round === 0 ? [] : r.proposals.filter((p) => p.score !== null),
    );
    expect(svg.match(/<circle class="proposal /g)?.length).toBe(scored.length);
    expect(svg.match(/<circle class="incumbent"/g)?.length).toBe(status.rounds.length);
    expect(svg).not.toMatch(/NaN|undefined|Infinity/);
  });

  it("shows the escaped, coloured diff of every accepted proposal", () => {
    for (const round of status.rounds) {
      if (round.round === 0 || round.accepted === null) continue;
      const diff = git("diff", "--no-color", round.incumbent_before, round.accepted);
      const added = diff.split("\n").find((line) => line.startsWith("+") && !line.startsWith("+++"));
      expect(added).toBeDefined();
      const escaped = (added as string)
        .replaceAll("&", "&amp;")
        .replaceAll("<", "&lt;")
        .replaceAll(">", "&gt;")
        .replaceAll('"', "&quot;")
        .replaceAll("'", "&#39;");
      // The added line as text (edited lines carry <ins> marks around the changed words).
      const addedLines = [...report.matchAll(/<span class="d-add">(.*?)<\/span>/g)].map((m) =>
        (m[1] as string).replace(/<\/?ins>/g, ""),
      );
      expect(addedLines).toContain(escaped);
      expect(report).toContain(`Round ${round.round} · r${round.round}p`);
    }
  });

  it("escapes everything the run provides", () => {
    expect(report).toContain("&lt;script&gt;alert(&#39;rationale&#39;)&lt;/script&gt; keep &amp; stop");
    expect(report).toContain("&lt;img src=x onerror=&quot;alert(&#39;reason&#39;)&quot;&gt;");
    expect(report).toContain(
      "check &lt;script&gt;alert(&#39;config&#39;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;",
    );
    expect(report).not.toContain("<b>bold</b>");
    expect(report).not.toContain("<img src=x");
    expect(HOSTILE_DESCRIPTION).toContain("<script>");
  });

  it("compares seed and selected per family on search and held-out, and feasible results on every split", () => {
    for (const label of [
      "M0 recognition",
      "M1 no fabrication",
      "M2 certified action",
      "M3 correct reason",
      "strict SA",
      "relaxed SA",
      "naive M2",
      "AbsRec@1",
      "AbsRec@3",
      "SPL",
      "post-hoc abstention",
    ])
      expect(report).toContain(label);
    for (const family of ["infeasible", "ambiguous", "trap"])
      expect(report).toContain(`>${family} <span class="muted">(n `);
    expect(report).toContain("<h3>Held-out split</h3>");
    expect(report.match(/<table class="metrics">/g)?.length).toBe(3);
    // Every rate cell with k/n and an interval, and Δ with its interval.
    const blocked = report.slice(report.indexOf('id="blocked"'), report.indexOf('id="feasible"'));
    expect(blocked).toMatch(
      /strict SA<\/td><td class="num cmp"><div class="side"><span class="muted small">seed<\/span> \d\.\d{3} <span class="kn">\d+\/\d+<\/span> <span class="ci">\[/,
    );
    expect(blocked).toMatch(/<span class="muted small">Δ<\/span> <span class="(unclear|better|worse)"/);
    const feasible = report.slice(report.indexOf('id="feasible"'), report.indexOf('id="changes"'));
    for (const split of ["search", "held-out", "independent"])
      expect(feasible).toContain(`<td>${split}</td>`);
    expect(feasible).toContain("false abstention");
  });

  it("shows example trajectories of the selected harness as timelines with authors and the decisive step", () => {
    const examples = report.slice(report.indexOf('id="examples"'), report.indexOf('id="usage"'));
    expect(examples).toContain("held-out split");
    expect(examples).toContain('<ol class="timeline">');
    expect(examples).toMatch(/Blocked task, (failed|passed)/);
    expect(examples).toMatch(/Feasible task, (failed|passed)/);
    expect(examples).toContain('<li class="marker">▸ decisive step');
    for (const author of ["agent", "customer", "env"])
      expect(examples).toContain(`<span class="who ${author}">${author}</span>`);
    // Examples of every blocked family, not only the first one by task id.
    for (const family of ["infeasible", "ambiguous", "trap"])
      expect(examples).toMatch(new RegExp(`Blocked task, (failed|passed) · ${family}</h3>`));
    // The same task under the seed, beside each example: two timelines per example.
    const pairs = examples.match(/<div class="side-by-side with-seed">/g)?.length ?? 0;
    expect(pairs).toBe(examples.match(/<div class="example"/g)?.length);
    expect(pairs).toBeGreaterThan(0);
    expect(examples.match(/<h4>seed /g)?.length).toBe(pairs);
    expect(examples.match(/<h4>selected /g)?.length).toBe(pairs);
    expect(examples).toMatch(/<h4>seed <span class="badge (passed|failed)">/);
    expect(examples).toMatch(/<h4>selected <span class="badge (passed|failed)">/);
  });

  it("shows usage and the configuration", () => {
    const usage = report.slice(report.indexOf('id="usage"'), report.indexOf('id="config"'));
    expect(usage).toContain("sim:default");
    expect(usage).toContain(`${status.usage.rollouts.toLocaleString("en-US")} rollouts`);
    expect(report).toContain("<th>seed_harness</th>");
  });

  it("writes to --out instead, relative to the working directory", async () => {
    const result = await runCli(["report", runDir, "--out", "elsewhere.html"], { cwd: work });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(join(work, "elsewhere.html"));
    expect(readFileSync(join(work, "elsewhere.html"), "utf8")).toContain('<table class="rounds">');
  });

  it("an --out it cannot write is exit 2 naming that path, not its temporary file", async () => {
    writeFileSync(join(work, "plain"), "a file\n");
    const result = await runCli(["report", runDir, "--out", "plain/report.html"], { cwd: work });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      `hsearch: ${join(work, "plain", "report.html")}: not a directory (ENOTDIR)`,
    );
  });

  it("exits 2 for a run that does not exist", async () => {
    const result = await runCli(["report", "no-such-run"], { cwd: work });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no run 'no-such-run'");
  });
});

describe("hsearch report on unfinished runs", () => {
  it("reports a run that is still running, with the incumbent instead of a selection", async () => {
    const copy = join(mkdtempSync(join(tmpdir(), "hsearch-report-running-")), "run");
    cpSync(runDir, copy, { recursive: true });
    const store = openRunStore(copy);
    store.setRunState("running");
    store.close();
    const result = await runCli(["report", copy]);
    expect(result.code).toBe(0);
    const html = readFileSync(join(copy, "report.html"), "utf8");
    expect(html).toContain("This run is still running");
    // The resume command names the run by its absolute path, so it works from any directory, not only beside runs/.
    expect(html).toContain(`<code>hsearch run --resume ${copy}</code>`);
    expect(html).toContain("Incumbent harness:");
    expect(html).not.toContain("Selected harness:");
    expect(html).toContain('<table class="rounds">');
  });

  it("reports a run that failed before its first round, showing the escaped error", async () => {
    const root = mkdtempSync(join(tmpdir(), "hsearch-report-failed-"));
    const paths = createRunDir(root, "broken");
    const store = openRunStore(paths.dir);
    const config = loadSearchConfig(join(PACKAGE_ROOT, "search-configs", "demo.yaml"));
    store.initRun({ id: "broken", name: "broken", config, seed: 1, objective: "joint" });
    store.setRunState("failed", "provider <b>down</b>");
    store.close();
    const result = await runCli(["report", "broken"], { cwd: root });
    expect(result.code).toBe(0);
    const html = readFileSync(paths.report, "utf8");
    expect(html).toContain("This run failed.");
    expect(html).toContain("provider &lt;b&gt;down&lt;/b&gt;");
    expect(html).toContain("No round has started yet.");
    expect(html).toContain("no scores yet");
    expect(html).toContain("The seed harness has not been evaluated yet.");
    expect(existsSync(join(paths.dir, "harness"))).toBe(false);
  });
});
