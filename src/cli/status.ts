import {
  type BeliefsReport,
  type ChallengeReport,
  evalResumeCommand,
  type RunStatusReport,
  readRunStatus,
  viewCommand,
} from "../api";
import { defineCommand } from "./command-list";
import { RUN_OR_EVALUATION } from "./shared";
import { renderEvalReport } from "./text/eval-text";
import { renderBeliefs, renderChallenge } from "./text/probe-text";
import { renderStatus } from "./text/status-text";
import { paintFor } from "./text/table";

export const register = defineCommand("status", {
  options: (yargs) =>
    yargs
      .positional("run", RUN_OR_EVALUATION)
      .option("json", { type: "boolean", default: false })
      .option("wide", { type: "boolean", default: false, describe: "do not fit tables to the terminal" }),
  run: async (argv, io) => {
    const read = await readRunStatus(argv.run, { cwd: io.cwd });
    if (read.kind !== "search") {
      io.out(evaluationStatus(read, argv.json));
      return;
    }
    const { status } = read;
    io.out(
      argv.json
        ? JSON.stringify(status, null, 2)
        : renderStatus(status, {
            maxWidth: argv.wide ? undefined : io.outColumns,
            paint: paintFor(io, argv.color as boolean | undefined),
            suites: status.suites,
          }),
    );
  },
});

/**
 * An evaluation's or a probe's status: where it stands (stored of planned episodes, how to resume one that stopped)
 * and its tables as the command printed them — over the episodes stored so far while it is not finished.
 */
function evaluationStatus(read: Exclude<RunStatusReport, { kind: "search" }>, json: boolean): string {
  if (read.kind === "eval") {
    const { evaluation: about, report } = read;
    if (json) return JSON.stringify({ evaluation: about, ...report }, null, 2);
    const dir = about.directory;
    return [
      `evaluation ${about.id} · ${about.state} · ${about.episodes_stored}/${about.episodes_planned} episodes stored · ${dir}`,
      ...(about.state !== "finished" && about.error ? [`stopped: ${about.error}`] : []),
      ...(about.state !== "finished"
        ? [`continue it with: ${evalResumeCommand(dir)} (the tables below are over the stored episodes)`]
        : []),
      `every episode with its trajectory and verifier output: ${viewCommand(dir)}`,
      "",
      renderEvalReport(report),
    ].join("\n");
  }
  const { probe: about, report } = read;
  if (json) return JSON.stringify({ probe: about, report }, null, 2);
  const text = report
    ? read.name === "beliefs"
      ? renderBeliefs(report as BeliefsReport)
      : renderChallenge(report as ChallengeReport)
    : "no report yet: the probe has not finished";
  return [
    `${read.name} probe ${about.id} · ${about.state} · ${about.episodes_stored}/${about.episodes_planned} episodes stored · ${about.directory}`,
    ...(about.state !== "finished" && about.error ? [`stopped: ${about.error}`] : []),
    `every episode with its trajectory: ${viewCommand(about.directory)}`,
    "",
    text,
  ].join("\n");
}
