import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { availableMechanisms } from "../../../src/envs/terminal/sandbox";
import { createTerminalEnv } from "../../../src/envs/terminal/terminal-env";
import { runVerifier } from "../../../src/envs/terminal/verifier";
import { processesMatching, sleep, terminalEnvOpener } from "./helpers";

const mechanisms = (await availableMechanisms()).map((info) => info.mechanism);
const agent = (step: number) => ({ step, author: "agent" as const });

const open = terminalEnvOpener();

/** A tiny HTTP server on the sandbox's loopback that answers `marker`, started in the background. */
function serverCommand(port: number, marker: string): string {
  const server =
    "import http.server\n" +
    "class H(http.server.BaseHTTPRequestHandler):\n" +
    "    def do_GET(self):\n" +
    `        self.send_response(200); self.end_headers(); self.wfile.write(b'${marker}')\n` +
    "    def log_message(self, *args): pass\n" +
    `http.server.HTTPServer(('127.0.0.1', ${port}), H).serve_forever()\n`;
  return `cat > /tmp/server.py <<'EOF'\n${server}EOF\npython3 /tmp/server.py >/dev/null 2>&1 &\necho started`;
}

function fetchCommand(port: number): string {
  return (
    'python3 -c "import urllib.request, time\n' +
    "for _ in range(50):\n" +
    "    try: print(urllib.request.urlopen('http://127.0.0.1:" +
    port +
    "').read().decode()); break\n" +
    '    except OSError: time.sleep(0.1)"'
  );
}

