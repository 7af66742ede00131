import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { Argv } from "yargs";
import { HsearchError, isHsearchError } from "../core/errors";
import { newRunId } from "../core/ids";
import { PACKAGE_ROOT, resolveUserPath } from "../core/paths";
import type { Task } from "../domain/task";
import { harnessLimitsOf, loadHarness } from "../harness/load";
import { openRequestCache, requestCacheFile } from "../models/cache";
import { createRejectionMemory, describeRejection, type RejectionMemory } from "../models/parameter-fallback";
import { loadPriceTable } from "../models/prices";
import { createRoleModels, mergeUsageRows, type RoleSpecs } from "../models/roles";
import { settingsByRole } from "../models/settings";
import { type SearchConfig, searchConfigSchema } from "../search/config-schema";
import { loadSearchConfig } from "../search/load-config";
import { runSearch } from "../search/run-search";
import type { SearchEvents } from "../search/search-deps";
import { offlineProviders } from "../sim";
import { createRunDir, openRunStore, type RunStore } from "../store";
import { acquireRunLock } from "../store/run-lock";
import { filterTasks, loadSuites, loadTaskDir } from "../tasks/load";
import { connectQueueExecutor, type QueueExecutor } from "../workers/queue-executor";
import { reachRedis, redactRedisUrl } from "../workers/redis-url";
import { DEFAULT_QUEUE } from "../workers/rollout-job";
import type { CliIO } from "./io";
import { storedConfig } from "./open-run";
import { createLiveLine, type LiveLine } from "./progress";
import { planCommand } from "./run-plan";
import { checkCustomerSpec, judgeOf, locateRun, type SetExitCode } from "./shared";
import { renderStatus, statusWithSuites } from "./status";
import { paintFor } from "./table";
import { usageError } from "./usage-error";

export const DEFAULT_CONFIG = "search-configs/demo.yaml";

export function register(parser: Argv, io: CliIO, _setExitCode: SetExitCode): void {
  parser.command(
    "run [config]",
    "Search for a better harness (default config: search-configs/demo.yaml)",
    (yargs) =>
      yargs
        .positional("config", { type: "string", describe: "search config (YAML)" })
        .option("out", { type: "string", describe: "the run directory (default: runs/<run-id>)" })
        .option("resume", { type: "string", describe: "continue a run that stopped: its id or directory" })
        .option("json", {
          type: "boolean",
          default: false,
          describe: "print the final status object as JSON",
        })
        .option("workers", {
          type: "string",
          describe:
            "run the rollouts on `hsearch worker` processes through this Redis (redis://host:port); this process scores and stores",
        })
        .option("queue", {
          type: "string",
          default: DEFAULT_QUEUE,
          describe: "with --workers: the queue the workers listen on",
        })
        .option("plan", {
          type: "boolean",
          default: false,
          describe: "print the rollouts the search will spend (at most, expected) and call no model",
        })
        .option("max-rollouts", { type: "number", describe: "with --resume: a new budget.max_rollouts" })
        .option("max-usd", { type: "number", describe: "with --resume: a new budget.max_usd" })
        .option("max-minutes", { type: "number", describe: "with --resume: a new budget.max_minutes" })
        .check((argv) => {
          if (argv.queue !== DEFAULT_QUEUE && !argv.workers) throw usageError("--queue goes with --workers");
          if (argv.resume && (argv.config || argv.out))
            throw usageError("--resume takes the config from the run; give no config or --out");
          const budgetFlags = ["max-rollouts", "max-usd", "max-minutes"].filter(
            (flag) => argv[flag] !== undefined,
          );
          if (budgetFlags.length > 0 && !argv.resume)
            throw usageError(
              `--${budgetFlags[0]} raises the budget of a resumed run; a new run sets it in the config`,
            );
          return true;
        }),
    async (argv) => {
      if (argv.plan) {
        if (argv.resume) throw usageError("--plan takes a config, not --resume");
        planCommand(resolveUserPath(argv.config ?? DEFAULT_CONFIG, io.cwd), io, argv.json, loadSearchTasks);
        return;
      }
      const status = await runCommand(
        {
          config: argv.config,
          out: argv.out,
          resume: argv.resume,
          json: argv.json,
          ...(argv.workers ? { workers: { url: argv.workers, queue: argv.queue } } : {}),
          budget: { max_rollouts: argv.maxRollouts, max_usd: argv.maxUsd, max_minutes: argv.maxMinutes },
        },
        io,
      );
      io.out(
        argv.json
          ? JSON.stringify(status, null, 2)
          : renderStatus(status, {
              maxWidth: io.outColumns,
              paint: paintFor(io, argv.color as boolean | undefined),
              suites: status.suites,
            }),
      );
    },
  );
}

