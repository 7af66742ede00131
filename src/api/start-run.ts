import { randomBytes } from "node:crypto";
import { basename, dirname, resolve } from "node:path";
import { assertOutputApart, HsearchError, newRunId, resolveUserPath } from "../core";
import { imageSourceChosen, internetAllowed } from "../envs";
import { harnessLimitsOf, loadHarness } from "../harness";
import {
  createRejectionMemory,
  describeRejection,
  loadPriceTable,
  mergeUsageRows,
  type RejectionMemory,
  settingsByRole,
} from "../models";
import { type ConfigPlugins, loadConfigPlugins, type ModuleRecord, recordedModules } from "../plugins";
import { loadMetricModules, loadSearchConfig, runSearch, searchConfigOf } from "../search";
import type { SearchConfig, SearchOutcome } from "../search/types";
import { createRunDir, openRunStore, type RunStore } from "../store";
import {
  connectQueueExecutor,
  DEFAULT_QUEUE,
  type QueueExecutor,
  reachRedis,
  redactRedisUrl,
} from "../workers";
import { locateRun, storedConfig } from "./locate-run";
import type { RunEvent } from "./run-events";
import { handleOver, type RunEventListener, RunEventLog } from "./run-events";
import { type StatusWithSuites, statusWithMetrics } from "./run-result";
import {
  type BudgetRaise,
  judgeOf,
  loadSearchTasks,
  openRunCache,
  type RunHost,
  resolveSeedHarness,
  resumedBudget,
  roleSpecsOf,
  runModels,
} from "./run-setup";
import { lockDir, recordFailure } from "./work-in-dir";

export const DEFAULT_CONFIG = "search-configs/demo.yaml";

/** Where and how a run works; every field has a default. */
export interface RunOptions {
  /** Relative paths (the config's, `out`) are resolved here; default process.cwd(). */
  cwd?: string;
  /** The variables providers read their keys from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Cancels the run: rollouts in flight finish and are stored, nothing new starts; `resume` continues it. */
  signal?: AbortSignal;
  /** Run the rollouts on `hsearch worker` processes through this Redis (`run --workers`). */
  workers?: { url: string; queue?: string };
}

export interface StartRunOptions extends RunOptions {
  /** The run directory (its name is the run id); default runs/<run-id> under cwd. */
  out?: string;
}

export interface ResumeRunOptions extends RunOptions {
  /** Raised budget limits (`run --resume --max-*`); the stored budget otherwise. */
  budget?: BudgetRaise;
}

export interface RunResult {
  runId: string;
  runDir: string;
  /** The run's status as `hsearch status --json` prints it. */
  status: StatusWithSuites;
  /** How this session ended; null when a resumed run had already finished. */
  outcome: SearchOutcome | null;
}

/** A run under way: its events (listeners or `for await`), its result, and how to continue it. */
export interface RunHandle extends AsyncIterable<RunEvent> {
  /** Calls `listener` with every event from now on; returns a function that stops it. */
  on(listener: RunEventListener): () => void;
  /** Settles when the run stops: its status, or the error (HsearchError `cancelled` after the signal aborts). */
  readonly result: Promise<RunResult>;
  /** Continues this run (after a cancellation, a budget stop or a failure) once it has stopped. */
  resume(options?: ResumeRunOptions): RunHandle;
}

/**
 * Starts a search run (the library's `hsearch run`): `config` is a config file's path or a config object (paths in
 * it relative to `options.cwd`). Bad input rejects `result` before a run directory is made.
 */
export function startRun(config: string | Record<string, unknown>, options: StartRunOptions = {}): RunHandle {
  return handleOf((events) => newRun(config, options, events), options);
}

/** Continues a run that stopped, from its directory (or its id under runs/): `hsearch run --resume`. */
export function resumeRun(run: string, options: ResumeRunOptions = {}): RunHandle {
  return handleOf((events) => resumedRun(run, options, events), options);
}

