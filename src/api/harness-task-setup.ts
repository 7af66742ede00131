/**
 * The library's one-harness functions (`evaluate`, `probeBeliefs`, `probeChallenge`): the options they share and
 * the setup they share, with the models named by plain specs (the CLI's requests go through harness-task.ts).
 */
import { DEFAULT_CONCURRENCY, resolveUserPath } from "../core";
import { type Harness, loadHarness } from "../harness";
import {
  createRejectionMemory,
  createRoleModels,
  describeRejection,
  type LearntRejection,
  loadPriceTable,
  type RoleModels,
} from "../models";
import { offlineProviders } from "../sim";
import { checkCustomerSpec } from "./run-setup";
import { type SelectedTasks, selectTasks, type TaskSelection } from "./select-tasks";

/** Each role's model spec (`sim:default`, `openai:gpt-4.1-mini`, …); the judge `rules` or `llm:<spec>`. */
export interface EvaluateModels {
  agent: string;
  /** Default `rules`. */
  judge?: string;
  /** Default `auto`. */
  customer?: string;
}

export interface HarnessTaskOptions {
  /** Relative paths are resolved here; default process.cwd(). */
  cwd?: string;
  /** The variables providers read their keys from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Default 1. */
  seed?: number;
  /** Episodes at once, and model calls in flight per provider and base URL; default 8 (DEFAULT_CONCURRENCY). */
  concurrency?: number;
  /** The directory the episodes are kept in (its name is the id); default runs/<kind>-<harness>-… under cwd. */
  out?: string;
  onMessage?: (text: string) => void;
  onProgress?: (done: number, total: number) => void;
}

/** What the harness, the tasks and the models resolve to, checked before any directory is made. */
export interface HarnessTaskSetup {
  cwd: string;
  say: (text: string) => void;
  harnessDir: string;
  harness: Harness;
  selected: SelectedTasks;
  /** Every role's spec, defaults filled in: what the directory records of the models. */
  specs: { agent: string; judge: string; customer: string };
  concurrency: number;
  models: RoleModels;
}

/**
 * Loads the harness, selects the tasks and makes the role models; every bad input throws here. What a provider
 * rejects is said as it is learnt, then handed to `learnt` (an evaluation keeps it for its resume).
 */
export async function harnessTaskSetup(
  harness: string,
  tasks: TaskSelection,
  models: EvaluateModels | string,
  options: HarnessTaskOptions,
  learnt: (rejection: LearntRejection) => void = () => {},
): Promise<HarnessTaskSetup> {
  const cwd = options.cwd ?? process.cwd();
  const say = options.onMessage ?? (() => {});
  const harnessDir = resolveUserPath(harness, cwd);
  const loaded = loadHarness(harnessDir);
  const selected = await selectTasks(tasks, { cwd });
  const given = typeof models === "string" ? { agent: models } : models;
  const specs = { agent: given.agent, judge: given.judge ?? "rules", customer: given.customer ?? "auto" };
  checkCustomerSpec(specs.customer);
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const roleModels = createRoleModels(specs, {
    env: options.env ?? process.env,
    concurrency,
    prices: loadPriceTable(),
    extraProviders: offlineProviders,
    warn: (message) => say(`warning: ${message}`),
    rejections: createRejectionMemory({
      onLearn: (rejection) => {
        say(describeRejection(rejection, "learnt"));
        learnt(rejection);
      },
    }),
  });
  return { cwd, say, harnessDir, harness: loaded, selected, specs, concurrency, models: roleModels };
}
