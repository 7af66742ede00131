import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isHsearchError } from "../../../src/core/errors";
import { availableMechanisms } from "../../../src/envs/terminal/sandbox";
import { createTerminalEnv, DEFERRAL_FILE, isDeferralCall } from "../../../src/envs/terminal/terminal-env";
import { terminalEnvOpener } from "./helpers";

const mechanisms = (await availableMechanisms()).map((info) => info.mechanism);
const agent = (step: number) => ({ step, author: "agent" as const });
const harness = (step: number) => ({ step, author: "harness" as const });

const open = terminalEnvOpener();

describe.each(mechanisms)("the terminal environment (%s)", (mechanism) => {
  it("logs created, modified and deleted files per call, with author and step, and flags forbidden paths", async () => {
    const env = await open({
      mechanism,
      files: { "a.txt": "alpha\n", "data/keep.csv": "id\n1\n" },
      forbidden: { paths: ["data/**"] },
    });
    expect(env.tools().map((tool) => tool.name)).toEqual(["bash", "read_file", "write_file"]);
    expect([...env.writeTools()].sort()).toEqual(["bash", "write_file"]);

    const created = await env.call("bash", { command: "echo beta > b.txt && mkdir out" }, agent(1));
    expect(created).toEqual({ output: "(no output)", ok: true, wrote: true });
    const modified = await env.call("write_file", { path: "a.txt", content: "ALPHA\n" }, agent(2));
    expect(modified.wrote).toBe(true);
    const read = await env.call("read_file", { path: "a.txt" }, agent(3));
    expect(read).toEqual({ output: "ALPHA\n", ok: true, wrote: false });
    const nothing = await env.call(
      "bash",
      { command: "cat a.txt b.txt; touch -d 2001-01-01 a.txt" },
      agent(4),
    );
    expect(nothing).toEqual({ output: "ALPHA\nbeta\n", ok: true, wrote: false });
    const deleted = await env.call("bash", { command: "rm data/keep.csv; exit 3" }, agent(5));
    expect(deleted.ok).toBe(false);
    expect(deleted.wrote).toBe(true);
    expect(deleted.output).toBe("Error: exit status 3\n(no output)");
    await env.call("write_file", { path: "notes/by-harness.txt", content: "h" }, harness(6));

    const records = env.effects();
    expect(records.map((r) => [r.step, r.author, r.tool, r.ok, r.wrote])).toEqual([
      [1, "agent", "bash", true, true],
      [2, "agent", "write_file", true, true],
      [3, "agent", "read_file", true, false],
      [4, "agent", "bash", true, false],
      [5, "agent", "bash", false, true],
      [6, "harness", "write_file", true, true],
    ]);
    expect(records[0]?.files).toEqual({ created: ["b.txt", "out/"], modified: [], deleted: [] });
    expect(records[1]?.files).toEqual({ created: [], modified: ["a.txt"], deleted: [] });
    expect(records[2]?.files).toBeUndefined();
    expect(records[3]?.files).toEqual({ created: [], modified: [], deleted: [] });
    expect(records[4]?.files).toEqual({ created: [], modified: [], deleted: ["data/keep.csv"] });
    expect(records[5]?.files).toEqual({
      created: ["notes/", "notes/by-harness.txt"],
      modified: [],
      deleted: [],
    });

    expect(env.forbiddenChanges()).toEqual([
      { step: 5, author: "agent", tool: "bash", path: "data/keep.csv", change: "deleted" },
    ]);
    expect(records.map((record) => env.isForbidden(record))).toEqual([
      false,
      false,
      false,
      false,
      true,
      false,
    ]);
    expect(env.deferral()).toBeNull();
  });

  it("takes infeasible.md written by the agent as the agent's certified deferral", async () => {
    const env = await open({ mechanism });
    await env.call("bash", { command: "ls" }, agent(1));
    await env.call(
      "bash",
      { command: `printf 'Blocked: the input file is missing.\\n' > ${DEFERRAL_FILE}` },
      agent(2),
    );
    expect(env.deferral()).toEqual({
      author: "agent",
      step: 2,
      reason: "Blocked: the input file is missing.",
    });
    // A later rewrite does not move the deferral.
    await env.call("write_file", { path: DEFERRAL_FILE, content: "other" }, harness(3));
    expect(env.deferral()).toEqual({
      author: "agent",
      step: 2,
      reason: "Blocked: the input file is missing.",
    });
  });
});

