/// <reference lib="dom" />
/**
 * Comparing in a real browser (Debian's Chromium driven by playwright-core), on two small finished searches of the
 * same tasks (SA-only against joint): the page of the two runs side by side (`hsearch compare A B --view` serves
 * it at /compare-runs) with its paired tables, spending, config differences and diff; and within one run, candidates
 * by name (`/compare/seed/selected`), picked on /candidates, an unknown name answered with the valid ones.
 */
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartedViewer, startViewer } from "../../src/report/viewer/server";
import { launchBrowser } from "../helpers/browser";
import { type ComparedRuns, makeComparedRuns } from "../helpers/compared-runs";

let runs: ComparedRuns;
let viewer: StartedViewer;
let browser: BrowserContext;
let base: string;

beforeAll(async () => {
  runs = await makeComparedRuns();
  viewer = await startViewer({ runDir: runs.a, port: 0, compare: { with: runs.b } });
  base = `http://127.0.0.1:${viewer.port}`;
  browser = await launchBrowser();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
});

describe("two runs side by side in the viewer", () => {
  it("shows both selections, what each spent, the paired tables per split, config differences and the diff", async () => {
    const page = await browser.newPage();
    await page.goto(viewer.url);
    await page.goto(`${base}/compare-runs`);
    await expect(page.locator("h1").textContent()).resolves.toBe("Compare two runs");
    expect(await page.locator('table.sides tr[data-side="A"]').textContent()).toContain("search · sa-only");
    expect(await page.locator('table.sides tr[data-side="B"]').textContent()).toContain("search · joint");
    expect(await page.locator("table.spent").textContent()).toMatch(/rounds\s*1\s*1/);
    for (const split of ["heldout", "independent"]) {
      const section = page.locator(`section#split-${split}`);
      await expect(section.count()).resolves.toBe(1);
      const all = section.locator('tr[data-group="all"][data-metric="pass"]');
      expect(await all.textContent()).toMatch(
        /\d+\/\d+.*\d+\/\d+.*[+-]\d\.\d{3} \[[+-]\d\.\d{2}, [+-]\d\.\d{2}\]/,
      );
      expect(await all.locator("td.mcnemar").textContent()).toMatch(/^\d+ vs \d+ · p = [\d.]+$/);
    }
    const objective = page.locator("table.config-diff tr", { hasText: "objective" });
    expect(await objective.textContent()).toMatch(/"sa-only"\s*"joint"/);
    const harness = await page.locator("h2", { hasText: "Harness diff" }).count();
    expect(harness).toBe(1);
    // A's selected harness is a candidate of this viewer's run: its link opens the candidate's page.
    await page.locator('table.sides tr[data-side="A"] a').click();
    await expect(page.locator("h1").textContent()).resolves.toMatch(/^(r\d+p\d+|seed) · [0-9a-f]{10}$/);
    await page.close();
  }, 120_000);
});

describe("candidates by name in the viewer", () => {
  it("opens /compare/seed/selected from the index's link, and picks two candidates on /candidates", async () => {
    const page = await browser.newPage();
    await page.goto(viewer.url);
    await page.locator("p.seed-to-final a").click();
    await expect(page.locator("h1").textContent()).resolves.toMatch(/^Compare seed → r1p\d$/);
    expect(new URL(page.url()).pathname).toBe("/compare/seed/selected");

    await page.goto(`${base}/candidates`);
    await page.locator("#candidates tbody tr", { hasText: "r1p2" }).locator("a.pick-from").click();
    expect(await page.locator("p.subtitle").textContent()).toContain("Comparing from r1p2");
    await page.locator("#candidates tbody tr", { hasText: "seed" }).locator("a.compare-to").click();
    await expect(page.locator("h1").textContent()).resolves.toBe("Compare r1p2 → seed");
    await page.close();
  }, 120_000);

  it("answers an unknown name with the names that are valid (404)", async () => {
    const page = await browser.newPage();
    await page.goto(viewer.url);
    const response = await page.goto(`${base}/compare/seed/best`);
    expect(response?.status()).toBe(404);
    expect(await page.locator("body").textContent()).toMatch(
      /no candidate 'best' .*valid names: seed, incumbent, selected, r1p1, r1p2/,
    );
    await page.close();
  }, 60_000);
});