interface RunOptions {
  config?: string;
  out?: string;
  resume?: string;
  json: boolean;
  /** Rollouts go to workers through this Redis queue instead of running here. */
  workers?: { url: string; queue: string };
  /** New budget limits for a resumed run (undefined: keep the stored one). */
  budget?: { max_rollouts?: number; max_usd?: number; max_minutes?: number };
}

async function runCommand(options: RunOptions, io: CliIO) {
  let runDir: string;
  let config: SearchConfig;
  let store: RunStore;
  let raised: SearchConfig["budget"] | null = null;
  // An unreachable Redis is bad input found before a run directory is made or a run is marked failed.
  if (options.workers) await reachRedis(options.workers.url, "--workers");
  if (options.resume) {
    runDir = locateRun(options.resume, io.cwd);
    store = openRunStore(runDir);
    const record = store.getRun();
    if (!record) throw new HsearchError("not_found", `no run recorded in ${runDir}`, { file: runDir });
    config = storedConfig(store);
    raised = resumedBudget(config, options.budget);
    // A finished run has nothing left to do: its results, usage and end time stay as they are.
    if (record.state === "finished") {
      io.err(`hsearch run: ${record.id} already finished at ${record.ended_at}; nothing to resume`);
      try {
        return statusWithSuites(store);
      } finally {
        store.close();
      }
    }
  } else {
    const file = resolveUserPath(options.config ?? DEFAULT_CONFIG, io.cwd);
    config = loadSearchConfig(file);
    // Fail on bad paths, a seed harness that does not load and bad model specs before anything is created, so bad
    // input leaves no half-made run directory.
    const seedHarness = resolveSeedHarness(config, io.cwd);
    loadHarness(seedHarness, harnessLimitsOf(config.limits));
    loadSearchTasks(config, io.cwd, file);
    checkModels(config, io);
    // A shared cache that cannot be opened fails now, before a run directory exists.
    if (config.cache.dir !== "run") openRunCache(config, io, undefined, file);
    // Stored resolved, so `run --resume` works from any directory.
    config = {
      ...config,
      seed_harness: seedHarness,
      ...(config.tasks ? { tasks: resolveUserPath(config.tasks, io.cwd) } : {}),
    };
    const runId = options.out
      ? basename(resolve(io.cwd, options.out))
      : newRunId(config.name, new Date(), randomBytes(8).toString("hex"));
    const root = options.out ? dirname(resolve(io.cwd, options.out)) : resolve(io.cwd, "runs");
    runDir = createRunDir(root, runId).dir;
    store = openRunStore(runDir);
    store.initRun({
      id: runId,
      name: config.name,
      config,
      seed: config.seed,
      objective: config.objective,
    });
    store.logEvent("config", { file });
  }
  const release = acquireRunLock(runDir);
  const live = createLiveLine(io);
  const runId = store.getRun()?.id as string;
  if (raised) {
    // Only under the lock: a run still working must not see its budget change underneath it.
    store.setBudget(raised);
    store.logEvent("budget_changed", { from: config.budget, to: raised });
    config = { ...config, budget: raised };
  }
  let queue: QueueExecutor | undefined;
  try {
    const tasks = loadSearchTasks(config, io.cwd);
    const models = runModels(config, io, openRunCache(config, io, runDir), runRejections(store, live));
    if (options.workers) queue = await connectWorkers(options.workers, runId, config, io);
    const workers = queue;
    live.print(
      `hsearch run ${runId}: ${config.objective} objective, ${tasks.search.length} search tasks, ${config.rounds} rounds × ${config.proposals_per_round} proposals, model ${models.agent.id}`,
    );
    live.print(`run directory: ${runDir}`);
    const outcome = await runSearch({
      config,
      runId,
      runDir,
      store,
      seedHarnessDir: resolveSeedHarness(config, io.cwd),
      tasks,
      model: models.agent,
      metaModel: models.proposer ?? null,
      judge: judgeOf(models),
      customerModel: models.customer,
      prices: loadPriceTable(),
      ...(queue ? { executor: queue.execute } : {}),
      // With workers the agent's and customer's calls are made there; each rollout's usage comes back with it.
      usage: workers
        ? () => mergeUsageRows([...models.usageRows(), ...workers.usageRows()])
        : models.usageRows,
      events: progressEvents(io, config, live),
    });
    const score = outcome.score === null ? "not scored yet" : `score ${outcome.score.toFixed(4)}`;
    if (outcome.budget)
      live.print(
        `stopped: ${outcome.budget.message}; incumbent ${outcome.selected.slice(0, 12)} (${score}). Continue with: hsearch run --resume ${runDir} --${outcome.budget.limit.replace("_", "-")} <more>`,
      );
    else
      live.print(
        `selected ${outcome.selected.slice(0, 12)} (${score}; stopped by ${outcome.stoppedBy === "exhausted" ? "the operators running out of new edits" : outcome.stoppedBy})`,
      );
    return statusWithSuites(store);
  } catch (error) {
    live.clear();
    store.setRunState("failed", error instanceof Error ? error.message : String(error));
    throw error;
  } finally {
    await queue?.close();
    release();
    store.close();
  }
}

