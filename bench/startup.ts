/**
 * Start-up cost of the `hsearch` command: `--help` and `status` on a finished run, the compiled bin (dist/, what
 * `npm ci` builds and `npx hsearch` runs) against the sources through tsx (development), interleaved in one run so
 * machine load weighs on both alike; the ratio is the figure to compare across machines. Target: `--help` under
 * 0.5 s wall for the compiled bin.
 *
 *   npx tsx bench/startup.ts [RUNS] [--no-build]
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../src/core/paths";

const RUNS = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 10);
const BIN = join(PACKAGE_ROOT, "dist", "cli", "bin.js");
const SOURCE = ["--import", "tsx", join(PACKAGE_ROOT, "src", "cli", "bin.ts")];
// CPU time of the child (user + system) where GNU time is installed; wall time always.
const GNU_TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

interface Sample {
  wall: number;
  cpu: number | undefined;
}

function once(nodeArgs: string[]): Sample {
  const started = performance.now();
  const result = GNU_TIME
    ? spawnSync(GNU_TIME, ["-f", "%U %S", process.execPath, ...nodeArgs], {
        cwd: PACKAGE_ROOT,
        encoding: "utf8",
      })
    : spawnSync(process.execPath, nodeArgs, { cwd: PACKAGE_ROOT, encoding: "utf8" });
  const wall = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`node ${nodeArgs.join(" ")} failed: ${result.stderr}`);
  const times = GNU_TIME ? result.stderr.trim().split("\n").at(-1)?.split(" ").map(Number) : undefined;
  return { wall, cpu: times ? times[0]! + times[1]! : undefined };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

if (!process.argv.includes("--no-build") || !existsSync(BIN)) {
  console.log("building dist/ (npm run build) ...");
  execFileSync("npm", ["run", "--silent", "build"], { cwd: PACKAGE_ROOT, stdio: "inherit" });
}

// A small finished run to point `status` at.
const work = mkdtempSync(join(tmpdir(), "hsearch-bench-startup-"));
const config = join(work, "search.yaml");
writeFileSync(
  config,
  "name: startup\nsuites: [retail]\nobjective: joint\nseed_harness: harnesses/bare\nrounds: 1\nproposals_per_round: 1\ntask_model: sim:default\nseed: 1\n",
);
const runDir = join(work, "run");
execFileSync(process.execPath, [BIN, "run", config, "--out", runDir], { stdio: "ignore" });

const cases: Array<{ name: string; compiled: string[]; source: string[] }> = [
  { name: "--help", compiled: [BIN, "--help"], source: [...SOURCE, "--help"] },
  { name: "status <run>", compiled: [BIN, "status", runDir], source: [...SOURCE, "status", runDir] },
];

console.log(`${RUNS} runs each, interleaved; median wall s (median CPU s)`);
console.log("command        compiled (dist)   tsx (src)         ratio wall  ratio CPU");
for (const { name, compiled, source } of cases) {
  once(compiled); // warm the file cache
  once(source);
  const a: Sample[] = [];
  const b: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    a.push(once(compiled));
    b.push(once(source));
  }
  const wallA = median(a.map((s) => s.wall));
  const wallB = median(b.map((s) => s.wall));
  const cpuA = a[0]!.cpu === undefined ? undefined : median(a.map((s) => s.cpu!));
  const cpuB = b[0]!.cpu === undefined ? undefined : median(b.map((s) => s.cpu!));
  const fmt = (wall: number, cpu: number | undefined) =>
    `${wall.toFixed(2)} (${cpu === undefined ? "-" : cpu.toFixed(2)})`.padEnd(18);
  console.log(
    `${name.padEnd(15)}${fmt(wallA, cpuA)}${fmt(wallB, cpuB)}${(wallB / wallA).toFixed(1).padStart(9)}×${
      cpuA && cpuB ? (cpuB / cpuA).toFixed(1).padStart(10) : "-".padStart(10)
    }×`,
  );
}
console.log(`node ${process.version}, load average ${(await import("node:os")).loadavg()[0]!.toFixed(1)}`);
rmSync(work, { recursive: true, force: true });
