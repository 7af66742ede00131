import { describe, expect, it } from "vitest";
import type { Trajectory, TrajectoryEvent } from "../../src/harness/trajectory";
import { html } from "../../src/report/html/html";
import { classifyDiffLine, renderDiff } from "../../src/report/html/sections/diff";
import {
  renderBlockedTable,
  renderFeasibleTable,
  renderHeadline,
} from "../../src/report/html/sections/metrics";
import { renderEvents } from "../../src/report/html/sections/run-info";
import { scoreLine } from "../../src/report/html/sections/score-line";
import { eventAuthor, renderTimeline } from "../../src/report/html/sections/timeline";
import { summarizeChange } from "../../src/report/model/change-summary";
import { compareRollouts } from "../../src/report/model/compare";
import type { RolloutRecord } from "../../src/store";

function trajectory(events: TrajectoryEvent[]): Trajectory {
  return {
    task_id: "t1",
    suite: "retail",
    kind: "blocked",
    family: "trap",
    model: "sim:default",
    harness: "h",
    seed: 1,
    repeat: 0,
    steps: 3,
    events,
    end: { reason: "deferred", step: 3 },
    reward: 1,
    usage: { input_tokens: 0, output_tokens: 0, usd: 0, model_calls: 3 },
  };
}

const EVENTS: TrajectoryEvent[] = [
  { type: "message", step: 0, author: "system", text: "You are an agent. <policy>" },
  { type: "message", step: 0, author: "customer", text: "Cancel order <b>#1</b>" },
  { type: "tool_call", step: 1, author: "agent", id: "c1", name: "get_order", arguments: { id: "<1>" } },
  { type: "observation", step: 1, id: "c1", name: "get_order", text: '{"user": "someone <else>"}', ok: true },
  { type: "tool_call", step: 2, author: "agent", id: "c2", name: "get_user", arguments: { id: "u" } },
  { type: "observation", step: 2, id: "c2", name: "get_user", text: "{}", ok: true },
  { type: "effect", step: 2, author: "harness", tool: "cancel", arguments: {}, forbidden: true },
  { type: "gate_refusal", step: 2, tool: "cancel_order" },
  { type: "protocol", step: 3, name: "self_check" },
  { type: "deferral", step: 3, author: "agent", via: "abstain", label: "trap", reason: "not <yours>" },
];

describe("renderTimeline", () => {
  const out = renderTimeline(trajectory(EVENTS), { focus: { step: 2, label: "decisive step 2" } }).text;

  it("names the author of every event: agent, harness, customer, env for tool results", () => {
    expect(EVENTS.map((e) => eventAuthor(e))).toEqual([
      "system",
      "customer",
      "agent",
      "env",
      "agent",
      "env",
      "harness",
      "harness",
      "harness",
      "agent",
    ]);
    const authors = [...out.matchAll(/<span class="who ([a-z]+)">/g)].map((m) => m[1]);
    expect(authors).toEqual(EVENTS.map((e) => eventAuthor(e)));
  });

  it("marks the focus step right before its first event, and the end", () => {
    const marker = out.indexOf("▸ decisive step 2");
    expect(marker).toBeGreaterThan(out.indexOf("get_order returned"));
    expect(marker).toBeLessThan(out.indexOf("<code>get_user</code>"));
    expect(out).toContain("end: deferred at step 3 · reward 1");
    expect(out).toContain('<li class="deferral">');
    expect(out).toContain('<li class="forbidden">');
    expect(out).toContain("FORBIDDEN state change");
    expect(out).toContain("effect gate refused");
  });

  it("escapes every text and argument and folds the system prompt", () => {
    expect(out).not.toMatch(/<(b|else|yours|policy|1)>/);
    expect(out).toContain("Cancel order &lt;b&gt;#1&lt;/b&gt;");
    expect(out).toContain("&quot;&lt;1&gt;&quot;");
    expect(out).toContain("not &lt;yours&gt;");
    expect(out).toMatch(/<details><summary>You are an agent\. &lt;policy&gt;… \(26 characters\)<\/summary>/);
  });

  it("folds events well before the focus into a closed details block when asked", () => {
    const folded = renderTimeline(trajectory(EVENTS), {
      focus: { step: 3, label: "here" },
      foldBeforeFocus: true,
    }).text;
    expect(folded).toMatch(/<details class="earlier"><summary>4 earlier events \(steps 0–1\)<\/summary>/);
    const unfolded = renderTimeline(trajectory(EVENTS), { focus: { step: 3, label: "here" } }).text;
    expect(unfolded).not.toContain("earlier events");
  });

  it("says when the focus step was never reached", () => {
    const out2 = renderTimeline(trajectory(EVENTS.slice(0, 4)), {
      focus: { step: 5, label: "decisive step 5" },
    }).text;
    expect(out2).toContain("▸ decisive step 5 (never reached)");
  });
});

