/**
 * The shipped retail suite (docs/DESIGN.md §3): blocked variants 64 search / 32 held-out with one feasible counterpart each,
 * and 17 independent feasible tasks. Sources are the τ² tasks that make a change plus generated tasks as needed; each
 * source yields exactly one variant, so search and held-out are built from disjoint sources. Families are balanced
 * within each split. Everything is derived from the seed, and every task is checked against the real environment
 * before it is returned.
 */
import { createRng, HsearchError } from "../../../core";
import type { Family, RetailTask, Split } from "../../../domain";
import { loadRetailData, type RetailData, retailDataFile } from "../../../envs";
import { importTau2File } from "../../importers/tau2/import-tau2";
import { type ConflictReadings, eligibleFamilies, makeBlockedVariant } from "./blocked-variants";
import { checkBlocked, checkFeasible } from "./check-variants";
import { generateFeasibleTasks } from "./generate-feasible";
import { analyseSource, type SourceAnalysis } from "./source-analysis";

export const DEFAULT_RETAIL_SEED = 1;

/** Blocked variants per split and family (22/21/21 and 11/11/10, as in the study). */
export const RETAIL_BLOCKED_PLAN: Readonly<Record<"search" | "heldout", Readonly<Record<Family, number>>>> = {
  search: { infeasible: 22, ambiguous: 21, trap: 21 },
  heldout: { infeasible: 11, ambiguous: 11, trap: 10 },
};
export const RETAIL_INDEPENDENT_COUNT = 17;

/** Families in the order their slots are filled: the constrained ones first, so order-less sources end up ambiguous. */
const FILL_ORDER: readonly Family[] = ["trap", "infeasible", "ambiguous"];

export interface RetailSuite {
  tasks: RetailTask[];
  /** The conflict proof of every ambiguous variant, by task id. */
  readings: ReadonlyMap<string, ConflictReadings>;
  /** τ² tasks left out: their reference makes no change, so there is nothing to block (refusals, transfers). */
  excluded: string[];
}

interface Source {
  task: RetailTask;
  analysis: SourceAnalysis;
}

export function buildRetailSuite(
  options: { seed?: number; data?: RetailData; tau2File?: string } = {},
): RetailSuite {
  const seed = options.seed ?? DEFAULT_RETAIL_SEED;
  const data = options.data ?? loadRetailData();
  const imported = importTau2File(options.tau2File ?? retailDataFile("tasks.json"), "search");
  const excluded: string[] = [];
  const tau2Sources: Source[] = [];
  for (const task of imported) {
    const analysis = analyseSource(task, data);
    if (analysis === null) excluded.push(task.id);
    else tau2Sources.push({ task, analysis });
  }

  const blockedTotal = sum(Object.values(RETAIL_BLOCKED_PLAN).flatMap((plan) => Object.values(plan)));
  const generatedCount = Math.max(0, blockedTotal - tau2Sources.length) + RETAIL_INDEPENDENT_COUNT;
  const touched = tau2Footprint(imported, data);
  const generated = generateFeasibleTasks(data, {
    seed,
    count: generatedCount,
    excludeOrders: touched.orders,
    excludeUsers: touched.users,
  });
  const shuffledGenerated = createRng(seed, "retail-suite", "independent").shuffle(generated);
  const independent = shuffledGenerated
    .slice(0, RETAIL_INDEPENDENT_COUNT)
    .map((task): RetailTask => ({ ...task, split: "independent" }));
  const generatedSources = shuffledGenerated.slice(RETAIL_INDEPENDENT_COUNT).map((task): Source => {
    const analysis = analyseSource(task, data);
    if (analysis === null) throw new HsearchError("internal", `generated task ${task.id} makes no change`);
    return { task, analysis };
  });

  const pool = createRng(seed, "retail-suite", "sources").shuffle([...tau2Sources, ...generatedSources]);
  const used = new Set<string>();
  const tasks: RetailTask[] = [...independent];
  const readings = new Map<string, ConflictReadings>();
  for (const split of ["search", "heldout"] as const) {
    for (const family of FILL_ORDER) {
      for (let slot = 0; slot < RETAIL_BLOCKED_PLAN[split][family]; slot++) {
        const source = pool.find(
          (s) => !used.has(s.task.id) && eligibleFamilies(s.analysis).includes(family),
        );
        if (source === undefined)
          throw new HsearchError("internal", `no source left for a ${split} ${family} variant`);
        used.add(source.task.id);
        const counterpart: RetailTask = { ...source.task, split };
        const variant = makeBlockedVariant(counterpart, family, {
          data,
          rng: createRng(seed, "retail-suite", "variant", counterpart.id, family),
          analysis: source.analysis,
        });
        tasks.push(counterpart, variant.task);
        if (variant.readings) readings.set(variant.task.id, variant.readings);
      }
    }
  }

  checkSuite(tasks, data, readings);
  return { tasks: sortTasks(tasks), readings, excluded };
}

/** Every feasible task scores 1 and every variant is really blocked; a failure here is a generator bug. */
function checkSuite(
  tasks: readonly RetailTask[],
  data: RetailData,
  readings: ReadonlyMap<string, ConflictReadings>,
): void {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  for (const task of tasks) {
    const counterpart = task.source === undefined ? undefined : byId.get(task.source);
    const problem =
      task.kind === "feasible"
        ? checkFeasible(task)
        : counterpart === undefined
          ? `${task.id}: no counterpart ${task.source}`
          : checkBlocked(task, counterpart, data, readings.get(task.id));
    if (problem !== null) throw new HsearchError("internal", `retail suite check failed: ${problem}`);
  }
}

const SPLIT_ORDER: Record<Split, number> = { search: 0, heldout: 1, independent: 2 };

export function sortTasks(tasks: readonly RetailTask[]): RetailTask[] {
  return [...tasks].sort(
    (a, b) => SPLIT_ORDER[a.split] - SPLIT_ORDER[b.split] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/** The users (and so their orders) that τ² tasks are about, so generated tasks stay clear of them. */
function tau2Footprint(
  tasks: readonly RetailTask[],
  data: RetailData,
): { orders: Set<string>; users: Set<string> } {
  const orders = new Set<string>();
  const users = new Set<string>();
  const byEmail = new Map(Object.values(data.users).map((user) => [user.email.toLowerCase(), user.user_id]));
  for (const task of tasks) {
    for (const { arguments: args } of task.reference.actions) {
      if (typeof args.order_id === "string") {
        orders.add(args.order_id);
        const owner = data.orders[args.order_id]?.user_id;
        if (owner) users.add(owner);
      }
      if (typeof args.user_id === "string") users.add(args.user_id);
      const byMail = typeof args.email === "string" ? byEmail.get(args.email.toLowerCase()) : undefined;
      if (byMail) users.add(byMail);
    }
  }
  return { orders, users };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
