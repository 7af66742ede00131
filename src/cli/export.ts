import { join, resolve } from "node:path";
import type { Argv } from "yargs";
import { HsearchError } from "../core/errors";
import { exportHarness, resolveCommit, SELECTED_TAG } from "../git";
import type { CliIO } from "./io";
import { openRunForReading } from "./open-run";
import type { SetExitCode } from "./shared";

export function register(parser: Argv, io: CliIO, _setExitCode: SetExitCode): void {
  parser.command(
    "export <run>",
    "Write a candidate (default: the selected harness) as a self-contained harness directory with provenance.json",
    (yargs) =>
      yargs
        .positional("run", { type: "string", demandOption: true, describe: "run id or directory" })
        .option("candidate", {
          type: "string",
          default: "selected",
          describe: "'selected' or a commit SHA (prefix)",
        })
        .option("out", {
          type: "string",
          demandOption: true,
          describe: "directory to write (must not exist or be empty)",
        }),
    async (argv) => {
      const store = openRunForReading(argv.run, io.cwd);
      const runDir = store.paths.dir;
      try {
        const repo = join(runDir, "harness");
        let commit: string;
        try {
          commit = await resolveCommit(repo, argv.candidate === "selected" ? SELECTED_TAG : argv.candidate);
        } catch (error) {
          const hint =
            argv.candidate === "selected" ? " (the run has not finished: give --candidate SHA)" : "";
          throw new HsearchError("not_found", `no candidate '${argv.candidate}' in run ${argv.run}${hint}`, {
            field: "candidate",
            cause: error,
          });
        }
        const candidate = store.getCandidate(commit);
        if (!candidate)
          throw new HsearchError(
            "not_found",
            `commit ${commit.slice(0, 12)} is not a candidate of run ${argv.run}`,
            { field: "candidate" },
          );
        const run = store.getRun();
        const evaluations = store
          .listEvaluations()
          .filter((e) => e.candidate === commit && e.purpose !== "diagnostic");
        const out = resolve(io.cwd, argv.out);
        await exportHarness(repo, commit, out, {
          run: run?.id,
          config: run?.config,
          candidate: {
            round: candidate.round,
            proposal: candidate.proposal,
            branch: candidate.branch,
            rationale: candidate.rationale,
          },
          scores: {
            search: { objective: run?.objective, score: candidate.score, summary: candidate.summary },
            ...Object.fromEntries(evaluations.map((e) => [e.purpose, e.summary])),
          },
        });
        io.out(`exported ${commit.slice(0, 12)} to ${out}`);
      } finally {
        store.close();
      }
    },
  );
}