function handleOf(work: (events: RunEventLog) => Promise<RunResult>, options: RunOptions): RunHandle {
  const events = new RunEventLog();
  const handle = handleOver(events, () => work(events));
  return {
    ...handle,
    resume: (more = {}) =>
      handleOf(
        async (next) => {
          const dir = await handle.result.then(
            (done) => done.runDir,
            () => events.runDir,
          );
          if (!dir) throw new HsearchError("not_found", "the run stopped before its directory was made");
          return resumedRun(dir, { ...pick(options), ...more }, next);
        },
        { ...pick(options), ...more },
      ),
  };
}

function pick(options: RunOptions): RunOptions {
  return {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.workers ? { workers: options.workers } : {}),
  };
}

function hostOf(options: RunOptions, events: RunEventLog): RunHost {
  return {
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? process.env,
    warn: (text) => events.emit({ type: "message", text }),
  };
}

async function newRun(
  given: string | Record<string, unknown>,
  options: StartRunOptions,
  events: RunEventLog,
): Promise<RunResult> {
  const host = hostOf(options, events);
  // An unreachable Redis is bad input found before a run directory is made.
  if (options.workers) await reachRedis(options.workers.url, "--workers");
  const file = typeof given === "string" ? resolveUserPath(given, host.cwd) : undefined;
  let config = file
    ? loadSearchConfig(file)
    : searchConfigOf({ file: "the config object", value: given, lineOf: () => undefined }, host.cwd);
  // Fail on bad paths, a seed harness that does not load and bad model specs before anything is created, so bad
  // input leaves no half-made run directory.
  const seedHarness = resolveSeedHarness(config, host.cwd);
  loadHarness(seedHarness, harnessLimitsOf(config.limits));
  const plugins = await loadConfigPlugins(config, file ?? "the config object");
  if (options.workers) refuseWorkersWithPlugins(plugins.modules, file);
  loadSearchTasks(config, host.cwd, file, plugins.tasks);
  runModels(config, host);
  // A metric module that is gone, throws when imported or exports no metric fails now too.
  await loadMetricModules(config.metrics ?? [], { file: file ?? "the config object" });
  // A bad HSEARCH_IMAGE_SOURCE (the default where the config names none) fails now, before a run directory exists.
  if (config.image_source === undefined) imageSourceChosen(host.env);
  internetAllowed(host.env);
  // A shared cache that cannot be opened fails now, before a run directory exists.
  if (config.cache.dir !== "run") openRunCache(config, host, undefined, file);
  // Stored resolved, so a resume works from any directory.
  config = {
    ...config,
    seed_harness: seedHarness,
    ...(config.tasks ? { tasks: resolveUserPath(config.tasks, host.cwd) } : {}),
  };
  if (options.out)
    assertOutputApart({ path: resolve(host.cwd, options.out), name: "--out" }, [
      ...(file ? [{ path: file, name: "the config" }] : []),
      { path: seedHarness, name: "the seed harness" },
      ...(config.tasks ? [{ path: config.tasks, name: "the config's tasks" }] : []),
    ]);
  const runId = options.out
    ? basename(resolve(host.cwd, options.out))
    : newRunId(config.name, new Date(), randomBytes(8).toString("hex"));
  const root = options.out ? dirname(resolve(host.cwd, options.out)) : resolve(host.cwd, "runs");
  const runDir = createRunDir(root, runId).dir;
  events.runDir = runDir;
  const store = openRunStore(runDir);
  store.initRun({ id: runId, name: config.name, config, seed: config.seed, objective: config.objective });
  store.logEvent({ kind: "config", data: { file: file ?? null } });
  // What a resume imports again, and refuses if it changed or vanished (src/plugins).
  if (plugins.modules.length > 0)
    store.logEvent({ kind: "plugin_modules", data: { modules: [...plugins.modules] } });
  return searchIn(store, runDir, config, null, options, host, events, plugins);
}