/** The workers' queue for this run's rollouts; says how many workers are there to take them. */
async function connectWorkers(
  workers: { url: string; queue: string },
  runId: string,
  config: SearchConfig,
  io: CliIO,
): Promise<QueueExecutor> {
  const specs = roleSpecsOf(config);
  const settings = settingsByRole(config.models);
  const queue = await connectQueueExecutor({
    url: workers.url,
    queue: workers.queue,
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
  io.err(
    `rollouts go to queue ${workers.queue} at ${redactRedisUrl(workers.url)}: ${count === 0 ? "no worker connected yet; they wait for one" : `${count} worker${count === 1 ? "" : "s"} connected`}`,
  );
  return queue;
}

/** The stored budget with the limits given on the command line (validated like the config), or null if none given. */
function resumedBudget(config: SearchConfig, given: RunOptions["budget"]): SearchConfig["budget"] | null {
  const entries = Object.entries(given ?? {}).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return null;
  const parsed = searchConfigSchema.shape.budget.safeParse({
    ...config.budget,
    ...Object.fromEntries(entries),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw usageError(
      `--${String(issue?.path[0] ?? "budget").replace("_", "-")}: ${issue?.message ?? "invalid"}`,
    );
  }
  return parsed.data;
}

/**
 * What the run's providers rejected (models/parameter-fallback.ts): what earlier sessions learnt applies from the
 * first call and is named once at the start; what this session learns is stored and said once, as it happens.
 */
function runRejections(store: RunStore, live: LiveLine): RejectionMemory {
  const known = store.rejectedParameters();
  for (const rejection of known) live.print(`hsearch run: ${describeRejection(rejection, "known")}`);
  return createRejectionMemory({
    known,
    onLearn: (rejection) => {
      store.recordRejectedParameter(rejection);
      store.logEvent("parameter_rejected", { ...rejection });
      live.print(`hsearch run: ${describeRejection(rejection, "learnt")}`);
    },
  });
}

/** Every model of the config by role, with its settings and usage meter; warns once per unpriced model. */
function runModels(config: SearchConfig, io: CliIO, cachePath?: string, rejections?: RejectionMemory) {
  checkCustomerSpec(config.customer);
  const blocks = config.models;
  return createRoleModels(roleSpecsOf(config), {
    env: io.env,
    concurrency: config.concurrency,
    ...(cachePath ? { cachePath } : {}),
    prices: loadPriceTable(),
    settings: settingsByRole(blocks),
    maxReplyChars: config.limits?.model_reply_chars,
    // A run stored before the setting existed keeps the built-in default.
    ...(config.limits?.model_call_seconds ? { timeoutMs: config.limits.model_call_seconds * 1000 } : {}),
    extraProviders: offlineProviders,
    warn: cachePath ? (message) => io.err(`warning: ${message}`) : undefined,
    ...(rejections ? { rejections } : {}),
  });
}

/** The model of each role as the config names it: a `models:` block's spec wins over the older top-level fields. */
function roleSpecsOf(config: SearchConfig): RoleSpecs {
  const blocks = config.models;
  return {
    agent: blocks?.agent?.spec ?? config.task_model,
    proposer: blocks?.proposer?.spec ?? (config.meta_model === "operators" ? undefined : config.meta_model),
    judge: blocks?.judge?.spec ? `llm:${blocks.judge.spec}` : config.judge,
    customer: blocks?.customer?.spec ? `llm:${blocks.customer.spec}` : config.customer,
  };
}

/** The run's request cache file (opened once here, so a bad location is one error naming the config field). */
function openRunCache(
  config: SearchConfig,
  io: CliIO,
  runDir: string | undefined,
  configFile?: string,
): string {
  const path = requestCacheFile(config.cache.dir, { runDir, base: io.cwd, env: io.env });
  try {
    openRequestCache(path);
  } catch (error) {
    if (!isHsearchError(error)) throw error;
    throw new HsearchError("bad_input", `cache.dir: ${error.message}`, {
      ...(configFile ? { file: configFile } : {}),
      field: "cache.dir",
      cause: error,
    });
  }
  return path;
}

/** Construct every model of the config once without side effects (no cache file), so a bad spec fails early. */
function checkModels(config: SearchConfig, io: CliIO): void {
  runModels(config, io);
}

function resolveSeedHarness(config: SearchConfig, cwd: string): string {
  const dir = resolveUserPath(config.seed_harness, cwd);
  if (!existsSync(join(dir, "harness.yaml")))
    throw new HsearchError("bad_input", `seed_harness: no harness at ${dir}`, { field: "seed_harness" });
  return dir;
}

/**
 * The run's tasks by split. Errors name the config field that is actually wrong: an empty or mismatched `tasks:`
 * directory is a problem with `tasks`, not with `suites`.
 */
export function loadSearchTasks(config: SearchConfig, cwd: string, configFile?: string) {
  const at = (field: string) => ({ ...(configFile ? { file: configFile } : {}), field });
  const dir = config.tasks ? resolveUserPath(config.tasks, cwd) : null;
  const all: Task[] = dir
    ? loadTaskDir(dir).map((loaded) => loaded.task)
    : loadSuites(PACKAGE_ROOT, config.suites);
  if (dir && all.length === 0)
    throw new HsearchError("bad_input", `no task file (*.json, *.yaml, *.yml) in ${dir}`, at("tasks"));
  const inSuites = all.filter((task) => config.suites.includes(task.suite));
  const suites = config.suites.join(", ");
  if (dir && inSuites.length === 0) {
    const found = [...new Set(all.map((task) => task.suite))].join(", ");
    throw new HsearchError(
      "bad_input",
      `the tasks in ${dir} are of suite ${found}, none of the configured suites (${suites})`,
      at("suites"),
    );
  }
  const search = filterTasks(inSuites, { split: "search" });
  if (search.length === 0)
    throw new HsearchError(
      "bad_input",
      dir
        ? `no search-split task among the ${inSuites.length} tasks of ${dir}`
        : `no search-split task for suites ${suites}`,
      at(dir ? "tasks" : "suites"),
    );
  // Held-out tasks are only read when the final evaluation asks for them.
  return {
    search,
    heldout: () => filterTasks(inSuites, { split: "heldout" }),
    independent: () => filterTasks(inSuites, { split: "independent" }),
  };
}

/** Live progress on a TTY (one redrawn line), plain lines otherwise. */
function progressEvents(io: CliIO, config: SearchConfig, live: LiveLine): SearchEvents {
  const started = Date.now();
  let incumbentScore: number | null = null;
  let label = "";
  const elapsed = () => {
    const seconds = Math.round((Date.now() - started) / 1000);
    return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  };
  const line = (text: string) => live.print(text);
  return {
    phase: (message) => {
      label = message;
      if (!io.isTTY) io.err(`[${elapsed()}] ${message}`);
    },
    rollouts: (done, total, what) => {
      if (!io.isTTY) return;
      const score = incumbentScore === null ? "-" : incumbentScore.toFixed(4);
      live.show(
        `${what} · rollouts ${done}/${total} · incumbent ${score} · ${elapsed()}${label.startsWith("final") ? ` ${label}` : ""}`,
      );
    },
    candidate: (info) => {
      const score = info.score === null ? "" : ` score ${info.score.toFixed(4)}`;
      const why = info.reason ? ` (${info.reason})` : "";
      line(
        `[${elapsed()}] round ${info.round}/${config.rounds} p${info.proposal}: ${info.state}${score}${why}`,
      );
    },
    round: (info) => {
      incumbentScore = info.score;
      const verdict =
        info.round === 0
          ? "seed evaluated"
          : info.accepted
            ? `accepted ${info.accepted.slice(0, 12)}`
            : "no proposal accepted";
      line(
        `[${elapsed()}] round ${info.round}/${config.rounds}: ${verdict}; incumbent ${info.incumbent.slice(0, 12)} score ${info.score.toFixed(4)}`,
      );
    },
  };
}
