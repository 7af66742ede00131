/// <reference lib="dom" />
/**
 * The report's layout at 1280 px in a real browser (Debian's Chromium through playwright-core), and the viewer's
 * rollout filter: nothing wider than the page (long tool-call JSON wraps), no cost chart for a run that cost
 * nothing, no "accepted null", one score per row of the rounds table; typing "failed" keeps the failed rollouts.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { episodeOutcome } from "../../src/report/html/eval-page";
import { type StartedViewer, startViewer } from "../../src/report/viewer/server";
import { openRunStore } from "../../src/store";
import type { RunStatus } from "../../src/store/run-status";
import { launchBrowser } from "../helpers/browser";
import { runCli } from "../helpers/cli";
import { makeRun } from "../report/run-fixture";

let work: string;
let runDir: string;
let status: RunStatus;
let browser: BrowserContext;
let viewer: StartedViewer;

beforeAll(async () => {
  ({ work, runDir, status } = await makeRun());
  browser = await launchBrowser({ width: 1280, height: 900 });
  viewer = await startViewer({ runDir, port: 0 });
});

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
});

describe("the report at 1280 px", () => {
  it("fits the page: no element wider, tool-call JSON wrapped, no empty cost chart, no null, one score per row", async () => {
    const out = join(work, "layout.html");
    expect((await runCli(["report", runDir, "--out", out], { cwd: work })).code).toBe(0);
    const page = await browser.newPage();
    await page.goto(pathToFileURL(out).href);
    const layout = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      // Elements drawn past the right edge (SVG text is measured by its own box, which the plot scales).
      const past = Array.from(document.body.querySelectorAll("*"))
        .filter((el) => !(el instanceof SVGElement) && el.getBoundingClientRect().right > width + 0.5)
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}: ${(el.textContent ?? "").slice(0, 60)}`);
      const calls = Array.from(document.querySelectorAll("ol.timeline .body .mono"));
      const rows = Array.from(document.querySelectorAll("table.rounds tbody tr")).map(
        (row) => (row.children[4]?.textContent ?? "").match(/\d\.\d{3}/g)?.length ?? 0,
      );
      return {
        width,
        scrollWidth: document.documentElement.scrollWidth,
        past,
        longestCall: Math.max(0, ...calls.map((el) => (el.textContent ?? "").length)),
        callsFit: calls.every((el) => {
          const body = el.closest(".body")?.getBoundingClientRect();
          return body !== undefined && el.getBoundingClientRect().right <= body.right + 0.5;
        }),
        titles: Array.from(document.querySelectorAll("svg title, svg [aria-label]")).map(
          (el) => el.textContent || el.getAttribute("aria-label") || "",
        ),
        activity: document.querySelector("#activity")?.textContent ?? "",
        rows,
      };
    });
    expect(layout.width).toBe(1280);
    expect(layout.scrollWidth).toBeLessThanOrEqual(layout.width);
    expect(layout.past).toEqual([]);
    // The examples carry tool calls whose JSON is longer than a column is wide; each wraps inside its event.
    expect(layout.longestCall).toBeGreaterThan(60);
    expect(layout.callsFit).toBe(true);
    // The simulator costs nothing: tokens and time are charted, cost is not.
    expect(layout.titles.some((t) => t.includes("tokens per candidate"))).toBe(true);
    expect(layout.titles.some((t) => t.includes("cost per candidate"))).toBe(false);
    expect(layout.activity).toContain("round");
    expect(layout.activity).not.toMatch(/\bnull\b/);
    expect(layout.rows.length).toBeGreaterThan(0);
    expect(layout.rows.every((n) => n === 1)).toBe(true);
  });
});

describe("the viewer's rollout filter", () => {
  it("keeps exactly the failed rollouts for 'failed', as its placeholder suggests", async () => {
    const seed = status.rounds[0]?.proposals[0]?.commit as string;
    const store = openRunStore(runDir, { readonly: true });
    const failed = store.listRollouts(seed, "search").filter((r) => episodeOutcome(r) === "failed").length;
    store.close();
    expect(failed).toBeGreaterThan(0);
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${viewer.port}/candidates/${seed}?token=${viewer.token}`);
    const input = page.locator('input.table-filter[data-table="rollouts-search"]');
    await expect(input.getAttribute("placeholder")).resolves.toContain("failed");
    await input.fill("failed");
    const shown = await page.evaluate(() =>
      Array.from(document.querySelectorAll("#rollouts-search tbody tr"))
        .filter((row) => !(row as HTMLElement).hidden)
        .map((row) => (row as HTMLElement).dataset.filter),
    );
    expect(shown).toHaveLength(failed);
    expect(new Set(shown)).toEqual(new Set(["failed"]));
  });
});
