import type { Argv } from "yargs";
import type { BeliefsReport, ChallengeReport } from "../api";
import { statusWithMetrics } from "../api/run-result";
import { loadStoredEvaluation } from "../report/eval-data";
import { evalResumeCommand, viewCommand } from "../report/format";
import { loadStoredProbe } from "../report/probe-page";
import type { RunRecord, RunStore } from "../store";
import type { CliIO } from "./io";
import { openRunDirForReading, storedConfig } from "./open-run";
import type { SetExitCode } from "./shared";
import { renderEvalReport } from "./text/eval-text";
import { renderBeliefs, renderChallenge } from "./text/probe-text";
import { renderStatus } from "./text/status-text";
import { paintFor } from "./text/table";

export function register(parser: Argv, io: CliIO, _setExitCode: SetExitCode): void {
  parser.command(
    "status <run>",
    "Rounds, proposals, scores, incumbent, held-out results and usage of a run; an evaluation's tables",
    (yargs) =>
      yargs
        .positional("run", {
          type: "string",
          demandOption: true,
          describe: "run or evaluation: its id or directory",
        })
        .option("json", { type: "boolean", default: false })
        .option("wide", { type: "boolean", default: false, describe: "do not fit tables to the terminal" }),
    async (argv) => {
      const store = openRunDirForReading(argv.run, io.cwd);
      try {
        const kind = store.getRun()?.kind;
        if (kind !== undefined && kind !== "search") {
          io.out(evaluationStatus(store, argv.json));
          return;
        }
        storedConfig(store);
        const status = await statusWithMetrics(store);
        io.out(
          argv.json
            ? JSON.stringify(status, null, 2)
            : renderStatus(status, {
                maxWidth: argv.wide ? undefined : io.outColumns,
                paint: paintFor(io, argv.color as boolean | undefined),
                suites: status.suites,
              }),
        );
      } finally {
        store.close();
      }
    },
  );
}

/**
 * An evaluation's or a probe's status: where it stands (stored of planned episodes, how to resume one that stopped)
 * and its tables as the command printed them — over the episodes stored so far while it is not finished.
 */
function evaluationStatus(store: RunStore, json: boolean): string {
  const run = store.getRun() as RunRecord;
  const dir = store.paths.dir;
  if (run.kind === "eval") {
    const stored = loadStoredEvaluation(store);
    const about = {
      id: run.id,
      kind: run.kind,
      state: run.state,
      error: run.error,
      directory: dir,
      created_at: run.created_at,
      ended_at: run.ended_at,
      episodes_planned: stored.planned,
      episodes_stored: stored.stored,
    };
    if (json) return JSON.stringify({ evaluation: about, ...stored.report }, null, 2);
    return [
      `evaluation ${run.id} · ${run.state} · ${stored.stored}/${stored.planned} episodes stored · ${dir}`,
      ...(run.state !== "finished" && run.error ? [`stopped: ${run.error}`] : []),
      ...(run.state !== "finished"
        ? [`continue it with: ${evalResumeCommand(dir)} (the tables below are over the stored episodes)`]
        : []),
      `every episode with its trajectory and verifier output: ${viewCommand(dir)}`,
      "",
      renderEvalReport(stored.report),
    ].join("\n");
  }
  const probe = loadStoredProbe(store);
  const about = {
    id: run.id,
    kind: run.kind,
    state: run.state,
    error: run.error,
    directory: dir,
    episodes_planned: probe.planned,
    episodes_stored: probe.episodes.length,
  };
  if (json) return JSON.stringify({ probe: about, report: probe.report }, null, 2);
  const report = probe.report
    ? probe.probe === "beliefs"
      ? renderBeliefs(probe.report as unknown as BeliefsReport)
      : renderChallenge(probe.report as unknown as ChallengeReport)
    : "no report yet: the probe has not finished";
  return [
    `${probe.probe} probe ${run.id} · ${run.state} · ${probe.episodes.length}/${probe.planned} episodes stored · ${dir}`,
    ...(run.state !== "finished" && run.error ? [`stopped: ${run.error}`] : []),
    `every episode with its trajectory: ${viewCommand(dir)}`,
    "",
    report,
  ].join("\n");
}
