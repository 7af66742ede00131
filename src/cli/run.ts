import type { RunEvent } from "../api";
import { DEFAULT_CONFIG, DEFAULT_PILOT_TASKS, DEFAULT_QUEUE, resumeRun, startRun } from "../api";
import { resolveUserPath } from "../core";
import { defineCommand } from "./command-list";
import type { CliIO } from "./io";
import { fileAndOutOptions } from "./shared";
import { planCommand } from "./text/plan-text";
import { createLiveLine, type LiveLine } from "./text/progress";
import { renderStatus } from "./text/status-text";
import { paintFor } from "./text/table";
import { usageError } from "./usage-error";

export { DEFAULT_CONFIG };

export const register = defineCommand("run", {
  options: (yargs) =>
    fileAndOutOptions(yargs, "config", "search config (YAML)", "the run directory (default: runs/<run-id>)")
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
        describe:
          "print the rollouts and model calls the search will spend (at most, expected) and start no run",
      })
      .option("pilot", {
        // A string, so that `--pilot` without N (the default) and `--pilot abc` (bad input) can be told apart.
        type: "string",
        describe: `with --plan: run the seed harness on N search tasks with the config's real models and estimate tokens and USD (default ${DEFAULT_PILOT_TASKS} when given without N)`,
      })
      .option("max-rollouts", { type: "number", describe: "with --resume: a new budget.max_rollouts" })
      .option("max-usd", { type: "number", describe: "with --resume: a new budget.max_usd" })
      .option("max-minutes", { type: "number", describe: "with --resume: a new budget.max_minutes" })
      .check((argv) => {
        if (argv.pilot !== undefined && !argv.plan) throw usageError("--pilot goes with --plan");
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
  run: async (argv, io) => {
    if (argv.plan) {
      if (argv.resume) throw usageError("--plan takes a config, not --resume");
      await planCommand(resolveUserPath(argv.config ?? DEFAULT_CONFIG, io.cwd), io, {
        json: argv.json,
        pilot: pilotTasksOf(argv.pilot),
      });
      return;
    }
    const status = await runCommand(
      {
        config: argv.config,
        out: argv.out,
        resume: argv.resume,
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
});

/** `--pilot` without N is the default number of tasks; N must be a whole number of tasks. */
function pilotTasksOf(given: string | undefined): number | undefined {
  if (given === undefined) return undefined;
  if (given === "") return DEFAULT_PILOT_TASKS;
  if (!/^\d+$/.test(given.trim()) || Number(given) < 1)
    throw usageError(
      `--pilot ${given}: give a number of search tasks (1 or more), or no number for ${DEFAULT_PILOT_TASKS}`,
    );
  return Number(given);
}

interface RunOptions {
  config?: string;
  out?: string;
  resume?: string;
  /** Rollouts go to workers through this Redis queue instead of running here. */
  workers?: { url: string; queue: string };
  /** New budget limits for a resumed run (undefined: keep the stored one). */
  budget?: { max_rollouts?: number; max_usd?: number; max_minutes?: number };
}

/** `hsearch run`: the library's startRun (or resumeRun), its events printed as they come. */
async function runCommand(options: RunOptions, io: CliIO) {
  const live = createLiveLine(io);
  const where = { cwd: io.cwd, env: io.env, ...(options.workers ? { workers: options.workers } : {}) };
  const handle = options.resume
    ? resumeRun(options.resume, { ...where, ...(options.budget ? { budget: options.budget } : {}) })
    : startRun(options.config ?? DEFAULT_CONFIG, { ...where, ...(options.out ? { out: options.out } : {}) });
  handle.on(progressPrinter(io, live));
  try {
    return (await handle.result).status;
  } catch (error) {
    live.clear();
    throw error;
  }
}

/** Live progress on a TTY (one redrawn line), plain lines otherwise. */
function progressPrinter(io: CliIO, live: LiveLine): (event: RunEvent) => void {
  const started = Date.now();
  let incumbentScore: number | null = null;
  let label = "";
  let rounds = 0;
  let runDir = "";
  const elapsed = () => {
    const seconds = Math.round((Date.now() - started) / 1000);
    return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  };
  return (event) => {
    switch (event.type) {
      case "message":
        live.print(event.text);
        return;
      case "started":
        rounds = event.rounds;
        runDir = event.runDir;
        live.print(
          `hsearch run ${event.runId}: ${event.objective} objective, ${event.searchTasks} search tasks, ${event.rounds} rounds × ${event.proposalsPerRound} proposals, model ${event.model}`,
        );
        live.print(`run directory: ${event.runDir}`);
        return;
      case "phase":
        label = event.message;
        if (!io.isTTY) io.err(`[${elapsed()}] ${event.message}`);
        return;
      case "rollouts": {
        if (!io.isTTY) return;
        const score = incumbentScore === null ? "-" : incumbentScore.toFixed(4);
        live.show(
          `${event.label} · rollouts ${event.done}/${event.total} · incumbent ${score} · ${elapsed()}${label.startsWith("final") ? ` ${label}` : ""}`,
        );
        return;
      }
      case "candidate": {
        const score = event.score === null ? "" : ` score ${event.score.toFixed(4)}`;
        const why = event.reason ? ` (${event.reason})` : "";
        live.print(
          `[${elapsed()}] round ${event.round}/${rounds} p${event.proposal}: ${event.state}${score}${why}`,
        );
        return;
      }
      case "round": {
        incumbentScore = event.score;
        const verdict =
          event.round === 0
            ? "seed evaluated"
            : event.accepted
              ? `accepted ${event.accepted.slice(0, 12)}`
              : "no proposal accepted";
        live.print(
          `[${elapsed()}] round ${event.round}/${rounds}: ${verdict}; incumbent ${event.incumbent.slice(0, 12)} score ${event.score.toFixed(4)}`,
        );
        return;
      }
      case "finished": {
        const { outcome } = event;
        const score = outcome.score === null ? "not scored yet" : `score ${outcome.score.toFixed(4)}`;
        if (outcome.budget)
          live.print(
            `stopped: ${outcome.budget.message}; incumbent ${outcome.selected.slice(0, 12)} (${score}). Continue with: hsearch run --resume ${runDir} --${outcome.budget.limit.replace("_", "-")} <more>`,
          );
        else
          live.print(
            `selected ${outcome.selected.slice(0, 12)} (${score}; stopped by ${outcome.stoppedBy === "exhausted" ? "the operators running out of new edits" : outcome.stoppedBy})`,
          );
        return;
      }
    }
  };
}
