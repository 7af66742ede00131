import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { fitDiff } from "../../src/cli/text/diff-text";
import { createLiveLine, fitToWidth } from "../../src/cli/text/progress";
import { fitLines, formatTable, paintFor, wrapLine } from "../../src/cli/text/table";
import { openRunStore } from "../../src/store";
import type { RunStatus } from "../../src/store/run-status";
import { runCli } from "../helpers/cli";
import { compiledCli } from "../helpers/compiled-package";
import { retailSubset } from "../helpers/task-subset";
import { makeRun } from "../report/run-fixture";

/** The compiled CLI (test/helpers/compiled-package.ts), which this file starts as a child process. */
let cli: string[];
beforeAll(async () => {
  cli = await compiledCli();
}, 300_000);

const CLEAR = "\r\x1b[2K";

describe("tables and the live line fit the terminal", () => {
  it("cuts the flexible column so every line fits, and prints in full without a width", () => {
    const rows = [["1", "r1p1", "a long rationale ".repeat(10)]];
    const fitted = formatTable(["round", "id", "rationale"], rows, { maxWidth: 40 });
    for (const line of fitted.split("\n")) expect([...line].length).toBeLessThanOrEqual(40);
    expect(fitted).toContain("…");
    expect(formatTable(["round", "id", "rationale"], rows)).toContain("a long rationale ".repeat(9).trim());
  });

  it("wraps the other cells inside their column when cutting the flexible one is not enough, losing nothing", () => {
    const rate = (k: number) => `0.${k}00 ${k}/32 [0.${k}1, 0.${k}9]`;
    const header = ["harness", "split", "objective", "strict SA", "AbsRec@1", "solve", "false abst."];
    const rows = [
      ["selected", "heldout", rate(7), rate(6), rate(3), rate(8), rate(1)],
      ["round 3 incumbent", "independent", rate(9), "-", "-", rate(9), rate(0)],
    ];
    const full = formatTable(header, rows);
    expect(Math.max(...full.split("\n").map((line) => line.length))).toBeGreaterThan(140);
    for (const width of [80, 60]) {
      const fitted = formatTable(header, rows, { maxWidth: width, flexColumn: null });
      const lines = fitted.split("\n");
      for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(width);
      if (width < 80) continue;
      // At 80 every word of every cell is still there: the cells wrapped, none was cut.
      const words = fitted.split(/\s+/);
      for (const cell of rows.flat()) for (const word of cell.split(" ")) expect(words).toContain(word);
      expect(fitted).not.toContain("…");
    }
    const comparison = formatTable(
      ["group", "metric", "seed", "selected", "Δ [95%]"],
      [["ambiguous", "strict SA", rate(2), rate(8), "+0.571 [+0.27, +0.75]"]],
      { maxWidth: 80, flexColumn: 0 },
    );
    expect(comparison).toContain("[0.21, 0.29]");
    expect(comparison).toContain("[+0.27, +0.75]");
  });

  it("closes a wrapped cell's colour on each of its lines, so it never runs into the next column", () => {
    const paint = paintFor({ outTTY: true, env: {} }, true);
    const fitted = formatTable(
      ["metric", "Δ [95%]", "note"],
      [["solve", paint.good("+0.571 [+0.27, +0.75]"), "x"]],
      { maxWidth: 28, flexColumn: null },
    );
    const lines = fitted.split("\n").slice(2);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines.filter((l) => l.includes("\x1b[32m")))
      expect(line.indexOf("\x1b[0m"), line).toBeGreaterThan(line.indexOf("\x1b[32m"));
    expect(stripVTControlCharacters(fitted)).toContain("[+0.27, +0.75]");
  });

  it("wraps prose under a hanging indent, keeps a line's own indent, and breaks (never cuts) a long word", () => {
    expect(wrapLine("alpha beta gamma delta", 11, { indent: "  " })).toEqual([
      "alpha beta",
      "  gamma",
      "  delta",
    ]);
    expect(wrapLine("    agent: 12 model calls, 1000 input tokens", 24, { indent: "  " })).toEqual([
      "    agent: 12 model",
      "      calls, 1000 input",
      "      tokens",
    ]);
    expect(wrapLine("/a/very/long/path/without/spaces", 12)).toEqual([
      "/a/very/long",
      "/path/withou",
      "t/spaces",
    ]);
    expect(fitLines("short\nline", 80)).toBe("short\nline");
    expect(fitLines("x ".repeat(100), undefined)).toBe("x ".repeat(100));
  });

  it("continues a long diff line under its own sign, marked ↪; piped, the diff is as git printed it", () => {
    const line = `+${"word ".repeat(30).trim()}`;
    const fitted = fitDiff(`@@ -1 +1 @@\n${line}\n context`, 40).split("\n");
    expect(fitted[0]).toBe("@@ -1 +1 @@");
    expect(fitted[1]?.startsWith("+word")).toBe(true);
    for (const continued of fitted.slice(2, -1)) expect(continued.startsWith("+↪ word")).toBe(true);
    for (const l of fitted) expect([...l].length).toBeLessThanOrEqual(40);
    expect(fitted.at(-1)).toBe(" context");
    expect(fitDiff(line, undefined)).toBe(line);
  });

  it("keeps the live line one row wide and clears it before any message", () => {
    let err = "";
    const io = {
      out: () => {},
      err: (t: string) => {
        err += `${t}\n`;
      },
      errInline: (t: string) => {
        err += t;
      },
      isTTY: true,
      columns: 30,
      cwd: ".",
      env: {},
    };
    const live = createLiveLine(io);
    live.show("x".repeat(100));
    live.print("done");
    expect(err).toBe(`${CLEAR}${"x".repeat(28)}…${CLEAR}done\n`);
    expect(fitToWidth("short", 30)).toBe("short");
  });

  it("colours only on a terminal, never with NO_COLOR or --no-color", () => {
    expect(paintFor({ outTTY: true, env: {} }, undefined).good("a")).toBe("\x1b[32ma\x1b[0m");
    expect(paintFor({ outTTY: true, env: { NO_COLOR: "1" } }, undefined).good("a")).toBe("a");
    expect(paintFor({ outTTY: true, env: {} }, false).good("a")).toBe("a");
    expect(paintFor({ outTTY: false, env: {} }, true).good("a")).toBe("a");
  });
});