describe("renderTimeline on a terminal task", () => {
  const content = "#!/bin/sh\necho <done>\n";
  const terminal: Trajectory = {
    ...trajectory([
      { type: "message", step: 0, author: "customer", text: "Back up the logs." },
      {
        type: "tool_call",
        step: 1,
        author: "agent",
        id: "c1",
        name: "write_file",
        arguments: { path: "backup.sh", content },
      },
      {
        type: "effect",
        step: 1,
        author: "agent",
        tool: "write_file",
        arguments: { path: "backup.sh", content },
        forbidden: false,
      },
      { type: "message", step: 2, author: "agent", text: "All done." },
      { type: "completion_claim", step: 2, author: "agent", text: "All done." },
    ]),
    suite: "terminal",
  };
  const out = renderTimeline(terminal).text;

  it("attributes the opening instruction to the task, never to a customer", () => {
    expect(out).toContain('<span class="who task">task</span>');
    expect(out).toContain('<span class="what">instruction</span>');
    expect(out).not.toContain("customer");
  });

  it("shows a written file as its text, once, not as a JSON string with \\n", () => {
    expect(out).toContain("<pre>#!/bin/sh\necho &lt;done&gt;\n</pre>");
    expect(out).not.toContain("\\n");
    expect(out.split("echo &lt;done&gt;").length - 1).toBe(1);
  });

  it("folds a completion claim into the message that made it", () => {
    expect(out.split("All done.").length - 1).toBe(1);
    expect(out).toContain("says (and claims the task is done)");
    expect(out).not.toContain(">claims the task is done<");
  });
});

describe("renderDiff", () => {
  const diff = [
    "diff --git a/system.md b/system.md",
    "index 1..2 100644",
    "--- a/system.md",
    "+++ b/system.md",
    "@@ -1,2 +1,2 @@",
    " keep",
    "-<script>old()</script>",
    "+<script>new()</script>",
    "",
  ].join("\n");

  it("classifies unified diff lines", () => {
    expect(diff.split("\n").slice(0, 8).map(classifyDiffLine)).toEqual([
      "file",
      "meta",
      "file",
      "file",
      "hunk",
      "context",
      "del",
      "add",
    ]);
  });

  it("colours each line by its kind and escapes it", () => {
    const out = renderDiff(diff).text;
    expect(out).toContain('<span class="d-del">-&lt;script&gt;<del>old</del>()&lt;/script&gt;</span>');
    expect(out).toContain('<span class="d-add">+&lt;script&gt;<ins>new</ins>()&lt;/script&gt;</span>');
    expect(out).toContain('<span class="d-hunk">@@ -1,2 +1,2 @@</span>');
    expect(out).not.toContain("<script>");
    expect(out.match(/<span /g)?.length).toBe(8);
    expect(renderDiff("").text).toContain("(no changes)");
  });
});

