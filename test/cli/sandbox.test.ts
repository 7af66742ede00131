import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIO } from "../../src/cli/io";
import { main } from "../../src/cli/main";

/** Runs `hsearch …` through the real entry point with a captured CliIO. */
async function hsearch(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    errInline: (text) => err.push(text),
    isTTY: false,
    cwd: process.cwd(),
    env: {},
  };
  const code = await main(args, io);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("hsearch sandbox run", () => {
  let workspace: string;
  beforeAll(async () => {
    workspace = await mkdtemp(join(tmpdir(), "hsearch-cli-sandbox-"));
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  it("runs a command after -- and exits 0 when it succeeds", async () => {
    const result = await hsearch(["sandbox", "run", "--", "echo hello from $(pwd) as $(id -u)"]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^hello from \/workspace as [1-9]\d*\n$/);
    expect(result.err).toContain("exit status 0");
  });

  it("runs several words as an argv, in the given workspace", async () => {
    const result = await hsearch([
      "sandbox",
      "run",
      "--workspace",
      workspace,
      "--",
      "touch",
      "made by cli.txt",
    ]);
    expect(result.code).toBe(0);
    expect(existsSync(join(workspace, "made by cli.txt"))).toBe(true);
    const read = await hsearch(["sandbox", "run", "--workspace", workspace, "--", "ls /app"]);
    expect(read.out).toBe("made by cli.txt\n");
  });

  it("exits 1 when the command fails, showing its output and status", async () => {
    const result = await hsearch(["sandbox", "run", "--", "echo oops >&2; cat /etc/shadow; exit 7"]);
    expect(result.code).toBe(1);
    expect(result.out).toContain("oops");
    expect(result.out).toContain("Permission denied");
    expect(result.err).toContain("exit status 7");
  });

  it("exits 1 when the command times out", async () => {
    const result = await hsearch(["sandbox", "run", "--timeout", "0.3", "--", "sleep 30"]);
    expect(result.code).toBe(1);
    expect(result.err).toContain("timed out after 0.3 s");
  });

  it("does not pass the caller's API keys", async () => {
    process.env.ANTHROPIC_API_KEY = "sk-ant-test-cli-leak";
    try {
      const result = await hsearch(["sandbox", "run", "--", "env"]);
      expect(result.out).not.toContain("sk-ant-test-cli-leak");
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
    }
  });

  it("exits 2 on bad input: no command, a missing workspace, a bad timeout", async () => {
    const none = await hsearch(["sandbox", "run"]);
    expect(none.code).toBe(2);
    expect(none.err).toContain("give the command after --");
    const missing = await hsearch(["sandbox", "run", "--workspace", join(workspace, "nope"), "--", "true"]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("is not a directory");
    const timeout = await hsearch(["sandbox", "run", "--timeout", "-1", "--", "true"]);
    expect(timeout.code).toBe(2);
  });

  it("keeps the output an agent would see: at most 10 KB, middle omitted", async () => {
    const result = await hsearch(["sandbox", "run", "--", "seq 1 100000"]);
    expect(result.code).toBe(0);
    expect(Buffer.byteLength(result.out)).toBeLessThanOrEqual(10 * 1024);
    expect(result.out).toMatch(/^1\n2\n3\n[\s\S]*bytes omitted[\s\S]*\n100000\n$/);
    expect(readFileSync("/proc/self/mountinfo", "utf8")).not.toContain("hsearch-sandbox");
  });
});
