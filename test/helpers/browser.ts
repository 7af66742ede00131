import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

/** Debian's Chromium (installed by .ci/run when missing); never a browser downloaded by Playwright. */
export const CHROMIUM = process.env.HSEARCH_CHROMIUM ?? "/usr/bin/chromium";

/**
 * A headless Chromium with a fresh profile (the browser tests and scripts/screenshots.ts), nothing running in the background and no network of its own: it only
 * reaches the local viewer and file:// reports.
 */
export async function launchBrowser(
  viewport = { width: 1280, height: 900 },
  extraArgs: readonly string[] = [],
): Promise<BrowserContext> {
  const profile = mkdtempSync(join(tmpdir(), "hsearch-chromium-"));
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
  });
}