describe.each(mechanisms)("the persistent episode sandbox (%s)", (mechanism) => {
  it("keeps a background server alive from one agent command to the next and to the verifier", async () => {
    const env = await open({ mechanism });
    const marker = `alive-${process.pid}`;
    const started = await env.call("bash", { command: serverCommand(8765, marker) }, agent(1));
    expect(started).toMatchObject({ ok: true, output: "started\n" });
    const next = await env.call("bash", { command: fetchCommand(8765) }, agent(2));
    expect(next.output).toBe(`${marker}\n`);
    const verdict = await runVerifier(
      env,
      `out=$(${fetchCommand(8765)}); [ "$out" = ${marker} ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt`,
    );
    expect(verdict.reward).toBe(1);
  });

  it("kills a timed-out command's process group but keeps the episode and its earlier services", async () => {
    // Each command but the slow one must fit: the fetch waits for python's server to start, which may take over 1.5 s on
    // a loaded machine.
    const env = await open({ mechanism, commandTimeoutMs: 8_000 });
    const marker = `kept-${process.pid}`;
    await env.call("bash", { command: serverCommand(8766, marker) }, agent(1));
    expect((await env.call("bash", { command: fetchCommand(8766) }, agent(2))).output).toBe(`${marker}\n`);
    const slow = await env.call(
      "bash",
      { command: "sleep 300 & echo $! > /tmp/child.pid; echo before; sleep 300" },
      agent(3),
    );
    expect(slow.ok).toBe(false);
    expect(slow.output).toMatch(
      /^Error: timed out after \d+ s; the command and its processes were killed\nbefore\n$/,
    );
    const after = await env.call(
      "bash",
      {
        // Killed is dead or a zombie (state Z) not yet reaped by the namespace's init; on a loaded machine the
        // SIGKILLed child may also not have run yet to die, so wait for it (up to 5 s) instead of racing the scheduler.
        command: `pid=$(cat /tmp/child.pid); for i in $(seq 50); do state=$(cut -d' ' -f3 /proc/$pid/stat 2>/dev/null); if [ -z "$state" ] || [ "$state" = Z ]; then break; fi; sleep 0.1; done; if [ -z "$state" ] || [ "$state" = Z ]; then echo child-gone; else echo child-alive; fi; ${fetchCommand(8766)}`,
      },
      agent(4),
    );
    expect(after.output).toBe(`child-gone\n${marker}\n`);
  });

  it("has a writable /, its own /var over the host's read-only /var/lib, /dev/pts, and a read-only /usr", async () => {
    const env = await open({ mechanism });
    const result = await env.call(
      "bash",
      {
        command: [
          "mkdir -p /srv/data /root/.cache /opt2 && echo ok > /srv/data/x && cat /srv/data/x",
          "echo log > /var/log/app.log && cat /var/log/app.log",
          "test -d /var/lib/dpkg && echo var-lib-visible",
          "touch /var/lib/x 2>/dev/null && echo var-lib-writable || echo var-lib-read-only",
          "touch /usr/x 2>/dev/null && echo usr-writable || echo usr-read-only",
          "python3 -c 'import os, pty; m, s = pty.openpty(); print(os.ttyname(s).startswith(\"/dev/pts/\"))'",
        ].join("; "),
      },
      agent(1),
    );
    expect(result.output).toBe("ok\nlog\nvar-lib-visible\nvar-lib-read-only\nusr-read-only\nTrue\n");
    const later = await env.call("bash", { command: "cat /srv/data/x; ls -d /opt2" }, agent(2));
    expect(later.output).toBe("ok\n/opt2\n");
  });

  it("runs address-space-hungry programs by default and still bounds the memory they use", async () => {
    const env = await open({ mechanism, limits: { memoryMb: 256 } });
    // Browsers and JITs reserve far more address space than they use (Chromium: terabytes); only use counts.
    const reserve = await env.call(
      "bash",
      {
        command:
          "python3 -c 'import mmap; m = mmap.mmap(-1, 64 << 30, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ); print(len(m) >> 30)'",
      },
      agent(1),
    );
    expect(reserve.output).toBe("64\n");
    const use = await env.call(
      "bash",
      { command: "python3 -c 'x = bytearray(600 << 20); print(len(x))'" },
      agent(2),
    );
    expect(use.ok).toBe(false);
    expect(use.output).toContain("MemoryError");
  });

  it("keeps stdout and stderr interleaved, passes stdin to write_file, and survives the agent killing its own processes", async () => {
    const env = await open({ mechanism });
    const mixed = await env.call("bash", { command: "echo a; echo b >&2; echo c; echo d >&2" }, agent(1));
    expect(mixed.output).toBe("a\nb\nc\nd\n");
    const big = "x".repeat(2_000_000);
    const wrote = await env.call("write_file", { path: "big.txt", content: big }, agent(2));
    expect(wrote.ok).toBe(true);
    // kill(-1) reaches every process of the agent's uid but the caller: never the supervisor of the episode.
    const killAll = await env.call("bash", { command: "sleep 100 & kill -9 -1; echo survived" }, agent(3));
    expect(killAll.output).toBe("survived\n");
    const size = await env.call("bash", { command: "wc -c < big.txt" }, agent(4));
    expect(size.output).toBe("2000000\n");
  });

  /** Whether the background sleep runs under its marker name (its exec done). */
  async function sleepRunsAs(marker: string): Promise<boolean> {
    for (const pid of await processesMatching(marker)) {
      const argv0 = (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).split("\0")[0];
      if (argv0 === marker) return true;
    }
    return false;
  }

  it("ends every process of the episode on close", async () => {
    const env = await createTerminalEnv({ mechanism });
    const marker = `episode-end-${process.pid}-${mechanism}`;
    // `exec -a` makes the sleep itself carry the marker, so no fork leaves two matching processes; the command
    // returns before its background child has run, so wait until the child shows (a loaded machine is slow).
    await env.call(
      "bash",
      { command: `nohup setsid bash -c 'exec -a ${marker} sleep 600' >/dev/null 2>&1 & echo ok` },
      agent(1),
    );
    for (let tries = 0; tries < 600 && !(await sleepRunsAs(marker)); tries++) await sleep(100);
    expect(await processesMatching(marker)).toHaveLength(1);
    const dir = env.dir;
    await env.close();
    expect(await processesMatching(marker)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  });

  it("keeps /logs out of the agent's reach until the verifier runs", async () => {
    if (process.geteuid?.() !== 0) return expect(process.geteuid?.()).not.toBe(0);
    const env = await open({ mechanism });
    const attempt = await env.call("bash", { command: "echo 1 > /logs/reward.txt" }, agent(1));
    expect(attempt.ok).toBe(false);
    expect(existsSync(`${env.session.paths.logs}/reward.txt`)).toBe(false);
    const verdict = await runVerifier(env, "echo 1 > /logs/verifier/reward.txt");
    expect(verdict.reward).toBe(1);
    expect(readFileSync(`${env.session.paths.logs}/verifier/reward.txt`, "utf8")).toBe("1\n");
  });
});