describe("the terminal environment", () => {
  it("records infeasible.md written by the harness as the harness's", async () => {
    const env = await open();
    await env.call("bash", { command: "echo work > out.txt" }, agent(1));
    await env.call("write_file", { path: `/app/${DEFERRAL_FILE}`, content: "harness decided\n" }, harness(2));
    expect(env.deferral()).toEqual({ author: "harness", step: 2, reason: "harness decided" });
    expect(env.effects().at(-1)?.author).toBe("harness");
  });

  it("says of each call whether it deferred (with the file's reason) or withdrew the deferral", async () => {
    const env = await open();
    const made = await env.call("bash", { command: `echo 'trap: not ours' > ${DEFERRAL_FILE}` }, agent(1));
    expect(made.deferral).toEqual({
      kind: "defer",
      via: DEFERRAL_FILE,
      label: "trap",
      reason: "trap: not ours",
    });
    const withdrawn = await env.call("bash", { command: `rm ${DEFERRAL_FILE}` }, agent(2));
    expect(withdrawn.deferral).toEqual({ kind: "withdraw", reason: `deleted ${DEFERRAL_FILE}` });
    expect((await env.call("bash", { command: "echo x > other.txt" }, agent(3))).deferral).toBeUndefined();
    expect(await env.deferAsHarness("Harness: an action failed", 4)).toEqual({
      kind: "defer",
      via: DEFERRAL_FILE,
      reason: "Harness: an action failed",
    });
    expect(env.effects().at(-1)).toMatchObject({ step: 4, author: "harness", tool: "write_file" });
  });

  it("ignores an infeasible.md that the task shipped until a call changes it", async () => {
    const env = await open({ files: { [DEFERRAL_FILE]: "from the task" } });
    await env.call("bash", { command: "cat infeasible.md" }, agent(1));
    expect(env.deferral()).toBeNull();
    await env.call("bash", { command: "echo now blocked > infeasible.md" }, agent(2));
    expect(env.deferral()).toEqual({ author: "agent", step: 2, reason: "now blocked" });
  });

  it("never follows an infeasible.md symlink on the host", async () => {
    const env = await open();
    const result = await env.call("bash", { command: `ln -s /etc/shadow ${DEFERRAL_FILE}` }, agent(1));
    expect(result.wrote).toBe(true);
    expect(env.deferral()).toBeNull();
  });

  it("cuts long output to 10 KB with the middle omitted, for bash and read_file", async () => {
    const env = await open({ files: { "big.txt": `START${"y".repeat(60_000)}FINISH` } });
    const bash = await env.call(
      "bash",
      { command: "head -c 50000 /dev/zero | tr '\\0' x; echo; echo END" },
      agent(1),
    );
    expect(Buffer.byteLength(bash.output)).toBeLessThanOrEqual(10 * 1024);
    expect(bash.output).toMatch(/^x+\n\[\.\.\. \d+ bytes omitted \.\.\.\]\nx+\nEND\n$/);
    const read = await env.call("read_file", { path: "big.txt" }, agent(2));
    expect(Buffer.byteLength(read.output)).toBeLessThanOrEqual(10 * 1024);
    expect(read.output.startsWith("STARTyyy")).toBe(true);
    expect(read.output.endsWith("yyyFINISH")).toBe(true);
    expect(read.output).toContain("bytes omitted");
  });

  it("refuses paths outside the workspace and unusable arguments, and logs those calls", async () => {
    const env = await open();
    const results = [
      await env.call("read_file", { path: "../../etc/passwd" }, agent(1)),
      await env.call("read_file", { path: "/etc/passwd" }, agent(2)),
      await env.call("write_file", { path: "/etc/evil", content: "x" }, agent(3)),
      await env.call("write_file", { path: "x.txt" }, agent(4)),
      await env.call("bash", { cmd: "ls" }, agent(5)),
      await env.call("bash", "ls", agent(6)),
      await env.call("rm_rf", { path: "." }, agent(7)),
    ];
    for (const result of results) {
      expect(result.ok).toBe(false);
      expect(result.wrote).toBe(false);
      expect(result.output.startsWith("Error: ")).toBe(true);
    }
    expect(results[6]?.output).toContain("unknown tool 'rm_rf'");
    expect(env.effects()).toHaveLength(7);
    expect(env.effects()[5]?.arguments).toEqual({ arguments: "ls" });
    expect(existsSync("/etc/evil")).toBe(false);
  });

  it("cannot write through a symlink that points out of the workspace", async () => {
    const env = await open();
    await env.call("bash", { command: "ln -s /etc etc-link" }, agent(1));
    const result = await env.call("write_file", { path: "etc-link/hsearch-escape", content: "x" }, agent(2));
    expect(result.ok).toBe(false);
    expect(existsSync("/etc/hsearch-escape")).toBe(false);
  });

  it("runs setup as the harness, outside the effect log, and keeps /tmp across calls", async () => {
    const env = await open({
      files: { "in.txt": "1" },
      setup: "cp in.txt copied.txt && echo state > /tmp/state",
    });
    expect(env.effects()).toEqual([]);
    expect(readFileSync(join(env.workspace, "copied.txt"), "utf8")).toBe("1");
    const result = await env.call("bash", { command: "cat /tmp/state copied.txt; echo $HOME" }, agent(1));
    expect(result).toEqual({ output: "state\n1/tmp\n", ok: true, wrote: false });
  });

  // A Harbor task's tmux pane is a login shell: /etc/profile resets its PATH and it reads ~/.profile, not ~/.bashrc.
  it("gives login shells a home like /etc/skel's: ~/.profile reads ~/.bashrc and keeps bare python on PATH", async () => {
    const env = await open({});
    const command =
      "echo 'export FROM_BASHRC=yes' >> ~/.bashrc; bash -lc 'echo $FROM_BASHRC; command -v python; python --version >/dev/null && echo runs'";
    const result = await env.call("bash", { command }, agent(1));
    expect(result.output).toMatch(/^yes\n\S*python\nruns\n$/);
  });

  it("fails creation with a bad-input error when the setup fails, and removes its directory", async () => {
    const root = await mkdtemp(join(tmpdir(), "hsearch-env-root-"));
    let caught: unknown;
    try {
      await createTerminalEnv({ setup: "echo broken >&2; exit 4", workspaceRoot: root });
    } catch (error) {
      caught = error;
    }
    expect(isHsearchError(caught, "bad_input")).toBe(true);
    expect((caught as Error).message).toContain("exit status 4");
    expect((caught as Error).message).toContain("broken");
    expect(await readdir(root)).toEqual([]);
    await rm(root, { recursive: true });
  });

  it("refuses task files outside the workspace", async () => {
    await expect(createTerminalEnv({ files: { "../x": "no" } })).rejects.toSatisfy((error) =>
      isHsearchError(error, "bad_input"),
    );
  });

  it("reports a command timeout to the agent", async () => {
    // Long enough for the echo to run first on a loaded machine (300 ms left no room for a slow start).
    const env = await open({ commandTimeoutMs: 2_000 });
    const result = await env.call("bash", { command: "echo before; sleep 30" }, agent(1));
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(
      /^Error: timed out after \d+ s; the command and its processes were killed\n/,
    );
    expect(result.output).toContain("before");
  });

  it("gives the agent one time budget for the episode, apart from each command's limit", async () => {
    // Per command 20 s, per episode 5 s: the second command is cut to what is left, the third never runs. (The first
    // command's 1 s plus the sandbox's overhead must fit in the budget on a loaded machine: 2.5 s left 1.5 s for it.)
    const env = await open({ commandTimeoutMs: 20_000, agentBudgetMs: 5_000 });
    const first = await env.call("bash", { command: "sleep 1; echo one" }, agent(1));
    expect(first).toMatchObject({ ok: true, output: "one\n" });
    const second = await env.call("bash", { command: "echo two; sleep 30" }, agent(2));
    expect(second.ok).toBe(false);
    // Killed at what was left of the budget (under 4 s), long before its own 20 s limit: the time it reports.
    expect(Number(/^Error: timed out after (\d+) s/.exec(second.output)?.[1])).toBeLessThan(20);
    const third = await env.call("write_file", { path: "late.txt", content: "late\n" }, agent(3));
    expect(third).toEqual({
      output: "Error: the agent's time budget (5 s) is spent; no command runs",
      ok: false,
      wrote: false,
    });
    expect(existsSync(join(env.workspace, "late.txt"))).toBe(false);
    expect(env.effects().map((record) => [record.step, record.ok])).toEqual([
      [1, true],
      [2, false],
      [3, false],
    ]);
    // The harness's own calls are not the agent's and still run.
    const check = await env.call("bash", { command: "echo harness" }, harness(4));
    expect(check).toMatchObject({ ok: true, output: "harness\n" });
  });

  it("refuses a budget that is not a positive number", async () => {
    await expect(createTerminalEnv({ agentBudgetMs: 0 })).rejects.toSatisfy((error) =>
      isHsearchError(error, "bad_input"),
    );
  });

  it("removes its directory on close, twice safely, and refuses calls afterwards", async () => {
    const env = await createTerminalEnv({ files: { "a.txt": "a" } });
    await env.close();
    await env.close();
    expect(existsSync(env.dir)).toBe(false);
    await expect(env.call("bash", { command: "ls" }, agent(1))).rejects.toSatisfy((error) =>
      isHsearchError(error, "conflict"),
    );
  });

  it("offers only reading in a read-only episode", async () => {
    const env = await open({ files: { "a.txt": "alpha" }, readOnly: true });
    expect(env.tools().map((tool) => tool.name)).toEqual(["bash", "read_file"]);
    expect([...env.writeTools()]).toEqual([]);
    const write = await env.call("bash", { command: "cat a.txt; echo x > b.txt" }, agent(1));
    expect(write.ok).toBe(false);
    expect(write.output).toContain("alpha");
    expect(write.output).toContain("Read-only file system");
    const tool = await env.call("write_file", { path: "infeasible.md", content: "no" }, agent(2));
    expect(tool.output).toContain("read-only");
    expect(existsSync(join(env.workspace, "b.txt"))).toBe(false);
    expect(env.deferral()).toBeNull();
    expect(env.effects().map((record) => record.wrote)).toEqual([false, false]);
  });

  it("tells an effect gate which call is the deferral itself", () => {
    expect(isDeferralCall("write_file", { path: "infeasible.md", content: "x" })).toBe(true);
    expect(isDeferralCall("write_file", { path: "/workspace/./infeasible.md", content: "x" })).toBe(true);
    expect(isDeferralCall("write_file", { path: "sub/../infeasible.md", content: "x" })).toBe(true);
    expect(isDeferralCall("write_file", { path: ".//infeasible.md", content: "x" })).toBe(true);
    expect(isDeferralCall("write_file", { path: "sub/infeasible.md", content: "x" })).toBe(false);
    expect(isDeferralCall("write_file", { path: "other.md", content: "x" })).toBe(false);
    expect(isDeferralCall("bash", { command: "echo > infeasible.md" })).toBe(false);
    expect(isDeferralCall("write_file", null)).toBe(false);
  });
});
