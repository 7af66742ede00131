/**
 * Wall time and rollouts of a whole study (`hsearch study`), by default the shipped one (studies/default.yaml: both
 * suites on the embedded simulator, offline), run by the real CLI in a child process into a temporary directory.
 * Prints the wall and CPU time (user + system of the child, where GNU time is installed), the machine's load
 * average before and after (the figures of a shared machine are only comparable at a similar load), the rollouts and
 * probe episodes spent against the plan's bound, per benchmark and in all, and the report's content hash (the same
 * on every machine for the same study and hsearch).
 *
 *   npx tsx bench/study.ts [STUDY.yaml] [--only retail] [--steps-at-once 2] [--built]
 *
 * `--built` runs the compiled command (`npm run build` first) as a user would, rather than the sources through tsx.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PACKAGE_ROOT } from "../src/core/paths";
import { SOURCE_CLI } from "../test/helpers/cli";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    only: { type: "string", multiple: true },
    "steps-at-once": { type: "string", default: "2" },
    built: { type: "boolean", default: false },
  },
});

const BIN = join(PACKAGE_ROOT, "dist", "cli", "bin.js");
if (values.built && !existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`);
const cli = values.built ? [BIN] : [...SOURCE_CLI];
const GNU_TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

const work = mkdtempSync(join(tmpdir(), "hsearch-bench-study-"));
const out = join(work, "study");
const args = [
  "study",
  ...positionals,
  "--out",
  out,
  "--steps-at-once",
  values["steps-at-once"],
  ...(values.only ?? []).flatMap((name) => ["--only", name]),
  "--json",
];

interface Spent {
  id: string;
  rollouts: number;
}
interface Result {
  hash: string;
  spent: Spent[];
  plan: { name: string; file: string; steps: Array<{ id: string; rollouts: number }> };
}

const loadBefore = loadavg()[0] ?? 0;
const started = performance.now();
const child = GNU_TIME
  ? spawnSync(GNU_TIME, ["-f", "%U %S", process.execPath, ...cli, ...args], {
      cwd: PACKAGE_ROOT,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    })
  : spawnSync(process.execPath, [...cli, ...args], {
      cwd: PACKAGE_ROOT,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
const wall = (performance.now() - started) / 1000;
const loadAfter = loadavg()[0] ?? 0;
if (child.status !== 0)
  throw new Error(`hsearch ${args.join(" ")} failed (${child.status}):\n${child.stderr}`);
const cpu = GNU_TIME
  ? child.stderr
      .trim()
      .split("\n")
      .at(-1)
      ?.split(" ")
      .map(Number)
      .reduce((a, b) => a + b, 0)
  : undefined;
const result = JSON.parse(child.stdout) as Result;

const byBenchmark = new Map<string, { spent: number; planned: number; steps: number }>();
for (const spent of result.spent) {
  const benchmark = spent.id.split("/")[0] ?? spent.id;
  const planned = result.plan.steps.find((step) => step.id === spent.id)?.rollouts ?? 0;
  const row = byBenchmark.get(benchmark) ?? { spent: 0, planned: 0, steps: 0 };
  row.spent += spent.rollouts;
  row.planned += planned;
  row.steps += 1;
  byBenchmark.set(benchmark, row);
}
const total = [...byBenchmark.values()].reduce(
  (sum, row) => ({
    spent: sum.spent + row.spent,
    planned: sum.planned + row.planned,
    steps: sum.steps + row.steps,
  }),
  { spent: 0, planned: 0, steps: 0 },
);

console.log(
  `study ${result.plan.name} (${result.plan.file}), ${values.built ? "compiled" : "sources through tsx"}, --steps-at-once ${values["steps-at-once"]}`,
);
console.log(
  `machine: ${cpus().length} cores, load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after`,
);
console.log(
  `wall ${wall.toFixed(1)} s${cpu === undefined ? "" : `, CPU ${cpu.toFixed(1)} s`} · ${total.spent} rollouts and probe episodes (plan: at most ${total.planned}) in ${total.steps} steps · ${(total.spent / wall).toFixed(1)} per wall second`,
);
console.log("benchmark   steps  rollouts  planned at most");
for (const [name, row] of byBenchmark)
  console.log(
    `${name.padEnd(10)}  ${String(row.steps).padStart(5)}  ${String(row.spent).padStart(8)}  ${String(row.planned).padStart(15)}`,
  );
console.log(`report content hash ${result.hash}`);
rmSync(work, { recursive: true, force: true });
