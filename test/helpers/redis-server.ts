import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";

/**
 * A private `redis-server` (Debian's package; `.ci/run` installs it) on a free 127.0.0.1 port, without persistence,
 * so a test needs no shared Redis and leaves nothing behind. `stop()` ends it.
 */
export interface TestRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  let lastError: unknown;
  // The port is free when chosen; another process may take it before redis binds: try a few.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    try {
      const child = await spawnRedis(port);
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        stop: () => stopChild(child),
      };
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

/** A port nothing listens on (for the "Redis is unreachable" tests, and to start one). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function spawnRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        child.stdout?.off("data", onData);
        child.stdout?.resume();
        resolve(child);
      }
    };
    child.stdout?.on("data", onData);
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
