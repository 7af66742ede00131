/**
 * src/README.md's "where a change goes" stays true: a row per extension point, and every file a row names exists
 * (paths relative to src/, or to the repository for examples/).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";

const readme = readFileSync(join(PACKAGE_ROOT, "src", "README.md"), "utf8");
const section = readme.slice(readme.indexOf("## Where a change goes"));
const rows = section.split("\n").filter((line) => line.startsWith("| ") && !line.startsWith("| ---"));

describe("src/README.md: where a change goes", () => {
  it("has a row per extension point", () => {
    const points = rows.slice(1).map((row) => row.split("|")[1]?.trim() ?? "");
    for (const point of [
      "an acceptance rule",
      "a built-in proposer",
      "a provider",
      "a built-in metric",
      "an objective",
      "a suite of one's own",
      "a protocol turn",
      "a viewer page",
      "a config field",
      "a command or option",
    ])
      expect(points).toContain(point);
  });

  it("names only files that exist", () => {
    const named = [...section.matchAll(/`([a-z][\w./-]*\.(?:ts|mjs))`/g)].map((match) => match[1] as string);
    expect(named.length).toBeGreaterThan(15);
    const missing = named.filter(
      (path) =>
        !existsSync(
          path.startsWith("examples/") ? join(PACKAGE_ROOT, path) : join(PACKAGE_ROOT, "src", path),
        ),
    );
    expect(missing).toEqual([]);
  });
});