describe("hsearch run on a narrow terminal", () => {
  it("never draws a progress line wider than the terminal, and never glues a message to it", async () => {
    const work = mkdtempSync(join(tmpdir(), "hsearch-tty-"));
    const config = join(work, "search.yaml");
    writeFileSync(
      config,
      [
        "name: tty",
        "objective: joint",
        "suites: [retail]",
        `tasks: ${retailSubset({ perFamily: 1 }).dir}`,
        "seed_harness: harnesses/bare",
        "rounds: 1",
        "proposals_per_round: 1",
        "task_model: sim:default",
        "seed: 1",
      ].join("\n"),
    );
    const result = await runCli(["run", config, "--out", join(work, "runs", "tty")], {
      cwd: work,
      io: { isTTY: true, columns: 50 },
    });
    expect(result.code, result.stderr).toBe(0);
    const segments = result.stderr.split(CLEAR);
    const redraws = segments.filter((s) => s.includes("rollouts") && !s.includes("\n"));
    expect(redraws.length).toBeGreaterThan(0);
    for (const segment of segments) {
      const firstLine = segment.split("\n")[0] ?? "";
      if (firstLine.includes(" · rollouts ")) expect([...firstLine].length).toBeLessThanOrEqual(49);
    }
    // The closing message starts a line of its own.
    const lines = result.stderr.split(CLEAR).flatMap((segment) => segment.split("\n"));
    expect(lines.some((line) => /^selected [0-9a-f]{12}\b/.test(line))).toBe(true);
    // Every message fits the terminal too: a longer one wraps (the start line, the closing one).
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(50);
    expect(result.stderr).not.toMatch(/rollouts \d+\/\d+[^\n\r]*selected /);
  }, 240_000);
});

