/** The survey's strace report read back: reads in the workspace, programs outside it, and no trace without strace. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseTrace, tracedSolution, traceReport } from "../../../src/tasks/generators/pair/solution-trace";

const TRACE = [
  '8 execve("/usr/bin/bash", ["bash", "/tmp/.hsearch-solution.sh"], 0x7ffd /* 8 vars */) = 0',
  '8 openat(AT_FDCWD, "/app/data/in.csv", O_RDONLY) = 3',
  '9 openat(AT_FDCWD, "rel\\ name.txt", O_RDONLY|O_CLOEXEC) = 3',
  '9 openat(AT_FDCWD, "/app/out.txt", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3',
  '9 openat(AT_FDCWD, "/app/sedX1", O_RDWR|O_CREAT|O_EXCL, 0600) = 4',
  '9 openat(AT_FDCWD, "/app/db.sqlite", O_RDWR|O_CLOEXEC) = 3',
  '9 openat(AT_FDCWD, "/app/gone.txt", O_RDONLY) = -1 ENOENT (No such file or directory)',
  '9 openat(AT_FDCWD, "/app", O_RDONLY|O_DIRECTORY) = 3',
  '9 openat(AT_FDCWD, "/usr/lib/x.so", O_RDONLY) = 3',
  '9 openat(3, "x", O_RDONLY) = 4',
  '10 execve("/app/run.sh", ["./run.sh"], 0x1 /* 8 vars */) = 0',
  '11 execve("/usr/bin/python3", ["python3"], 0x1 /* 8 vars */) = 0',
  '11 execve("/usr/bin/nope", ["nope"], 0x1 /* 8 vars */) = -1 ENOENT (No such file or directory)',
  '11 openat(AT_FDCWD, "/workspace/w.txt", O_RDONLY) = 3',
].join("\n");

describe("the solution's trace", () => {
  it("reports the workspace files it opened for reading and the programs it ran, the shell's report parsed", () => {
    const dir = mkdtempSync(join(tmpdir(), "hsearch-trace-"));
    try {
      // The report's command run on a real trace file (its paths point into this temporary directory).
      const traceFile = join(dir, "trace");
      writeFileSync(traceFile, `${TRACE}\n`);
      const report = traceReport(["/app", "/workspace"])
        .replaceAll("/tmp/.hsearch-solution.trace", traceFile)
        .replaceAll("/tmp/.hsearch-solution.report", join(dir, "report"));
      const head = execFileSync("bash", ["-c", report], { cwd: dir, encoding: "utf8" }).replace(
        `cwd ${dir}`,
        "cwd /app",
      );
      const lines = execFileSync("cat", [join(dir, "report")], { encoding: "utf8" }).split("\n");
      expect(head).toMatch(/^cwd \/app\n\d+\n$/);
      expect(parseTrace(head, lines, ["/app", "/workspace"])).toEqual({
        reads: ["data/in.csv", "db.sqlite", "rel name.txt", "run.sh", "w.txt"],
        programs: ["/usr/bin/bash", "/usr/bin/python3"],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is null when the sandbox had no strace (the report printed nothing)", () => {
    expect(parseTrace("", [], ["/app"])).toBeNull();
  });

  it("wraps the solution so a line of it can never end the here-document", () => {
    const command = tracedSolution("echo hi\nexit 3\n");
    expect(command).toMatch(
      /^cat > \/tmp\/\.hsearch-solution\.sh <<'HSEARCH_SOLUTION_[0-9a-f]{16}'\necho hi\nexit 3\nHSEARCH/,
    );
    expect(traceReport(["/app", "/home/user"])).toContain("(/app|/home/user)");
  });
});
