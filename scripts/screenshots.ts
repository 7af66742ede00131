/**
 * The README's screenshots: the report and the viewer's compare page of a mixed retail + terminal run, taken with
 * Debian's Chromium through playwright-core (as the browser tests do).
 *
 *   npx tsx scripts/screenshots.ts [RUN_DIR]
 *
 * Without RUN_DIR it first makes the run the README describes (`hsearch run search-configs/mixed-joint.yaml`, the
 * simulated model, offline). Writes docs/report.png and docs/compare.png: the top of each page, 1100 × 1000 px.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { PACKAGE_ROOT } from "../src/core/paths";
import { startViewer } from "../src/report/viewer/server";
import { openRunStore } from "../src/store";
import { runStatus } from "../src/store/run-status";
import { launchBrowser } from "../test/helpers/browser";

const OUT = join(PACKAGE_ROOT, "docs");
const VIEWPORT = { width: 1100, height: 1000 };

function hsearch(args: string[], cwd: string): void {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  execFileSync(process.execPath, ["--import", tsx, join(PACKAGE_ROOT, "src", "cli", "bin.ts"), ...args], {
    cwd,
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function main(): Promise<void> {
  let runDir = process.argv[2] ? resolve(process.argv[2]) : "";
  if (!runDir) {
    const work = mkdtempSync(join(tmpdir(), "hsearch-shots-"));
    runDir = join(work, "runs", "mixed-joint");
    hsearch(["run", join(PACKAGE_ROOT, "search-configs", "mixed-joint.yaml"), "--out", runDir], PACKAGE_ROOT);
  }
  if (!existsSync(join(runDir, "run.db"))) throw new Error(`no run in ${runDir}`);
  const report = join(runDir, "report.html");
  hsearch(["report", runDir, "--out", report], PACKAGE_ROOT);

  const store = openRunStore(runDir, { readonly: true });
  const status = runStatus(store);
  store.close();
  const seed = status.rounds[0]?.proposals[0]?.commit;
  const final = (status.selected ?? status.incumbent)?.commit;
  if (!seed || !final) throw new Error("the run has no seed or final harness to compare");

  mkdirSync(OUT, { recursive: true });
  const browser = await launchBrowser(VIEWPORT, ["--hide-scrollbars"]);
  const viewer = await startViewer({ runDir });
  try {
    const page = await browser.newPage();
    await page.goto(pathToFileURL(report).href);
    await page.screenshot({ path: join(OUT, "report.png") });
    await page.goto(viewer.url);
    await page.goto(`http://127.0.0.1:${viewer.port}/compare/${seed}/${final}`);
    await page.screenshot({ path: join(OUT, "compare.png") });
  } finally {
    await viewer.close();
    await browser.close();
  }
  console.log(`wrote ${join(OUT, "report.png")} and ${join(OUT, "compare.png")} from ${runDir}`);
}

await main();
