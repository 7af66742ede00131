/**
 * The shipped terminal suite (docs/DESIGN.md §3 scaled to the suite): every scenario makes four instances that become the
 * feasible counterparts of one blocked variant each — families rotate so that each scenario has all three and each
 * family has twelve — and a fifth, independent instance that is never augmented. Per family a third of the pairs
 * go to held-out, so search and held-out variants come from disjoint sources. Everything derives from the seed;
 * the checks in check.ts prove the tasks in the sandbox (tests and `tasks generate` run them).
 */
import { createRng, HsearchError } from "../../../core";
import { FAMILIES, type Family, type Split, type Task, type TerminalTask } from "../../../domain";
import { keywordOverlap } from "../../../scoring";
import { blockedTask, feasibleTask, terminalTaskId } from "./assemble";
import type { Instance, Scenario } from "./scenario";
import { TERMINAL_SCENARIOS } from "./scenarios";

export const DEFAULT_TERMINAL_SEED = 1;
/** Instances per scenario that get a blocked variant; one more is independent. */
export const VARIANTS_PER_SCENARIO = 8;
export const HELDOUT_SHARE = 1 / 3;

interface Pair {
  source: TerminalTask;
  variant: TerminalTask;
}

export function buildTerminalSuite(
  options: { seed?: number; scenarios?: readonly Scenario[] } = {},
): TerminalTask[] {
  const seed = options.seed ?? DEFAULT_TERMINAL_SEED;
  const scenarios = options.scenarios ?? TERMINAL_SCENARIOS;
  const pairs = new Map<Family, Pair[]>(FAMILIES.map((family) => [family, []]));
  const independent: TerminalTask[] = [];
  scenarios.forEach((scenario, index) => {
    const drawn = new Set<string>();
    for (let ordinal = 1; ordinal <= VARIANTS_PER_SCENARIO + 1; ordinal++) {
      const instance = drawDistinct(scenario, seed, ordinal, drawn);
      const id = terminalTaskId(scenario.name, ordinal);
      if (ordinal > VARIANTS_PER_SCENARIO) {
        independent.push(feasibleTask(id, "independent", instance));
        continue;
      }
      const family = FAMILIES[(index + ordinal - 1) % FAMILIES.length] as Family;
      const source = feasibleTask(id, "search", instance);
      const variant = blockedTask(source, instance, family, instance.variant(family));
      pairs.get(family)?.push({ source, variant });
    }
  });
  const tasks: TerminalTask[] = [...independent];
  for (const family of FAMILIES) {
    const shuffled = createRng(seed, "terminal-suite", "split", family).shuffle(pairs.get(family) ?? []);
    const heldout = Math.round(shuffled.length * HELDOUT_SHARE);
    shuffled.forEach((pair, position) => {
      const split: Split = position < heldout ? "heldout" : "search";
      tasks.push({ ...pair.source, split }, { ...pair.variant, split });
    });
  }
  for (const task of tasks) {
    const problem = checkCues(task);
    if (problem !== null) throw new HsearchError("internal", `terminal suite: ${problem}`);
  }
  return sortTasks(tasks);
}

const MAX_DRAWS = 50;

/**
 * The scenario's instance for an ordinal, redrawn (on a derived seed path) while it equals one drawn before, so no
 * two tasks of a scenario are the same job. The first draw keeps the path it always had.
 */
function drawDistinct(scenario: Scenario, seed: number, ordinal: number, drawn: Set<string>): Instance {
  for (let attempt = 0; attempt < MAX_DRAWS; attempt++) {
    const path = attempt === 0 ? [ordinal] : [ordinal, "redraw", attempt];
    const instance = scenario.instance(createRng(seed, "terminal-suite", scenario.name, ...path));
    const fingerprint = JSON.stringify([instance.instruction, instance.files, instance.setup ?? ""]);
    if (drawn.has(fingerprint)) continue;
    drawn.add(fingerprint);
    return instance;
  }
  throw new HsearchError("internal", `terminal suite: ${scenario.name} has no distinct instance ${ordinal}`);
}

const FAMILY_WORD = new RegExp(FAMILIES.join("|"), "i");

/**
 * Pure checks of a blocked task's cues: the deferral's label is read from the first family word in its text, so a
 * reason must name none; the right reason must ground the blocker for the rules judge and the wrong one must not.
 */
export function checkCues(task: Task): string | null {
  if (task.kind !== "blocked") return null;
  const cues = task.sim;
  const blocker = task.blocker;
  if (!cues || !blocker) return `${task.id}: no cues or blocker`;
  for (const reason of [cues.right_reason, cues.wrong_reason]) {
    if (!reason) return `${task.id}: a reason is missing`;
    if (FAMILY_WORD.test(reason)) return `${task.id}: the reason '${reason}' names a family`;
  }
  if (!keywordOverlap(cues.right_reason ?? "", blocker.keywords, task.id).grounded)
    return `${task.id}: the right reason does not ground the blocker`;
  if (keywordOverlap(cues.wrong_reason ?? "", blocker.keywords, task.id).grounded)
    return `${task.id}: the wrong reason grounds the blocker`;
  if (!cues.evidence_text) return `${task.id}: no evidence text`;
  if (blocker.evidence === "spec" && !task.instruction.includes(cues.evidence_text))
    return `${task.id}: the spec evidence is not in the instruction`;
  return null;
}

const SPLIT_ORDER: Record<Split, number> = { search: 0, heldout: 1, independent: 2 };

export function sortTasks<T extends Task>(tasks: readonly T[]): T[] {
  return [...tasks].sort(
    (a, b) => SPLIT_ORDER[a.split] - SPLIT_ORDER[b.split] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
