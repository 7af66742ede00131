import { execFile } from "node:child_process";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const NOBODY = 65534;

/**
 * The sandbox as an ordinary user would run it (a user namespace instead of root). The check is bundled into one
 * file in a world-readable temp dir so that it runs wherever the repository lives; when the tests run as root it is
 * started as uid 65534.
 */
describe("the sandbox started by an unprivileged user", () => {
  let dir: string;
  let bundle: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "hsearch-unprivileged-bundle-"));
    await chmod(dir, 0o755);
    bundle = join(dir, "check.mjs");
    await build({
      entryPoints: [join(import.meta.dirname, "fixtures", "unprivileged-check.ts")],
      outfile: bundle,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      logLevel: "silent",
    });
    await chmod(bundle, 0o644);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(["bwrap", "unshare"])(
    "%s: sandboxes the command (no escape works) or refuses to run it",
    async (mechanism) => {
      const asRoot = process.geteuid?.() === 0;
      const drop = ["--reuid", String(NOBODY), "--regid", String(NOBODY), "--clear-groups", "--"];
      const [file, args] = asRoot
        ? ["setpriv", [...drop, process.execPath, bundle]]
        : [process.execPath, [bundle]];
      const { stdout } = await run(file, args, {
        env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", HSEARCH_SANDBOX: mechanism },
        cwd: dir,
      });
      const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
      expect(report.markerOnHost).toBe(false);
      if (report.outcome === "refused") {
        // Not installed, or no user namespaces here (a hardened kernel): a clear sandbox error; nothing ran.
        expect(report.message).toContain("no sandbox works on this machine");
        expect(report.workspaceFile).toBe(false);
        return;
      }
      expect(report.outcome).toBe("ran");
      expect(report.mechanism).toBe(mechanism);
      expect(report.privileged).toBe(false);
      const hostUid = asRoot ? NOBODY : process.getuid?.();
      expect(report.hostUid).toBe(hostUid);
      // uid unchanged, all five capability sets empty, no shadow, no /etc write, private /tmp, own loopback only.
      expect(report.lines).toEqual([String(hostUid), "5", "TMP-PRIVATE", "lo"]);
      expect(report.sessionLines).toEqual([String(hostUid), "5", "TMP-PRIVATE", "lo", "BACKGROUND-ALIVE"]);
      expect(report.workspaceFile).toBe("ok\n");
    },
  );
});
