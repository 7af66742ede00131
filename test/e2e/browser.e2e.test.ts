/// <reference lib="dom" />
/**
 * The report and the viewer in a real browser (Debian's Chromium driven by playwright-core) on a mixed retail +
 * terminal run: follow the run live from before it starts, keep an opened section open across updates, read the
 * static report, compare two candidates, find a flipped task and a terminal trajectory, sort and filter tables.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareRollouts } from "../../src/report/model/compare";
import { type StartedViewer, startViewer } from "../../src/report/viewer/server";
import { openRunStore } from "../../src/store";
import { launchBrowser } from "../helpers/browser";
import { runCli } from "../helpers/cli";
import { compiledCli } from "../helpers/compiled-package";
import { signalAtRollouts, stopped, withSignalPreload } from "../helpers/signal-at-rollouts";
import { makeMixedRun } from "../report/run-fixture";

/** The compiled CLI (test/helpers/compiled-package.ts), which this file starts as a child process. */
let cli: string[];
beforeAll(async () => {
  cli = await compiledCli();
}, 300_000);

let work: string;
let runDir: string;
let config: string;
let viewer: StartedViewer;
let browser: BrowserContext;
let child: ChildProcess | undefined;
let exited: Promise<number | null>;
let base: string;

beforeAll(async () => {
  ({ work, runDir, config } = await makeMixedRun({ rounds: 3, out: "live" }));
  // Opened before the run exists, as a user would right after starting it.
  viewer = await startViewer({ runDir, port: 0, refreshSeconds: 1 });
  base = `http://127.0.0.1:${viewer.port}`;
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  await browser?.close();
  await viewer?.close();
});

const updates = (page: Page) => page.evaluate(() => Number(document.documentElement.dataset.updates ?? "0"));

describe("following a live run in the viewer", () => {
  it("waits for the run, then updates in place: an opened section and the scroll position survive", async () => {
    const page = await browser.newPage();
    await page.goto(viewer.url);
    await expect(page.locator("h1").textContent()).resolves.toBe("Waiting for the run to start");

    // The run pauses itself (SIGSTOP) once it has stored its first rollouts, the seed's, with the seed still under
    // evaluation, until the page has been followed; a run left going could end (and the page stop updating) before
    // the page got there on a loaded machine.
    child = spawn(process.execPath, [...withSignalPreload(cli), "run", config, "--out", runDir], {
      cwd: work,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ...signalAtRollouts(1, "SIGSTOP") },
    });
    const proc = child;
    exited = new Promise((resolve) => proc.on("exit", (code) => resolve(code)));
    await stopped(proc);

    // The waiting page turns into the report without a reload, and shows the proposal under evaluation.
    await page.waitForSelector("table.rounds", { timeout: 90_000 });
    await page.waitForSelector(".in-progress .rollouts-done", { timeout: 90_000 });
    expect(await page.locator(".in-progress").textContent()).toMatch(
      /under evaluation: \d+\/(\d+|\?) rollouts/,
    );

    // A candidate page of the running run: open its system prompt, scroll, and let the page update twice.
    const seed = await page
      .locator("table.rounds tbody tr")
      .first()
      .locator("a")
      .first()
      .getAttribute("href");
    await page.goto(`${base}${seed}`);
    await page.waitForSelector("details#prompt-retail", { timeout: 60_000 });
    expect(await page.locator("body").getAttribute("data-live")).toBe("true");
    await page.locator("details#prompt-retail > summary").click();
    await page.evaluate(() => window.scrollTo(0, 300));
    const scrolled = await page.evaluate(() => window.scrollY);
    const before = await updates(page);
    await page.waitForFunction(
      (n) => Number(document.documentElement.dataset.updates ?? "0") >= n + 2,
      before,
      {
        timeout: 30_000,
      },
    );
    expect(await page.locator("details#prompt-retail").evaluate((d) => (d as HTMLDetailsElement).open)).toBe(
      true,
    );
    expect(await page.evaluate(() => window.scrollY)).toBe(scrolled);
    await page.close();
    proc.kill("SIGCONT");
  }, 180_000);

  it("the run finishes", async () => {
    child?.kill("SIGCONT"); // also when the test above failed while the run was paused
    expect(await exited).toBe(0);
  }, 600_000);
});

