import { describe, expect, it } from "vitest";
import { composeCommitMessage, parseCommitMessage } from "../../src/git/commit-message";
import { assertHarnessPath } from "../../src/git/harness-path";

const trailers = { run: "r1", round: 3, proposal: 2, proposer: "llm" };

describe("commit messages", () => {
  it("puts the rationale, a blank line and the trailers, and parses them back", () => {
    const message = composeCommitMessage(
      "Tighten the owner rule.\r\n\r\nIt fired on feasible orders.  \n",
      trailers,
    );
    expect(message).toBe(
      "Tighten the owner rule.\n\nIt fired on feasible orders.\n\n" +
        "Hsearch-Run: r1\nHsearch-Round: 3\nHsearch-Proposal: 2\nHsearch-Proposer: llm\n",
    );
    expect(parseCommitMessage(message)).toEqual({
      rationale: "Tighten the owner rule.\n\nIt fired on feasible orders.",
      trailers: {
        "Hsearch-Run": "r1",
        "Hsearch-Round": "3",
        "Hsearch-Proposal": "2",
        "Hsearch-Proposer": "llm",
      },
    });
  });

  it("sorts extra trailers so that the same proposal always gives the same message", () => {
    const a = composeCommitMessage("x", { ...trailers, extra: { "Hsearch-B": "2", "Hsearch-A": "1" } });
    const b = composeCommitMessage("x", { ...trailers, extra: { "Hsearch-A": "1", "Hsearch-B": "2" } });
    expect(a).toBe(b);
    expect(a.indexOf("Hsearch-A")).toBeLessThan(a.indexOf("Hsearch-B"));
  });

  it("refuses bad trailer names and values", () => {
    expect(() => composeCommitMessage("x", { ...trailers, extra: { "Bad Name": "1" } })).toThrow(
      /trailer name/,
    );
    expect(() => composeCommitMessage("x", { ...trailers, run: "" })).toThrow(/Hsearch-Run/);
  });

  it("reads a message without trailers as all rationale", () => {
    expect(parseCommitMessage("Just words.\n\nMore: words here\nand this")).toEqual({
      rationale: "Just words.\n\nMore: words here\nand this",
      trailers: {},
    });
  });
});

describe("assertHarnessPath", () => {
  it.each(["system.md", "prompts/self-check.md", "a/b/c.yaml", ".hidden", "..dots"])("accepts %s", (path) => {
    expect(() => assertHarnessPath(path)).not.toThrow();
  });

  it.each([
    ["", "empty"],
    ["/etc/passwd", "absolute"],
    ["C:/x", "absolute"],
    ["..", "leaves"],
    ["a/../b", "leaves"],
    ["./a", "aliases"],
    ["a\\b", "backslash"],
    [".git/config", ".git"],
    ["sub/.GIT/hooks/pre-commit", ".git"],
    ["a/", "empty path segment"],
  ])("refuses %s", (path, why) => {
    expect(() => assertHarnessPath(path)).toThrow(why);
  });
});
