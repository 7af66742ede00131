import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./redis-server";

/**
 * A private container registry (Debian's `docker-registry`; scripts/test.sh installs it) on a free 127.0.0.1 port,
 * its storage in a temp dir: docker pushes and pulls there over plain HTTP (the engine trusts 127.0.0.0/8), so a
 * test can make an image pullable, or not, without the internet. `stop()` ends it and removes its storage.
 */
export interface TestRegistry {
  /** `127.0.0.1:<port>`, the prefix of the registry's image references. */
  host: string;
  stop(): Promise<void>;
}

export async function startRegistry(): Promise<TestRegistry> {
  const dir = mkdtempSync(join(tmpdir(), "hsearch-registry-"));
  let lastError: unknown;
  // The port is free when chosen; another process may take it before the registry binds: try a few.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const config = join(dir, "config.yml");
    writeFileSync(
      config,
      [
        "version: 0.1",
        "log: { level: warn }",
        `storage: { filesystem: { rootdirectory: ${JSON.stringify(join(dir, "data"))} } }`,
        `http: { addr: "127.0.0.1:${port}" }`,
        "",
      ].join("\n"),
    );
    const child = spawn("docker-registry", ["serve", config], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      await answering(port, child);
      return {
        host: `127.0.0.1:${port}`,
        stop: async () => {
          await stopChild(child);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    } catch (error) {
      lastError = error;
      await stopChild(child);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  throw lastError;
}

/** Wait until the registry answers its API's root (`/v2/`), or fail with what it printed. */
async function answering(port: number, child: ChildProcess): Promise<void> {
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited (${child.exitCode}): ${output}`);
    const status = await fetch(`http://127.0.0.1:${port}/v2/`).then(
      (reply) => reply.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`docker-registry did not answer on 127.0.0.1:${port}: ${output}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