async function resumedRun(run: string, options: ResumeRunOptions, events: RunEventLog): Promise<RunResult> {
  const host = hostOf(options, events);
  if (options.workers) await reachRedis(options.workers.url, "--workers");
  const runDir = locateRun(run, host.cwd);
  events.runDir = runDir;
  const store = openRunStore(runDir);
  let config: SearchConfig;
  let raised: SearchConfig["budget"] | null;
  let plugins: ConfigPlugins;
  let fixed: ModuleRecord[] = [];
  try {
    const record = store.getRun();
    if (!record) throw new HsearchError("not_found", `no run recorded in ${runDir}`, { file: runDir });
    config = storedConfig(store);
    raised = resumedBudget(config, options.budget);
    // A finished run has nothing left to do: its results, usage and end time stay as they are.
    if (record.state === "finished") {
      events.emit({
        type: "message",
        text: `hsearch run: ${record.id} already finished at ${record.ended_at}; nothing to resume`,
      });
      const status = await statusWithMetrics(store);
      store.close();
      return { runId: record.id, runDir, status, outcome: null };
    }
    const recorded = recordedModules(store.listEvents(), store.paths.db);
    plugins = await loadConfigPlugins(config, recorded.file, recorded.modules, recorded.fixable);
    if (options.workers) refuseWorkersWithPlugins(plugins.modules, recorded.file);
    fixed = plugins.modules.filter(
      (module) => !recorded.modules.some((was) => was.path === module.path && was.sha256 === module.sha256),
    );
  } catch (error) {
    store.close();
    throw error;
  }
  return searchIn(store, runDir, config, raised, options, host, events, plugins, () => {
    if (fixed.length === 0) return;
    // The fixed module's content from now on: a later resume holds the run to it.
    store.logEvent({ kind: "plugin_modules", data: { modules: [...plugins.modules] } });
    for (const module of fixed)
      events.emit({
        type: "message",
        text: `hsearch run: ${module.path} changed since its code stopped the run; continuing with it (sha256 ${module.sha256.slice(0, 12)}…)`,
      });
  });
}

/**
 * Workers run rollouts in other processes, which know the built-in suites only: a plug-in suite's environment is
 * made where its module was imported. A plug-in proposer runs here and works with workers.
 */
function refuseWorkersWithPlugins(modules: readonly ModuleRecord[], file: string | undefined): void {
  const suite = modules.find((module) => module.field === "suites");
  if (suite)
    throw new HsearchError(
      "bad_input",
      `--workers: the plug-in suite ${suite.path} runs in this process only; run without --workers`,
      { ...(file ? { file } : {}), field: "suites" },
    );
}

