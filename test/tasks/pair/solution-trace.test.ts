/** The survey's strace report read back: reads in the workspace, programs outside it, and no trace without strace. */
import { describe, expect, it } from "vitest";
import { parseTrace, tracedSolution, traceReport } from "../../../src/tasks/pair/solution-trace";

describe("the solution's trace", () => {
  it("keeps the workspace files it opened for reading and the programs it ran", () => {
    const report = [
      "cwd /app",
      'execve("/usr/bin/bash", ["bash", "/tmp/.hsearch-solution.sh"], 0x7ffd /* 8 vars */',
      'openat(AT_FDCWD, "/app/data/in.csv", O_RDONLY',
      'openat(AT_FDCWD, "rel\\ name.txt", O_RDONLY|O_CLOEXEC',
      'openat(AT_FDCWD, "/app/out.txt", O_WRONLY|O_CREAT|O_TRUNC, 0666',
      'openat(AT_FDCWD, "/app/sedX1", O_RDWR|O_CREAT|O_EXCL, 0600',
      'openat(AT_FDCWD, "/app/db.sqlite", O_RDWR|O_CLOEXEC',
      'openat(AT_FDCWD, "/app", O_RDONLY|O_DIRECTORY',
      'openat(3, "x", O_RDONLY',
      'execve("/app/run.sh", ["./run.sh"], 0x1 /* 8 vars */',
      'execve("/usr/bin/python3", ["python3"], 0x1 /* 8 vars */',
      'openat(AT_FDCWD, "/workspace/w.txt", O_RDONLY',
    ].join("\n");
    expect(parseTrace(report, ["/app", "/workspace"])).toEqual({
      reads: ["data/in.csv", "db.sqlite", "rel name.txt", "run.sh", "w.txt"],
      programs: ["/usr/bin/bash", "/usr/bin/python3"],
    });
  });

  it("is null when the sandbox had no strace (only the start directory came back)", () => {
    expect(parseTrace("cwd /app\n", ["/app"])).toBeNull();
  });

  it("wraps the solution so a line of it can never end the here-document", () => {
    const command = tracedSolution("echo hi\nexit 3\n");
    expect(command).toMatch(
      /^cat > \/tmp\/\.hsearch-solution\.sh <<'HSEARCH_SOLUTION_[0-9a-f]{16}'\necho hi\nexit 3\nHSEARCH/,
    );
    expect(traceReport(["/app", "/home/user"])).toContain("(/app|/home/user)");
  });
});
