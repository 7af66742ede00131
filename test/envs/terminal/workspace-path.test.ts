import { describe, expect, it } from "vitest";
import { isHsearchError } from "../../../src/core/errors";
import { workspaceRelativePath } from "../../../src/envs/terminal/workspace-path";

describe("workspaceRelativePath", () => {
  it("normalises relative paths and the sandbox's own absolute paths", () => {
    expect(workspaceRelativePath("a.txt")).toBe("a.txt");
    expect(workspaceRelativePath("./src//main.py")).toBe("src/main.py");
    expect(workspaceRelativePath("dir/../b.txt")).toBe("b.txt");
    expect(workspaceRelativePath("/workspace/out/x.csv")).toBe("out/x.csv");
    expect(workspaceRelativePath("/app/infeasible.md")).toBe("infeasible.md");
  });

  it.each([
    ["../secret", "leaves the workspace"],
    ["a/../../b", "leaves the workspace"],
    ["/etc/passwd", "outside the workspace"],
    ["/workspaces/x", "outside the workspace"],
    [".", "workspace itself"],
    ["/workspace", "workspace itself"],
    ["", "non-empty string"],
    ["a\0b", "NUL"],
  ])("refuses %j", (path, why) => {
    let caught: unknown;
    try {
      workspaceRelativePath(path);
    } catch (error) {
      caught = error;
    }
    expect(isHsearchError(caught, "bad_input")).toBe(true);
    expect((caught as Error).message).toContain(why);
  });

  it("refuses what is not a string", () => {
    expect(() => workspaceRelativePath(42)).toThrow(/non-empty string/);
  });
});
