import { describe, expect, it } from "vitest";
import { HsearchError } from "../../../src/core/errors";
import { parseToml } from "../../../src/tasks/importers/harbor/toml";

function failure(text: string): string {
  try {
    parseToml(text, "task.toml");
  } catch (error) {
    if (error instanceof HsearchError) return `${error.code} ${error.describe()}`;
    throw error;
  }
  throw new Error("parsed");
}

describe("the task.toml reader", () => {
  it("reads what Harbor task files use", () => {
    const text = [
      'schema_version = "1.1" # a comment',
      'artifacts = ["/app/output.json"]',
      "",
      "[task]",
      'name = "terminal-bench/example-task"',
      'authors = [{ name = "Full Name", email = "name@example.com" }]',
      "[metadata]",
      "tags = [",
      '  "debugging", # inside an array',
      "  'literal',",
      "]",
      "hours = 6",
      "ratio = -1.5e2",
      "big = 1_000",
      "sub.key = true",
      "[verifier]",
      "timeout_sec = 120.0",
      "[verifier.env]",
      'PATH_EXTRA = "a\\tb\\u00e9"',
      "[[outputs]]",
      "path = '/tmp/a'",
      "[[outputs]]",
      'description = """',
      "two \\",
      '   lines"""',
    ].join("\n");
    expect(parseToml(text, "task.toml")).toEqual({
      schema_version: "1.1",
      artifacts: ["/app/output.json"],
      task: {
        name: "terminal-bench/example-task",
        authors: [{ name: "Full Name", email: "name@example.com" }],
      },
      metadata: { tags: ["debugging", "literal"], hours: 6, ratio: -150, big: 1000, sub: { key: true } },
      verifier: { timeout_sec: 120, env: { PATH_EXTRA: "a\tbé" } },
      outputs: [{ path: "/tmp/a" }, { description: "two lines" }],
    });
  });

  it("names the file and line of what it cannot read", () => {
    expect(failure("a = 1\na = 2\n")).toBe("bad_input task.toml:2: TOML: duplicate key 'a'");
    expect(failure("[t]\nx = 1\n[t]\n")).toBe("bad_input task.toml:3: TOML: table [t] is defined twice");
    expect(failure("when = 2024-05-03\n")).toMatch(
      /^bad_input task.toml:1: TOML: dates and times are not supported/,
    );
    expect(failure('a = "open\n')).toBe("bad_input task.toml:1: TOML: unterminated string");
    expect(failure("a = [1, 2\n")).toMatch(/^bad_input task.toml:2: TOML: expected ',' or '\]'/);
    expect(failure("a = 1 b = 2\n")).toBe("bad_input task.toml:1: TOML: unexpected 'b' after a value");
    expect(failure("= 3\n")).toMatch(/^bad_input task.toml:1: TOML: unexpected '=' where a key should be/);
    expect(failure('s = "\\q"\n')).toBe("bad_input task.toml:1: TOML: unknown escape '\\q'");
    expect(failure("x = 1\nx.y = 2\n")).toBe("bad_input task.toml:2: TOML: 'x' is a value, not a table");
  });
});