describe("the finished mixed run", () => {
  it("has a static report split by suite, with terminal trajectories and no script", async () => {
    const out = join(work, "report.html");
    expect((await runCli(["report", runDir, "--out", out], { cwd: work })).code).toBe(0);
    const page = await browser.newPage();
    await page.goto(pathToFileURL(out).href);
    expect(await page.locator("script").count()).toBe(0);
    const suites = await page.locator("#suites table.compare").first().textContent();
    expect(suites).toContain("retail");
    expect(suites).toContain("terminal");
    expect(suites).toMatch(/\d+\/\d+/);
    const terminal = page.locator('.example[data-suite="terminal"]').first();
    await expect(terminal.count()).resolves.toBe(1);
    expect(await terminal.locator(".who.task").count()).toBeGreaterThan(0);
    expect(await page.locator("#examples").textContent()).not.toMatch(/customer[^\n]*terminal-/);
    // Each example beside the seed's episode of the same task, in the page itself.
    expect(await page.locator(".example .side-by-side.with-seed").count()).toBeGreaterThan(0);
    expect(
      await page.locator("#diagnostics svg", { hasText: "blocked failures of the incumbent" }).count(),
    ).toBe(1);
    await page.close();
  });

  it("compares two candidates in the viewer and opens a flipped task side by side", async () => {
    const store = openRunStore(runDir, { readonly: true });
    const candidates = store.listCandidates().filter((c) => c.score !== null);
    const seed = candidates[0]?.commit as string;
    const other = candidates
      .slice(1)
      .find(
        (c) =>
          compareRollouts(
            "search",
            seed,
            c.commit,
            store.listRollouts(seed, "search"),
            store.listRollouts(c.commit, "search"),
          ).flips.length > 0,
      );
    store.close();
    expect(other).toBeDefined();
    const page = await browser.newPage();
    await page.goto(viewer.url);
    await page.goto(`${base}/compare/${seed}/${other?.commit}`);
    expect(await page.locator("h1").textContent()).toMatch(/^Compare seed → r\dp\d$/);
    expect(await page.locator("table.compare").first().textContent()).toMatch(/strict SA/);
    const flips = page.locator("table.flips").first();
    const flipRows = await flips.locator("tbody tr").count();
    expect(flipRows).toBeGreaterThan(0);

    // Filter the flips, then open one side by side.
    const direction = (await flips.locator("tbody tr").first().getAttribute("data-direction")) as string;
    await page
      .locator("input.table-filter")
      .first()
      .fill(direction === "gain" ? "fail → pass" : "pass → fail");
    const shown = await flips.locator("tbody tr:not([hidden])").count();
    expect(shown).toBeGreaterThan(0);
    expect(await flips.locator(`tbody tr:not([hidden])[data-direction="${direction}"]`).count()).toBe(shown);
    await flips.locator("tbody tr:not([hidden]) a", { hasText: "side by side" }).first().click();
    await page.waitForSelector(".side-by-side");
    expect(await page.locator(".side-by-side ol.timeline").count()).toBe(2);
    await page.close();
  });

  it("finds a terminal trajectory from a candidate's rollouts by filtering, and sorts a table", async () => {
    const page = await browser.newPage();
    await page.goto(viewer.url);
    await page.goto(`${base}/candidates`);
    // Sort the candidate list by score, highest first (click twice).
    const score = page.locator("table#candidates thead th", { hasText: "score" });
    await score.click();
    await score.click();
    const scores = await page.locator("table#candidates tbody tr td:nth-child(4)").allTextContents();
    const numbers = scores.map(Number).filter((n) => Number.isFinite(n));
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));

    await page.locator("table#candidates tbody tr a").first().click();
    await page.waitForSelector("table#rollouts-search");
    await page.locator('input.table-filter[data-table="rollouts-search"]').fill("terminal blocked");
    const row = page.locator("table#rollouts-search tbody tr:not([hidden])").first();
    expect(await row.textContent()).toContain("terminal");
    await row.locator("a").first().click();
    await page.waitForSelector("ol.timeline");
    expect(await page.locator(".who.task").count()).toBeGreaterThan(0);
    expect(await page.locator("h2", { hasText: "Verifier" }).count()).toBe(1);
    await page.close();
  });
});