describe("html templates", () => {
  it("escape interpolations, keep nested templates and drop empty values", () => {
    const inner = html`<i>${"a&b"}</i>`;
    expect(html`<p title="${`"x'`}">${inner}${null}${undefined}${false}${[1, "<2>"]}</p>`.text).toBe(
      '<p title="&quot;x&#39;"><i>a&amp;b</i>1&lt;2&gt;</p>',
    );
  });
});

describe("scoreLine", () => {
  const rollout = (kind: "blocked" | "feasible", scores: Record<string, unknown>) =>
    ({ kind, scores: { kind, ...scores } }) as unknown as RolloutRecord;

  it("marks a good outcome ✓ and a bad one ✗, whichever way the flag is named", () => {
    expect(scoreLine(rollout("feasible", { solve: false, false_abstention: true }))).toBe(
      "solve ✗ · false abstention ✗",
    );
    expect(scoreLine(rollout("feasible", { solve: true, false_abstention: false }))).toBe(
      "solve ✓ · no false abstention ✓",
    );
    const blocked = scoreLine(rollout("blocked", { m0: true, strict_sa: false, post_hoc: true }));
    expect(blocked).toContain("strict SA ✗");
    expect(blocked).toContain("post-hoc refusal ✗");
  });
});

describe("change summaries and word-level diffs", () => {
  it("summarise a YAML change as data, one line each, and name playbook rules by id", () => {
    const before = {
      "harness.yaml": "protocols:\n  self_check: {enabled: false}\n",
      "playbook.yaml": "[]\n",
      "system.md": "a\nb\n",
    };
    const after = {
      "harness.yaml": "protocols:\n  self_check: { enabled: true }\n",
      "playbook.yaml": "- {id: ambiguous-scope, then: abstain}\n",
      "system.md": "a\nc\nd\n",
    };
    expect(summarizeChange(before, after)).toEqual([
      "protocols.self_check.enabled: false → true",
      "+ rule ambiguous-scope",
      "system.md: +2 −1 lines",
    ]);
    // Re-formatting alone is no change.
    expect(
      summarizeChange(before, {
        ...before,
        "harness.yaml": "protocols:\n  self_check:\n    enabled: false\n",
      }),
    ).toEqual([]);
  });

  it("mark the changed words of an edited line", () => {
    const out = renderDiff(
      "@@ -1 +1 @@\n-  self_check: {enabled: false}\n+  self_check: {enabled: true}\n",
    ).text;
    expect(out).toContain('<span class="d-del">-  self_check: {enabled: <del>false</del>}</span>');
    expect(out).toContain('<span class="d-add">+  self_check: {enabled: <ins>true</ins>}</span>');
  });
});

describe("headline figures", () => {
  const results = (role: "seed" | "selected", objective: number) =>
    ({
      role,
      commit: role,
      search: { objective, blocked: null, feasible: null },
      heldout: null,
      independent: null,
    }) as never;
  const episodes = (candidate: string, passes: number, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      key: `${candidate}-${i}`,
      candidate,
      task_id: `retail-${i}`,
      kind: "blocked",
      family: "trap",
      repeat: 0,
      scores: { kind: "blocked", strict_sa: i < passes },
    })) as unknown as RolloutRecord[];

  it("colour a difference only when its 95% interval excludes 0", () => {
    const small = compareRollouts("search", "a", "b", episodes("a", 5, 10), episodes("b", 6, 10));
    const unclear = renderHeadline(results("seed", 0.5), results("selected", 0.6), [small]).text;
    expect(unclear).not.toMatch(/class="(better|worse)"/);
    expect(unclear).toContain("Δ 95% [");
    const large = compareRollouts("search", "a", "b", episodes("a", 0, 20), episodes("b", 20, 20));
    expect(renderHeadline(results("seed", 0), results("selected", 1), [large]).text).toContain(
      'class="better"',
    );
  });
});

describe("the per-family and feasible tables", () => {
  const blocked = (strict: number, n: number) => ({
    n,
    strict_sa: strict,
    m0: 1,
    spl: 0.25,
    post_hoc_rate: 0,
    by_family: { trap: { n, strict_sa: strict, m0: 1, spl: 0.25, post_hoc_rate: 0 } },
  });
  const harness = (role: "seed" | "selected", strict: number, solve: number) =>
    ({
      role,
      commit: role,
      search: {
        objective: null,
        blocked: blocked(strict, 16),
        feasible: { n: 20, solve, false_abstention: 0 },
      },
      heldout: null,
      independent: null,
    }) as never;

  it("show k/n and a 95% interval in every rate cell and Δ with its interval, coloured only when clear", () => {
    const table = renderBlockedTable(harness("seed", 0.25, 0.5), harness("selected", 1, 0.55), "search").text;
    // strict SA of all blocked and of the trap family: 4/16 → 16/16, a clear gain.
    expect(table).toContain('0.250 <span class="kn">4/16</span> <span class="ci">[0.10, 0.49]</span>');
    expect(table).toContain('1.000 <span class="kn">16/16</span> <span class="ci">[0.81, 1.00]</span>');
    expect(table.match(/<span class="better">\+0\.750 <span class="ci">\[/g)).toHaveLength(2);
    // SPL is a mean: its n, no interval.
    expect(table).toMatch(/0\.250 <span class="kn">n 16<\/span>/);
    const feasible = renderFeasibleTable(harness("seed", 0.25, 0.5), harness("selected", 1, 0.55)).text;
    expect(feasible).toContain('0.500 <span class="kn">10/20</span>');
    expect(feasible).toContain('0.550 <span class="kn">11/20</span>');
    // 10/20 → 11/20 is no evidence of a change: not coloured.
    expect(feasible).toMatch(/<span class="unclear" title="the 95% interval contains 0">\+0\.050/);
  });
});

describe("the activity list", () => {
  it("says none where an event's value is null (a round that accepted nothing), never the word null", () => {
    const text = renderEvents([
      {
        id: 1,
        at: "2026-12-02T10:00:00.000Z",
        kind: "round",
        data: { round: 3, accepted: null, score: 0.875 },
      },
    ]).text;
    expect(text).toContain("round 3 · accepted none · score 0.875");
    expect(text).not.toMatch(/\bnull\b/);
  });
});
