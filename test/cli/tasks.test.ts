import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type CliIO, processIO } from "../../src/cli/io";
import { main } from "../../src/cli/main";
import { PACKAGE_ROOT } from "../../src/core/paths";

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "tasks");
const temps: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "hsearch-tasks-cli-"));
  temps.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIO = {
    ...processIO(),
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    isTTY: false,
    cwd: PACKAGE_ROOT,
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

describe("hsearch tasks list", () => {
  it("prints a table of the shipped retail tasks, filtered", async () => {
    const result = await run([
      "tasks",
      "list",
      "--suite",
      "retail",
      "--split",
      "heldout",
      "--family",
      "trap",
    ]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^id\s+suite\s+split\s+kind\s+family\s+source$/);
    expect(lines.at(-1)).toBe("10 tasks");
    const rows = lines.slice(1, -1);
    expect(rows).toHaveLength(10);
    for (const row of rows)
      expect(row).toMatch(/^retail-\S+-trap\s+retail\s+heldout\s+blocked\s+trap\s+retail-\S+$/);
  });

  it("prints JSON objects with id, suite, split, kind, family and source", async () => {
    const result = await run([
      "tasks",
      "list",
      "--suite",
      "retail",
      "--kind",
      "feasible",
      "--split",
      "search",
      "--json",
    ]);
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(64);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(["family", "id", "kind", "source", "split", "suite"]);
      expect(row).toMatchObject({ suite: "retail", split: "search", kind: "feasible", family: null });
    }
  });

  it("lists a directory given with --tasks", async () => {
    const result = await run(["tasks", "list", "--tasks", join(FIXTURES, "valid"), "--json"]);
    expect(result.code).toBe(0);
    expect(
      (JSON.parse(result.stdout) as Array<{ id: string; source: string | null }>).map((t) => [
        t.id,
        t.source,
      ]),
    ).toEqual([
      ["retail-gen-cancel-0001-infeasible", "retail-gen-cancel-0001"],
      ["retail-gen-cancel-0001", null],
    ]);
  });

  it("rejects an unknown family with exit 2", async () => {
    const result = await run(["tasks", "list", "--family", "impossible"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/family/);
  });
});

describe("hsearch tasks validate", () => {
  it("validates every shipped suite by default", async () => {
    const result = await run(["tasks", "validate"]);
    expect(result.code).toBe(0);
    // retail 209 + terminal 204
    expect(result.stdout).toBe("413 tasks ok\n");
  });

  it("accepts a valid directory", async () => {
    const result = await run(["tasks", "validate", join(FIXTURES, "valid")]);
    expect(result).toMatchObject({ code: 0, stdout: "2 tasks ok\n" });
  });

  const bad: Array<[string, RegExp]> = [
    [
      "unknown-family",
      /unknown-family\/search\/retail-gen-cancel-0001-infeasible\.json:6: field 'family': Invalid option/,
    ],
    [
      "duplicate-id",
      /duplicate-id\/search\/b\.json:2: field 'id': duplicate task id 'retail-gen-cancel-0001'/,
    ],
    [
      "missing-source",
      /missing-source\/search\/\S+\.json:7: field 'source': source 'retail-gen-cancel-9999' is not among/,
    ],
    [
      "shared-source",
      /shared-source\/heldout\/\S+\.json:7: field 'source': source 'retail-gen-cancel-0001' is used by held-out and search/,
    ],
  ];
  for (const [name, message] of bad) {
    it(`exits 2 naming file, field and line: ${name}`, async () => {
      const result = await run(["tasks", "validate", join(FIXTURES, name)]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(message);
    });
  }
});

describe("hsearch tasks import-tau2", () => {
  it("imports the vendored τ² file as feasible tasks", async () => {
    const out = tempDir();
    const result = await run([
      "tasks",
      "import-tau2",
      "data/tau2-retail/tasks.json",
      "--out",
      out,
      "--split",
      "heldout",
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^imported 74 tasks to /);
    const files = filesBelow(out);
    expect(files).toHaveLength(74);
    expect(files.every((file) => file.startsWith("heldout/retail-tau2-"))).toBe(true);
    const task = JSON.parse(readFileSync(join(out, "heldout", "retail-tau2-0.json"), "utf8"));
    expect(task).toMatchObject({
      id: "retail-tau2-0",
      split: "heldout",
      kind: "feasible",
      verify: { kind: "retail_db" },
    });
    const validated = await run(["tasks", "validate", out]);
    expect(validated).toMatchObject({ code: 0, stdout: "74 tasks ok\n" });
  });

  const bad: Array<[string, RegExp]> = [
    ["malformed", /malformed\.json:18: malformed JSON/],
    ["missing-field", /missing-field\.json:19: field '1\.user_scenario\.instructions\.reason_for_call'/],
    [
      "unknown-tool",
      /unknown-tool\.json:17: field '0\.evaluation_criteria\.actions\.1\.name': unknown retail tool 'refund_everything'/,
    ],
    ["duplicate-id", /duplicate-id\.json:13: field '1\.id': duplicate task id '7'/],
  ];
  for (const [name, message] of bad) {
    it(`exits 2 on bad input naming the file and line: ${name}`, async () => {
      const out = tempDir();
      const result = await run([
        "tasks",
        "import-tau2",
        join(FIXTURES, "tau2", `${name}.json`),
        "--out",
        out,
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(filesBelow(out)).toEqual([]);
    });
  }

  it("exits 2 when the file does not exist", async () => {
    const result = await run(["tasks", "import-tau2", "no/such/tasks.json", "--out", tempDir()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/tasks\.json/);
  });
});

describe("hsearch tasks generate", () => {
  it("writes exactly the committed tasks/retail with the default seed", async () => {
    const out = tempDir();
    const result = await run(["tasks", "generate", "--out", out]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^wrote 209 retail tasks to .* \(search: 128, heldout: 64, independent: 17\)\n$/,
    );
    const shipped = join(PACKAGE_ROOT, "tasks", "retail");
    const files = filesBelow(out);
    expect(files).toEqual(filesBelow(shipped));
    for (const file of files) {
      expect(readFileSync(join(out, file), "utf8"), file).toBe(readFileSync(join(shipped, file), "utf8"));
    }
  });

  it("replaces stale task files in the output directory", async () => {
    const out = tempDir();
    await run(["tasks", "generate", "--out", out, "--seed", "2"]);
    const second = await run(["tasks", "generate", "--out", out, "--seed", "3"]);
    expect(second.code).toBe(0);
    expect(filesBelow(out)).toHaveLength(209);
  });

  it("rejects a suite it cannot generate", async () => {
    const result = await run(["tasks", "generate", "--suite", "nosuch", "--out", tempDir()]);
    expect(result.code).toBe(2);
  });
});
