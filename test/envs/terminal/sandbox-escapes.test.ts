import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isHsearchError } from "../../../src/core/errors";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import {
  availableMechanisms,
  detectSandbox,
  runInSandbox,
  type SandboxInfo,
  sandboxUserFor,
} from "../../../src/envs/terminal/sandbox";
import { runWithMechanism } from "../../../src/envs/terminal/sandbox-run";
import { makeWorkspace, processesMatching, sleep } from "./helpers";

const mechanisms = await availableMechanisms();
const BASE_NAMES = new Set(["PATH", "HOME", "LANG", "TERM", "PWD", "SHLVL", "_"]);

describe("sandbox detection", () => {
  it("finds at least one working mechanism and picks one of them", async () => {
    expect(mechanisms.length).toBeGreaterThan(0);
    const chosen = await detectSandbox();
    expect(mechanisms.map((info) => info.mechanism)).toContain(chosen.mechanism);
    expect(chosen.privileged).toBe(process.geteuid?.() === 0);
  });
});

describe.each(mechanisms.map((info) => [info.mechanism, info] as const))("the %s sandbox", (_name, info) => {
  let workspace: string;
  let cleanup: () => Promise<void>;
  const run = (command: string, extra: Partial<Parameters<typeof runInSandbox>[0]> = {}) =>
    runInSandbox({ workspace, command, timeoutMs: 20_000, mechanism: info.mechanism, ...extra });

  beforeAll(async () => {
    ({ dir: workspace, cleanup } = await makeWorkspace(info));
  });
  afterAll(async () => {
    await cleanup();
  });

  it("runs the command in /workspace as an unprivileged user without capabilities", async () => {
    const result = await run(
      "pwd; id -u; grep -E '^Cap(Prm|Eff|Bnd|Amb):' /proc/self/status; echo hi > made.txt",
    );
    expect(result.exitCode).toBe(0);
    const [cwd, uid, ...caps] = result.stdout.trim().split("\n");
    expect(cwd).toBe("/workspace");
    const expectedUid = info.privileged ? sandboxUserFor(workspace).uid : process.getuid?.();
    expect(uid).toBe(String(expectedUid));
    expect(uid).not.toBe("0");
    expect(caps).toHaveLength(4);
    for (const line of caps) expect(line).toMatch(/:\s+0{16}$/);
    expect(readFileSync(join(workspace, "made.txt"), "utf8")).toBe("hi\n");
  });

  it("cannot read /etc/shadow", async () => {
    const result = await run("cat /etc/shadow");
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("Permission denied");
    expect(result.stdout).toBe("");
  });

  it("cannot write outside the workspace, and its /tmp is not the host's", async () => {
    const tag = `hsearch-escape-${process.pid}-${info.mechanism}`;
    const targets = [`/etc/${tag}`, `/root/${tag}`, `/usr/${tag}`, `/var/${tag}`, `/${tag}`];
    const script = [
      ...targets.map((target) => `echo x > ${target} 2>/dev/null && echo "wrote ${target}"`),
      `echo x > /tmp/${tag} && echo x > /dev/shm/${tag} && echo "private tmp ok"`,
    ].join("\n");
    const result = await run(script);
    expect(result.stdout).toContain("private tmp ok");
    for (const target of targets) {
      expect(result.stdout).not.toContain(`wrote ${target}`);
      expect(existsSync(target)).toBe(false);
    }
    // The sandbox's /tmp and /dev/shm writes succeeded, yet the host's are untouched.
    expect(existsSync(`/tmp/${tag}`)).toBe(false);
    expect(existsSync(`/dev/shm/${tag}`)).toBe(false);
  });

  it("hides the host's home, project, /run and /var directories (no daemon sockets)", async () => {
    const hidden = ["/root", "/home", "/run", "/var/run", "/var/lib", PACKAGE_ROOT];
    const result = await run(
      `ls -d ${hidden.map((path) => JSON.stringify(path)).join(" ")} 2>/dev/null; echo "HOME=$HOME"`,
    );
    expect(result.stdout.trim()).toBe("HOME=/tmp");
    const varTmp = await run("echo x > /var/tmp/in-var-tmp && cat /tmp/in-var-tmp");
    expect(varTmp.stdout).toBe("x\n");
  });

  describe("the network", () => {
    let server: Server;
    let port = 0;
    let connections = 0;
    beforeAll(async () => {
      server = createServer((socket) => {
        connections += 1;
        socket.end("hello from the host\n");
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const address = server.address();
      port = typeof address === "object" && address ? address.port : 0;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it("cannot reach a server on the host's 127.0.0.1", async () => {
      // Sanity: the server is reachable from the host itself.
      const host = await promisify(execFile)("bash", ["-c", `exec 3<>/dev/tcp/127.0.0.1/${port}; cat <&3`]);
      expect(host.stdout).toContain("hello from the host");
      const before = connections;
      const result = await run(`exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected && cat <&3`);
      await sleep(50);
      expect(result.exitCode).not.toBe(0);
      expect(result.stdout).not.toContain("connected");
      expect(result.stdout).not.toContain("hello from the host");
      expect(connections).toBe(before);
    });

    it("has no interface but its own loopback", async () => {
      const result = await run("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
      expect(result.stdout.trim().split("\n")).toEqual(["lo"]);
      const outside = await run("exec 3<>/dev/tcp/1.1.1.1/80 && echo connected");
      expect(outside.stdout).not.toContain("connected");
    });
  });

  it("does not see the parent's environment (API keys)", async () => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = "sk-test-hsearch-leak-check";
    try {
      const result = await run(
        "env; cat /proc/1/environ 2>/dev/null | tr '\\0' '\\n'; cat /proc/self/environ",
      );
      expect(result.output).not.toContain("sk-test-hsearch-leak-check");
      const names = (await run("env -0 | tr '\\0' '\\n' | cut -d= -f1")).stdout.trim().split("\n");
      for (const name of names) expect(BASE_NAMES).toContain(name);
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });

  it("passes only the variables it is given", async () => {
    const result = await run('echo "$TASK_VAR"', { env: { TASK_VAR: "given" } });
    expect(result.stdout).toBe("given\n");
  });

  it("survives a fork bomb: the command ends and leaves no process behind", async () => {
    const marker = `forkbomb-${process.pid}-${info.mechanism}`;
    const result = await run(`# ${marker}\nbomb() { bomb | bomb & }; bomb; sleep 60`, {
      timeoutMs: 3_000,
      maxProcs: 64,
    });
    expect(result.timedOut).toBe(true);
    expect(await processesMatching(marker)).toEqual([]);
    // The host and the sandbox still work.
    expect(execFileSync("echo", ["alive"], { encoding: "utf8" })).toBe("alive\n");
    expect((await run("echo still here")).stdout).toBe("still here\n");
  });

  it("kills the command and its children on timeout", async () => {
    const marker = `timeout-${process.pid}-${info.mechanism}`;
    const result = await run(`# ${marker}\n(sleep 2; echo late > late.txt) & sleep 60`, { timeoutMs: 500 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe("SIGKILL");
    expect(await processesMatching(marker)).toEqual([]);
    await sleep(2_500);
    expect(existsSync(join(workspace, "late.txt"))).toBe(false);
  });

  it("kills background children when the command ends", async () => {
    const marker = `orphan-${process.pid}-${info.mechanism}`;
    const result = await run(`# ${marker}\n(sleep 1; echo late > orphan.txt) & echo started`);
    expect(result.stdout).toBe("started\n");
    expect(await processesMatching(marker)).toEqual([]);
    await sleep(1_500);
    expect(existsSync(join(workspace, "orphan.txt"))).toBe(false);
  });

  it("limits CPU seconds", async () => {
    const result = await run("while :; do :; done", { cpuSeconds: 1, timeoutMs: 30_000 });
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBeGreaterThan(128);
  });

  it("limits memory", async () => {
    const result = await run("x=$(head -c 400000000 /dev/zero | tr '\\0' a); printf %s \"$x\" | wc -c", {
      memoryMb: 128,
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).not.toContain("400000000");
  });

  it("bounds captured output and shows at most 10 KB with the middle omitted", async () => {
    const result = await run("head -c 3000000 /dev/zero | tr '\\0' a; echo; echo THE-END", {
      maxOutputBytes: 64 * 1024,
    });
    expect(result.exitCode).toBe(0);
    expect(result.outputBytes).toBe(3_000_000 + 1 + 8);
    expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(64 * 1024 + 100);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(10 * 1024);
    expect(result.output).toMatch(/^a+\n\[\.\.\. \d+ bytes omitted \.\.\.\]\na+\nTHE-END\n$/);
  });

  it("mounts the workspace read-only when asked", async () => {
    const result = await run("echo x > ro.txt", { readOnlyWorkspace: true });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("Read-only file system");
    expect(existsSync(join(workspace, "ro.txt"))).toBe(false);
  });

  it("feeds stdin and runs an argv without a shell", async () => {
    const result = await run("cat", { stdin: "from stdin" });
    expect(result.stdout).toBe("from stdin");
    const argv = await runInSandbox({
      workspace,
      command: ["printf", "%s|", "a b", "$HOME"],
      timeoutMs: 10_000,
      mechanism: info.mechanism,
    });
    expect(argv.stdout).toBe("a b|$HOME|");
  });

  it("refuses to run when the sandbox cannot be set up, instead of running unsandboxed", async () => {
    const broken: SandboxInfo =
      info.mechanism === "bwrap"
        ? { ...info, tools: { ...info.tools, bwrap: "/bin/false" } }
        : { ...info, tools: { ...info.tools, mount: "/bin/false" } };
    const attempt = runWithMechanism(broken, {
      workspace,
      command: "echo ran > ran.txt",
      timeoutMs: 10_000,
    });
    await expect(attempt).rejects.toSatisfy((error) => isHsearchError(error, "sandbox"));
    expect(existsSync(join(workspace, "ran.txt"))).toBe(false);
    const missing = runWithMechanism(
      { ...info, tools: { ...info.tools, setpriv: "/nonexistent/setpriv", bwrap: "/nonexistent/bwrap" } },
      { workspace, command: "true", timeoutMs: 10_000 },
    );
    await expect(missing).rejects.toSatisfy((error) => isHsearchError(error, "sandbox"));
  });

  afterEach(async () => {
    // No sandbox mount ever shows up in the host's mount table.
    expect(await readFile("/proc/self/mountinfo", "utf8")).not.toContain("hsearch-sandbox");
  });
});
