/** The tool-missing variant's setup: the program is gone from the PATH, whatever the PATH's directories hold. */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pathWithoutProgram } from "../../../src/tasks/generators/pair/variants";

const dir = mkdtempSync(join(tmpdir(), "hsearch-path-without-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a PATH without one program", () => {
  it("links every other program, skipping empty directories and dangling links, and hides the one", () => {
    const bin = join(dir, "bin");
    const empty1 = join(dir, "empty1");
    const empty2 = join(dir, "empty2");
    const dangling = join(dir, "dangling");
    for (const d of [bin, empty1, empty2, dangling]) mkdirSync(d);
    for (const name of ["awk", "keep"])
      writeFileSync(join(bin, name), "#!/bin/sh\necho ran\n", { mode: 0o755 });
    symlinkSync(join(dir, "nowhere"), join(dangling, "ghost"));
    // Another name of the hidden program goes too.
    symlinkSync(join(bin, "awk"), join(bin, "gawk"));
    const view = join(dir, "view");
    const envFile = join(dir, "env.sh");
    const path = [empty1, bin, empty2, dangling, "/usr/bin", "/bin"].join(":");
    // stdin not a socket: bash run with a socket on stdin reads ~/.bashrc as if started by a remote shell daemon.
    const stdio = ["ignore", "pipe", "pipe"] as const;
    execFileSync("bash", ["-c", pathWithoutProgram("awk", view, envFile)], {
      env: { PATH: path },
      stdio: [...stdio],
    });
    const probe = (command: string) =>
      execFileSync("bash", ["-c", command], {
        env: { PATH: path, BASH_ENV: envFile },
        encoding: "utf8",
        stdio: [...stdio],
      });
    expect(probe("command -v keep || echo absent").trim()).toBe(join(view, "keep"));
    expect(probe("command -v awk || echo absent").trim()).toBe("absent");
    expect(probe("command -v gawk || echo absent").trim()).toBe("absent");
    expect(probe("ls -A $PATH | grep -c '^\\*$' || true").trim()).toBe("0");
  });
});
