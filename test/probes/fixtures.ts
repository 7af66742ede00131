import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { FAMILIES, type Task } from "../../src/domain/task";
import { type Harness, loadHarness, parseHarness } from "../../src/harness/load";
import { loadTaskDir } from "../../src/tasks/loading/load";
import { formatTaskJson } from "../../src/tasks/loading/write";

let shipped: Task[] | undefined;

/** Search-split retail tasks: the first `perFamily` blocked tasks of each family, each with its feasible source. */
export function retailPairs(perFamily = 2): Task[] {
  shipped ??= loadTaskDir(join(PACKAGE_ROOT, "tasks", "retail", "search")).map((loaded) => loaded.task);
  const all = shipped;
  const byId = new Map(all.map((task) => [task.id, task]));
  return FAMILIES.flatMap((family) =>
    all
      .filter((task) => task.family === family)
      .slice(0, perFamily)
      .flatMap((blocked) => {
        const source = byId.get(blocked.source ?? "");
        if (!source) throw new Error(`fixture: ${blocked.id} has no source in the search split`);
        return [blocked, source];
      }),
  );
}

/** The tasks as a task directory (for --tasks). */
export function writeTaskDir(tasks: readonly Task[]): string {
  const dir = mkdtempSync(join(tmpdir(), "hsearch-probe-tasks-"));
  mkdirSync(join(dir, "search"));
  for (const task of tasks) writeFileSync(join(dir, "search", `${task.id}.json`), formatTaskJson(task));
  return dir;
}

export function shippedHarness(name: string): Harness {
  return loadHarness(join(PACKAGE_ROOT, "harnesses", name));
}

/** A minimal harness with the given protocols switched on and an optional challenge prompt. */
export function testHarness(
  protocols: { abandon?: boolean; effect_gate?: boolean; report?: boolean } = {},
  challenge?: string,
): Harness {
  const yaml = [
    "name: probe-test",
    "agent: {max_steps: 8, temperature: 0}",
    "protocols:",
    `  abandon: {enabled: ${protocols.abandon ?? false}}`,
    `  effect_gate: {enabled: ${protocols.effect_gate ?? false}}`,
    `  report: {enabled: ${protocols.report ?? false}}`,
  ].join("\n");
  return parseHarness(
    {
      "harness.yaml": yaml,
      "system.md": "Policy: {{policy}}\n{{protocols}}\n",
      ...(challenge ? { "prompts/challenge.md": challenge } : {}),
    },
    "probe-test",
  );
}