describe("hsearch diff", () => {
  let work: string;
  let runDir: string;
  let status: RunStatus;

  beforeAll(async () => {
    ({ work, runDir, status } = await makeRun());
  });

  it("exits quietly when the reader stops early (| head -1)", () => {
    const node = cli.map((arg) => `"${arg}"`).join(" ");
    const command = `"${process.execPath}" ${node} diff "${runDir}" | head -1; echo "exit \${PIPESTATUS[0]}" >&2`;
    const piped = spawnSync("bash", ["-c", command], { cwd: work, encoding: "utf8" });
    expect(piped.stdout.split("\n").filter(Boolean)).toHaveLength(1);
    expect(piped.stderr).toBe("exit 0\n");
    // A reader that is gone before the first write: the write surely fails with EPIPE.
    const gone = `"${process.execPath}" ${node} diff "${runDir}" | (exec 0<&-; sleep 4); echo "exit \${PIPESTATUS[0]}" >&2`;
    const closed = spawnSync("bash", ["-c", gone], { cwd: work, encoding: "utf8" });
    expect(closed.stderr).toBe("exit 0\n");
  });

  it("always shows verdict, score and reason in each header", async () => {
    const result = await runCli(["diff", runDir], { cwd: work });
    expect(result.code).toBe(0);
    const headers = result.stdout.split("\n").filter((l) => l.startsWith("# round "));
    expect(headers.length).toBeGreaterThan(1);
    for (const header of headers)
      expect(header).toMatch(
        / · (accepted|rejected|indecisive|screened out|invalid|duplicate|evaluated|pending)[^·]* · score (-|\d\.\d{4})[^·]* · reason /,
      );
    // A scored proposal's score against its parent's carries the paired Δ over tasks with its 95% interval.
    const scored = headers.filter((h) => !h.startsWith("# round 0 ") && / · score \d/.test(h));
    expect(scored.length).toBeGreaterThan(0);
    for (const header of scored)
      expect(header).toMatch(
        / · score \d\.\d{4} \(parent \d\.\d{4}, Δ [+-]\d\.\d{3} \[[+-]\d\.\d{3}, [+-]\d\.\d{3}\]\) · /,
      );
  });

  it("answers an empty round with a note, not a bad-input error; a missing round is still an error", async () => {
    const copy = join(work, "runs", "copy");
    cpSync(runDir, copy, { recursive: true });
    const store = openRunStore(copy);
    const last = store.listRounds().at(-1);
    store.startRound((last?.round ?? 0) + 1, last?.incumbent_after ?? (last?.incumbent_before as string));
    store.close();
    const empty = await runCli(["diff", copy, "--round", String((last?.round ?? 0) + 1)], { cwd: work });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain("no proposal became a commit");
    const missing = await runCli(["diff", copy, "--round", "99"], { cwd: work });
    expect(missing.code).toBe(2);
  });

  it("status and status --json give the seed against the final harness by suite, with k/n and intervals", async () => {
    const json = JSON.parse((await runCli(["status", runDir, "--json"], { cwd: work })).stdout);
    expect(json.rounds).toEqual(status.rounds);
    const search = json.suites.find((c: { purpose: string }) => c.purpose === "search");
    expect(search.bySuite).toContainEqual(
      expect.objectContaining({
        group: "retail",
        metric: "strict_sa",
        before: expect.objectContaining({
          k: expect.any(Number),
          n: expect.any(Number),
          low: expect.any(Number),
        }),
      }),
    );
    const table = stripVTControlCharacters((await runCli(["status", runDir], { cwd: work })).stdout);
    expect(table).toMatch(/retail\s+strict SA\s+\d\.\d{3} \d+\/\d+ \[\d\.\d\d, \d\.\d\d\]/);
    // The held-out summary table: every rate cell with k/n and its interval, like the per-suite tables.
    const heldRows = table
      .split("\n")
      .map((line) => /^(selected|incumbent|seed)\s+(heldout|independent)\s+(.*)$/.exec(line)?.[3])
      .filter((rest): rest is string => rest !== undefined);
    expect(heldRows.length).toBeGreaterThanOrEqual(2);
    const cell = String.raw`(-|\d\.\d{3} \d+/\d+ \[\d\.\d\d, \d\.\d\d\])`;
    for (const rest of heldRows) {
      expect(rest).toMatch(new RegExp(`^${cell}(\\s+${cell}){4}\\s*$`));
      expect(rest).toMatch(/^\d\.\d{3} \d+\/\d+ \[/);
    }
  });

  it("compares any two candidates with --from/--to: per-suite rates with k/n and intervals, flips, the diff", async () => {
    const seed = status.rounds[0]?.proposals[0]?.commit as string;
    const final = (status.selected ?? status.incumbent)?.commit as string;
    const result = await runCli(["diff", runDir, "--from", seed.slice(0, 8), "--to", final.slice(0, 8)], {
      cwd: work,
    });
    expect(result.code).toBe(0);
    const out = stripVTControlCharacters(result.stdout);
    expect(out).toContain("McNemar on flips");
    expect(out).toMatch(/retail\s+strict SA\s+\d\.\d{3} \d+\/\d+ \[\d\.\d\d, \d\.\d\d\]/);
    expect(out).toContain("diff --git");
    const bad = await runCli(["diff", runDir, "--from", seed.slice(0, 8)], { cwd: work });
    expect(bad.code).toBe(2);
  });
});
