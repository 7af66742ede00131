/**
 * Importing a Harbor dataset of thousands of task directories (generated task sets, RL environments): wall time of
 * `tasks import-harbor` at N and at N/10 directories, made from the committed fixtures in every shape the importer
 * handles (a Dockerfile with installs and copies, pytest tests, no solution, a malformed task.toml …), against this
 * machine's real package tools. Goal: 3,500 directories in under 60 s on 2 cores, and time linear in the directories
 * (per-directory time at N no larger than at N/10, whose figure also carries the fixed cost of asking apt once).
 *
 *   npx tsx bench/harbor-import.ts [N]
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../src/core/paths";
import { debianHost } from "../src/tasks/importers/harbor/host-packages";
import { importHarbor } from "../src/tasks/importers/harbor/import-harbor";

const N = Number(process.argv[2] ?? 3500);
const GOAL_SECONDS = 60;

/** Every committed Harbor fixture directory (one task each). */
function fixtureTasks(): string[] {
  const roots = ["harbor", "harbor-published", "harbor-dataset"].map((name) =>
    join(PACKAGE_ROOT, "test", "fixtures", name),
  );
  return roots.flatMap((root) =>
    readdirSync(root)
      .map((entry) => join(root, entry))
      .filter((dir) => statSync(dir).isDirectory()),
  );
}

/** A dataset of `count` task directories, copies of the fixtures named task-00001 … (each its own id). */
function makeDataset(count: number): string {
  const dir = mkdtempSync(join(tmpdir(), "hsearch-bench-harbor-"));
  const sources = fixtureTasks();
  for (let i = 0; i < count; i++) {
    const source = sources[i % sources.length] as string;
    const name = `task-${String(i).padStart(5, "0")}`;
    cpSync(source, join(dir, name), { recursive: true });
    // A dataset's tasks have names of their own: a copy keeps the directory's name, not the fixture's.
    const toml = join(dir, name, "task.toml");
    writeFileSync(toml, readFileSync(toml, "utf8").replace(/^name = .*$/m, `name = "bench/${name}"`));
  }
  return dir;
}

async function timeImport(count: number): Promise<{ seconds: number; summary: string }> {
  const dataset = makeDataset(count);
  try {
    const started = performance.now();
    const result = await importHarbor(dataset, "search", { host: debianHost() });
    const seconds = (performance.now() - started) / 1000;
    return {
      seconds,
      summary: `imported ${result.tasks.length}, skipped ${result.skipped.length}, failed ${result.failed.length}`,
    };
  } finally {
    rmSync(dataset, { recursive: true, force: true });
  }
}

const small = await timeImport(Math.max(1, Math.round(N / 10)));
const large = await timeImport(N);
const perSmall = (small.seconds / Math.max(1, Math.round(N / 10))) * 1000;
const perLarge = (large.seconds / N) * 1000;
console.log(`${Math.round(N / 10)} directories: ${small.seconds.toFixed(1)} s (${small.summary})`);
console.log(`${N} directories: ${large.seconds.toFixed(1)} s (${large.summary})`);
console.log(
  `per directory: ${perSmall.toFixed(2)} ms at ${Math.round(N / 10)}, ${perLarge.toFixed(2)} ms at ${N} ` +
    `(ratio ${(perLarge / perSmall).toFixed(2)}: ${perLarge <= perSmall * 1.2 ? "no worse than linear" : "worse than linear"})`,
);
console.log(`goal: ${N} in under ${GOAL_SECONDS} s — ${large.seconds < GOAL_SECONDS ? "met" : "NOT met"}`);
