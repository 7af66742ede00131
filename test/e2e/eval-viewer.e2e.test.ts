/// <reference lib="dom" />
/**
 * Looking into an evaluation as a new user would, in a real browser (Debian's Chromium driven by playwright-core):
 * two Harbor tasks imported with `hsearch tasks import-harbor` — one whose own solution fails its pytest assertion,
 * one whose setup fails — evaluated with `--model oracle --out DIR`; the viewer's episode pages show the failing
 * assertion and the setup's stderr, and its home page filters the episodes by outcome.
 */
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { type StartedViewer, startViewer } from "../../src/report/viewer/server";
import { launchBrowser } from "../helpers/browser";
import { runCli, runCliJson } from "../helpers/cli";

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures");
let work: string;
let evalDir: string;
let evaluation: Awaited<ReturnType<typeof runCliJson>>;
let viewer: StartedViewer;
let browser: BrowserContext;
let base: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "hsearch-eval-viewer-"));
  const harbor = join(work, "harbor");
  cpSync(join(FIXTURES, "harbor-eval", "failing-assertion"), join(harbor, "failing-assertion"), {
    recursive: true,
  });
  cpSync(join(FIXTURES, "harbor", "failing-setup"), join(harbor, "failing-setup"), { recursive: true });
  const imported = await runCliJson(["tasks", "import-harbor", harbor, "--out", join(work, "tasks")], {
    cwd: work,
  });
  expect(imported.code, imported.stderr).toBe(0);
  expect(imported.json.imported).toBe(2);
  evalDir = join(work, "evaluation");
  evaluation = await runCliJson(
    [
      "eval",
      "--harness",
      join(PACKAGE_ROOT, "harnesses", "bare"),
      "--tasks",
      join(work, "tasks"),
      "--model",
      "oracle",
      "--out",
      evalDir,
    ],
    { cwd: work },
  );
  viewer = await startViewer({ runDir: evalDir, port: 0 });
  base = `http://127.0.0.1:${viewer.port}`;
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
});

describe("an evaluation of Harbor tasks whose solution or setup fails", () => {
  it("reports both, and exits 1 for the setup's infrastructure error (above the default rate)", () => {
    expect(evaluation.code, evaluation.stderr).toBe(1);
    expect(evaluation.json.summary).toMatchObject({ n_scored: 1, n_total: 2 });
    expect(evaluation.stderr).toContain(`evaluation directory ${evalDir}`);
  });

  it("the viewer's episode page shows the failing assertion the verifier printed", async () => {
    const page = await browser.newPage();
    await page.goto(viewer.url);
    expect(await page.locator("h1").textContent()).toBe("Evaluation evaluation");
    // The filter by outcome keeps the failed episode only, and it links to its page.
    await page.locator('a.filter[data-filter="outcome=failed"]').click();
    await page.waitForURL(/outcome=failed/);
    const rows = page.locator("#episodes-table tbody tr");
    await expect(rows.count()).resolves.toBe(1);
    expect(await rows.first().textContent()).toContain("harbor-failing-assertion");
    await rows.first().locator("a").first().click();
    await page.waitForSelector("pre.verifier-output");
    const output = (await page.locator("pre.verifier-output").textContent()) ?? "";
    expect(output).toContain("AssertionError: total.txt holds 30, expected 60 (10 + 20 + 30)");
    expect(output).toContain("FAILED");
    // The commands the agent ran are on the same page.
    expect(await page.locator("ol.timeline").textContent()).toContain("while read -r n");
    await page.close();
  });

  it("the viewer's episode page of the task whose setup failed shows the setup's stderr", async () => {
    const page = await browser.newPage();
    await page.goto(viewer.url);
    await page.goto(`${base}/?outcome=infra_error`);
    const rows = page.locator("#episodes-table tbody tr");
    await expect(rows.count()).resolves.toBe(1);
    await rows.first().locator("a").first().click();
    await page.waitForSelector("pre.infra-error-output");
    const error = (await page.locator("pre.infra-error-output").textContent()) ?? "";
    expect(error).toContain("task setup failed");
    expect(error).toContain("mkdir: cannot create directory");
    expect(error).toContain("Read-only file system");
    await page.close();
  });

  it("the static report shows the same outputs without a viewer", async () => {
    const out = join(work, "report.html");
    const written = await runCli(["report", evalDir, "--out", out], { cwd: work });
    expect(written.code, written.stderr).toBe(0);
    const page = await browser.newPage();
    await page.goto(pathToFileURL(out).href);
    expect(await page.locator("script").count()).toBe(0);
    expect(await page.locator("#failures pre.verifier-output").textContent()).toContain(
      "AssertionError: total.txt holds 30",
    );
    expect(await page.locator("#infra-errors pre").textContent()).toContain("mkdir: cannot create directory");
    await page.close();
  });
});
