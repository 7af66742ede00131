import { join, resolve } from "node:path";
import type { Argv } from "yargs";
import { exportHarness } from "../git";
import { resolveCandidate } from "../store";
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
          describe: "seed, incumbent, selected, r4p1 (round 4 proposal 1) or a commit prefix",
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
        const candidate = resolveCandidate(store, argv.candidate, { field: "--candidate" });
        const commit = candidate.commit;
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
