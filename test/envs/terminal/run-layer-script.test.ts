import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runLayerContext } from "../../../src/envs/terminal/image-plan";

// apt as trixie answers it: python3-numpy has a candidate; python3-transformers is only referred to by another
// package, so `apt-cache show` succeeds for it while `apt-get install` has nothing to install.
const FAKE_APT_CACHE = `#!/bin/sh
case "$2" in
  python3-numpy) printf '%s:\\n  Installed: (none)\\n  Candidate: 1:2.2.4+ds-1\\n' "$2" ;;
  python3-transformers) printf '%s:\\n  Installed: (none)\\n  Candidate: (none)\\n  Version table:\\n' "$2" ;;
esac
exit 0
`;

describe("the run-time packages layer's script", () => {
  it("installs only the Debian packages with a candidate and names the others, a name only referred to too", () => {
    const bin = mkdtempSync(join(tmpdir(), "run-layer-"));
    const log = join(bin, "apt-get.log");
    writeFileSync(join(bin, "apt-cache"), FAKE_APT_CACHE);
    writeFileSync(join(bin, "apt-get"), `#!/bin/sh\necho "$*" >> ${log}\n`);
    for (const tool of ["apt-cache", "apt-get"]) chmodSync(join(bin, tool), 0o755);
    const { script } = runLayerContext("base", "root", {
      debian: ["python3-transformers", "python3-numpy", "python3-absent"],
      python: [],
    });
    // Only the apt part: the script's own `rm -rf /var/lib/apt/lists/*` is left out of a test run.
    const run = spawnSync("sh", ["-c", script.replace("rm -rf /var/lib/apt/lists/*", "true")], {
      encoding: "utf8",
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(log, "utf8")).toBe("update\ninstall -y --no-install-recommends python3-numpy\n");
    expect(run.stderr).toContain("not in this image's archive: python3-absent python3-transformers");
  });
});