/** The search itself, under the run's lock; the store is closed at the end whatever happens. */
async function searchIn(
  store: RunStore,
  runDir: string,
  stored: SearchConfig,
  raised: SearchConfig["budget"] | null,
  options: RunOptions,
  host: RunHost,
  events: RunEventLog,
  plugins: ConfigPlugins,
  locked: () => void = () => {},
): Promise<RunResult> {
  let config = stored;
  const release = lockDir(store, runDir);
  locked();
  const runId = store.getRun()?.id as string;
  if (raised) {
    // Only under the lock: a run still working must not see its budget change underneath it.
    store.setBudget(raised);
    store.logEvent({ kind: "budget_changed", data: { from: config.budget, to: raised } });
    config = { ...config, budget: raised };
  }
  let queue: QueueExecutor | undefined;
  try {
    const tasks = loadSearchTasks(config, host.cwd, undefined, plugins.tasks);
    const models = runModels(config, host, openRunCache(config, host, runDir), runRejections(store, events));
    if (options.workers) queue = await connectWorkers(options.workers, runId, config, events);
    const workers = queue;
    events.emit({
      type: "started",
      runId,
      runDir,
      objective: config.objective,
      searchTasks: tasks.search.length,
      rounds: config.rounds,
      proposalsPerRound: config.proposals_per_round,
      model: models.agent.id,
    });
    const outcome = await runSearch({
      config,
      runId,
      runDir,
      store,
      seedHarnessDir: resolveSeedHarness(config, host.cwd),
      tasks,
      model: models.agent,
      metaModel: models.proposer ?? null,
      roleModels: {
        ...(models.reflector ? { reflector: models.reflector } : {}),
        ...(models.curator ? { curator: models.curator } : {}),
      },
      ...(plugins.proposer ? { pluginProposer: plugins.proposer } : {}),
      judge: judgeOf(models),
      customerModel: models.customer,
      prices: loadPriceTable(),
      ...(queue ? { executor: queue.execute } : {}),
      // The config's image source, else the user's default, reaches the episodes this process makes (workers take their own).
      imageSource: config.image_source ?? imageSourceChosen(host.env),
      allowInternet: internetAllowed(host.env),
      // With workers the agent's and customer's calls are made there; each rollout's usage comes back with it.
      usage: workers
        ? () => mergeUsageRows([...models.usageRows(), ...workers.usageRows()])
        : models.usageRows,
      events: {
        phase: (message) => events.emit({ type: "phase", message }),
        rollouts: (done, total, label) => events.emit({ type: "rollouts", done, total, label }),
        candidate: (info) => events.emit({ type: "candidate", ...info }),
        round: (info) => events.emit({ type: "round", ...info }),
      },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    events.emit({ type: "finished", outcome });
    // The run's own metrics over its episodes, imported again as status, report and view will import them.
    return { runId, runDir, status: await statusWithMetrics(store), outcome };
  } catch (error) {
    const inModule = recordFailure(store, error);
    if (inModule)
      events.emit({
        type: "message",
        text: `hsearch run: the run stopped on an error in ${inModule.module} (${inModule.hook}); everything before it is kept. Fix the module, then continue with: hsearch run --resume ${runDir}`,
      });
    throw error;
  } finally {
    await queue?.close();
    release();
    store.close();
  }
}

/** The workers' queue for this run's rollouts; says how many workers are there to take them. */
async function connectWorkers(
  workers: { url: string; queue?: string },
  runId: string,
  config: SearchConfig,
  events: RunEventLog,
): Promise<QueueExecutor> {
  const specs = roleSpecsOf(config);
  const settings = settingsByRole(config.models);
  const name = workers.queue ?? DEFAULT_QUEUE;
  const queue = await connectQueueExecutor({
    url: workers.url,
    queue: name,
    run: runId,
    models: {
      agent: specs.agent,
      customer: specs.customer,
      settings: {
        ...(settings.agent ? { agent: settings.agent } : {}),
        ...(settings.customer ? { customer: settings.customer } : {}),
      },
      ...(config.limits ? { max_reply_chars: config.limits.model_reply_chars } : {}),
      ...(config.limits?.model_call_seconds
        ? { call_timeout_ms: config.limits.model_call_seconds * 1000 }
        : {}),
    },
    harnessLimits: harnessLimitsOf(config.limits),
  });
  const count = await queue.workerCount();
  events.emit({
    type: "message",
    text: `rollouts go to queue ${name} at ${redactRedisUrl(workers.url)}: ${count === 0 ? "no worker connected yet; they wait for one" : `${count} worker${count === 1 ? "" : "s"} connected`}`,
  });
  return queue;
}

/**
 * What the run's providers rejected (models/parameter-fallback.ts): what earlier sessions learnt applies from the
 * first call and is named once at the start; what this session learns is stored and said once, as it happens.
 */
function runRejections(store: RunStore, events: RunEventLog): RejectionMemory {
  const known = store.rejectedParameters();
  const say = (text: string) => events.emit({ type: "message", text: `hsearch run: ${text}` });
  for (const rejection of known) say(describeRejection(rejection, "known"));
  return createRejectionMemory({
    known,
    onLearn: (rejection) => {
      store.recordRejectedParameter(rejection);
      store.logEvent({ kind: "parameter_rejected", data: { ...rejection } });
      say(describeRejection(rejection, "learnt"));
    },
  });
}
