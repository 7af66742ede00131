/**
 * Which sandbox works on this machine. Each mechanism is probed by really running a command in it (and checking
 * who it ran as and that the workspace is writable); the first that works is used. If none works, agent commands
 * cannot run: hsearch never falls back to running them unsandboxed.
 *
 * Order: bubblewrap where installed, else util-linux `unshare` + `mount` + `setpriv` + `prlimit`.
 * `HSEARCH_SANDBOX=bwrap|unshare` (or the `mechanism` option) forces one.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HsearchError, isHsearchError } from "../../core";
import { findTool, handWorkspaceTo } from "./sandbox-host";
import { runWithMechanism } from "./sandbox-run";
import {
  SANDBOX_MECHANISMS,
  type SandboxInfo,
  type SandboxMechanism,
  type SandboxTools,
} from "./sandbox-types";

/** The identity the probe runs as when privileged (nobody). */
const PROBE_USER = { uid: 65534, gid: 65534 };
const PROBE_TIMEOUT_MS = 15_000;

const probes = new Map<SandboxMechanism, Promise<SandboxInfo | string>>();
const detections = new Map<string, Promise<SandboxInfo>>();

/**
 * The mechanism to use. Cached per process. Throws `HsearchError("sandbox")` naming what failed for each
 * mechanism when none works.
 */
export function detectSandbox(options: { mechanism?: SandboxMechanism } = {}): Promise<SandboxInfo> {
  let forced: SandboxMechanism | undefined;
  try {
    forced = options.mechanism ?? forcedByEnvironment();
  } catch (error) {
    return Promise.reject(error);
  }
  const key = forced ?? "auto";
  let detection = detections.get(key);
  if (!detection) {
    detection = detect(forced ? [forced] : [...SANDBOX_MECHANISMS]);
    detections.set(key, detection);
  }
  return detection;
}

/** Every mechanism that works here (tests and benchmarks run each). */
export async function availableMechanisms(): Promise<SandboxInfo[]> {
  const results = await Promise.all(SANDBOX_MECHANISMS.map(probe));
  return results.filter((result): result is SandboxInfo => typeof result !== "string");
}

function forcedByEnvironment(): SandboxMechanism | undefined {
  const value = process.env.HSEARCH_SANDBOX;
  if (value === undefined || value === "") return undefined;
  if ((SANDBOX_MECHANISMS as readonly string[]).includes(value)) return value as SandboxMechanism;
  throw new HsearchError(
    "bad_input",
    `HSEARCH_SANDBOX must be one of ${SANDBOX_MECHANISMS.join(", ")}, got '${value}'`,
    { field: "HSEARCH_SANDBOX" },
  );
}

function detect(order: SandboxMechanism[]): Promise<SandboxInfo> {
  return chooseMechanism(order, probe);
}

/** The first mechanism of `order` whose probe succeeds; else a sandbox error naming every failure. */
export async function chooseMechanism(
  order: readonly SandboxMechanism[],
  probeOne: (mechanism: SandboxMechanism) => Promise<SandboxInfo | string>,
): Promise<SandboxInfo> {
  const rejected: SandboxInfo["rejected"] = [];
  for (const mechanism of order) {
    const result = await probeOne(mechanism);
    if (typeof result !== "string") return { ...result, rejected };
    rejected.push({ mechanism, reason: result });
  }
  const reasons = rejected.map(({ mechanism, reason }) => `${mechanism}: ${reason}`).join("; ");
  throw new HsearchError(
    "sandbox",
    `no sandbox works on this machine (${reasons}). Agent commands never run unsandboxed: install bubblewrap ` +
      "(apt-get install bubblewrap), or run as root, or enable unprivileged user namespaces.",
  );
}

/** The mechanism's info if a probe command ran correctly in it, else why not. */
function probe(mechanism: SandboxMechanism): Promise<SandboxInfo | string> {
  let result = probes.get(mechanism);
  if (!result) {
    result = runProbe(mechanism);
    probes.set(mechanism, result);
  }
  return result;
}

async function runProbe(mechanism: SandboxMechanism): Promise<SandboxInfo | string> {
  const found = requiredTools(mechanism);
  if (typeof found === "string") return found;
  const privileged = process.geteuid?.() === 0;
  const info: SandboxInfo = {
    mechanism,
    privileged,
    tools: found,
    // bwrap always brings up the loopback of the namespace it creates.
    loopback: mechanism === "bwrap" || found.ip ? "up" : "down",
    rejected: [],
  };
  const workspace = await mkdtemp(join(tmpdir(), "hsearch-probe-"));
  try {
    if (privileged) await handWorkspaceTo(workspace, PROBE_USER);
    const run = await runWithMechanism(info, {
      workspace,
      command: ["/bin/sh", "-c", "id -u > /workspace/probe"],
      timeoutMs: PROBE_TIMEOUT_MS,
      user: PROBE_USER,
    });
    if (run.timedOut) return `the probe command timed out after ${PROBE_TIMEOUT_MS} ms`;
    if (run.exitCode !== 0) return `the probe command failed (exit ${run.exitCode}): ${run.output.trim()}`;
    const uid = (await readFile(join(workspace, "probe"), "utf8")).trim();
    // Without root, both mechanisms map the caller to its own uid inside a user namespace.
    const expected = privileged ? PROBE_USER.uid : process.getuid?.();
    if (uid !== String(expected)) return `the probe ran as uid ${uid}, expected ${expected}`;
    return info;
  } catch (error) {
    if (isHsearchError(error, "sandbox")) return error.message;
    return error instanceof Error ? error.message : String(error);
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

function requiredTools(mechanism: SandboxMechanism): SandboxTools | string {
  const setpriv = findTool("setpriv");
  const prlimit = findTool("prlimit");
  const timeout = findTool("timeout");
  const missing = [setpriv ? "" : "setpriv", prlimit ? "" : "prlimit", timeout ? "" : "timeout"];
  const tools: SandboxTools = { setpriv: setpriv ?? "", prlimit: prlimit ?? "", timeout };
  if (mechanism === "bwrap") {
    tools.bwrap = findTool("bwrap");
    missing.push(tools.bwrap ? "" : "bwrap");
  } else {
    tools.unshare = findTool("unshare");
    tools.mount = findTool("mount");
    tools.ip = findTool("ip");
    missing.push(tools.unshare ? "" : "unshare", tools.mount ? "" : "mount");
  }
  const absent = missing.filter((name) => name !== "");
  return absent.length > 0 ? `not installed: ${absent.join(", ")}` : tools;
}
