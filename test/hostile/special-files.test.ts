import { execFileSync } from "node:child_process";
import { cpSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CliIO } from "../../src/cli/io";
import { escapeControl, reportError } from "../../src/cli/report-error";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { runCli } from "../helpers/cli";
import { tempDir } from "../store/fixtures";

const NO_TRACE = /\n\s+at /;

function capture(): { io: CliIO; text: () => string } {
  let text = "";
  const io = {
    out: () => {},
    err: (line: string) => {
      text += `${line}\n`;
    },
    errInline: () => {},
    isTTY: false,
    cwd: process.cwd(),
    env: {},
  };
  return { io, text: () => text };
}

describe("special files and odd trees", () => {
  it("a FIFO as system.md is refused by eval (exit 2 naming it), not read forever", async () => {
    const work = tempDir();
    const harness = join(work, "harness");
    cpSync(join(PACKAGE_ROOT, "harnesses", "bare"), harness, { recursive: true });
    const system = join(harness, "system.md");
    execFileSync("rm", [system]);
    execFileSync("mkfifo", [system]);
    const result = await runCli(
      ["eval", "--harness", harness, "--tasks", join(PACKAGE_ROOT, "test", "fixtures", "tasks", "valid")],
      { cwd: work },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${system}: not a regular file`);
  });

  it("a symlink loop in a task directory is exit 2 naming the path, no stack trace", async () => {
    const work = tempDir();
    const tasks = join(work, "tasks");
    cpSync(join(PACKAGE_ROOT, "test", "fixtures", "tasks", "valid"), tasks, { recursive: true });
    symlinkSync(tasks, join(tasks, "again"));
    symlinkSync(join(work, "b"), join(work, "a"));
    symlinkSync(join(work, "a"), join(work, "b"));
    symlinkSync(join(work, "a"), join(tasks, "knot"));
    for (const command of [
      ["tasks", "validate", tasks],
      ["tasks", "list", "--tasks", tasks],
    ]) {
      const result = await runCli(command, { cwd: work });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/symlink loop|ELOOP/);
      expect(result.stderr).not.toMatch(NO_TRACE);
    }
  });

  it("--out below a regular file is exit 2 naming the path, no stack trace", async () => {
    const work = tempDir();
    writeFileSync(join(work, "plain"), "a file\n");
    const result = await runCli(["run", "--out", join(work, "plain", "run")], { cwd: work });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(join(work, "plain"));
    expect(result.stderr).not.toMatch(NO_TRACE);
  });
});

describe("stack traces never reach users", () => {
  it("an unexpected error is one line with a hint; the trace only when debugging", () => {
    const quiet = capture();
    expect(reportError(new TypeError("x is not a function"), quiet.io, false)).toBe(1);
    expect(quiet.text()).toMatch(/^hsearch: internal error: x is not a function \(run again with --debug/);
    expect(quiet.text().trim().split("\n")).toHaveLength(1);
    const loud = capture();
    reportError(new TypeError("x is not a function"), loud.io, true);
    expect(loud.text()).toMatch(NO_TRACE);
  });

  it("a filesystem error anywhere is exit 2 naming its path", () => {
    const out = capture();
    const error = Object.assign(new Error("ENOTDIR: not a directory, mkdir '/tmp/f/run'"), {
      code: "ENOTDIR",
      path: "/tmp/f/run",
      syscall: "mkdir",
    });
    expect(reportError(error, out.io, false)).toBe(2);
    expect(out.text()).toBe("hsearch: /tmp/f/run: not a directory (ENOTDIR)\n");
  });

  it("prints NUL and control characters in a path escaped", async () => {
    expect(escapeControl("a\0b\x1b[2Jc\nd", false)).toBe("a\\0b\\x1b[2Jc\\x0ad");
    const result = await runCli(["status", "runs/evil\x1b[31m\0name"], { cwd: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain("\x1b");
    expect(result.stderr).not.toContain("\0");
    expect(result.stderr).toContain("\\x1b[31m\\0name");
  });
});
