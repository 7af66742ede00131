/**
 * The output-overlap check every writing command makes: an output that is, contains or lies inside an input once
 * symlinks are followed (also through a parent that is a link, for an output not made yet) is refused; the commands
 * refuse it with exit 2 and leave the input as it was.
 */
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isHsearchError } from "../../src/core/errors";
import { assertOutputApart, overlapOf } from "../../src/core/output-overlap";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { runCli } from "../helpers/cli";

const temps: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "hsearch-overlap-"));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile())
      files[join(entry.parentPath, entry.name)] = readFileSync(join(entry.parentPath, entry.name), "utf8");
  return files;
}

describe("overlapOf", () => {
  it("follows links on both sides, also for paths not made yet", () => {
    const dir = tempDir();
    const input = join(dir, "input");
    mkdirSync(input);
    symlinkSync(input, join(dir, "link"));
    expect(overlapOf(join(dir, "link"), input)).toBe("is");
    expect(overlapOf(input, join(dir, "link"))).toBe("is");
    expect(overlapOf(join(dir, "link", "new", "deeper"), input)).toBe("lies inside");
    expect(overlapOf(dir, join(dir, "link"))).toBe("contains");
    expect(overlapOf(join(dir, "apart"), input)).toBeUndefined();
    // A sibling whose name starts like the input's is apart.
    expect(overlapOf(join(dir, "input-2"), input)).toBeUndefined();
  });

  it("refuses with bad input naming both paths", () => {
    const dir = tempDir();
    symlinkSync(dir, join(dir, "..", `${join(dir).split("/").pop()}-link`));
    const link = `${dir}-link`;
    temps.push(link);
    let thrown: unknown;
    try {
      assertOutputApart({ path: join(link, "out"), name: "--out" }, [{ path: dir, name: "the sources" }]);
    } catch (error) {
      thrown = error;
    }
    expect(isHsearchError(thrown, "bad_input")).toBe(true);
    expect((thrown as Error).message).toContain(join(link, "out"));
    expect((thrown as Error).message).toContain(`lies inside the sources ${dir}`);
  });
});

describe("every writing command refuses an output that overlaps its input through a link", () => {
  it("eval --out, run --out, tasks import-harbor and tasks import-tau2 exit 2 and write nothing", async () => {
    const dir = tempDir();
    const harness = join(dir, "harness");
    cpSync(join(PACKAGE_ROOT, "harnesses", "gated"), harness, { recursive: true });
    symlinkSync(harness, join(dir, "harness-link"));
    const harbor = join(dir, "harbor");
    cpSync(join(PACKAGE_ROOT, "test", "fixtures", "harbor-pair"), harbor, { recursive: true });
    symlinkSync(harbor, join(dir, "harbor-link"));
    const tau2 = join(dir, "tau2");
    mkdirSync(tau2);
    cpSync(join(PACKAGE_ROOT, "data", "tau2-retail", "tasks.json"), join(tau2, "tasks.json"));
    symlinkSync(tau2, join(dir, "tau2-link"));
    const before = snapshot(dir);
    const config = join(dir, "config.yaml");
    cpSync(join(PACKAGE_ROOT, "search-configs", "demo.yaml"), config);
    const configText = readFileSync(config, "utf8").replace(/^seed_harness:.*$/m, `seed_harness: ${harness}`);
    writeFileSync(config, configText);
    const cases: string[][] = [
      ["eval", "--harness", harness, "--split", "search", "--out", join(dir, "harness-link", "eval")],
      ["run", config, "--out", join(dir, "harness-link", "run")],
      ["tasks", "import-harbor", harbor, "--out", join(dir, "harbor-link")],
      ["tasks", "import-tau2", join(tau2, "tasks.json"), "--out", join(dir, "tau2-link")],
    ];
    for (const args of cases) {
      const result = await runCli(args, { cwd: dir });
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(/--out .* once links are followed/);
    }
    const after = snapshot(dir);
    delete after[config];
    expect(after).toEqual(before);
  });
});
