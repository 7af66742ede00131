import { join } from "node:path";
import type { Argv } from "yargs";
import { HsearchError } from "../core/errors";
import { diff } from "../git";
import { openRunStore } from "../store";
import type { CliIO } from "./io";
import type { SetExitCode } from "./shared";
import { locateRun } from "./shared";
import { usageError } from "./usage-error";

export function register(parser: Argv, io: CliIO, _setExitCode: SetExitCode): void {
  parser.command(
    "diff <run>",
    "The git diff of each proposal against its parent (the incumbent it was proposed from)",
    (yargs) =>
      yargs
        .positional("run", { type: "string", demandOption: true, describe: "run id or directory" })
        .option("round", { type: "number", describe: "only this round" })
        .option("proposal", { type: "number", describe: "only this proposal (with --round)" })
        .check((argv) => {
          if (argv.proposal !== undefined && argv.round === undefined)
            throw usageError("--proposal needs --round");
          return true;
        }),
    async (argv) => {
      const runDir = locateRun(argv.run, io.cwd);
      const store = openRunStore(runDir, { readonly: true });
      try {
        const candidates = store
          .listCandidates()
          .filter((c) => c.parent !== null)
          .filter((c) => argv.round === undefined || c.round === argv.round)
          .filter((c) => argv.proposal === undefined || c.proposal === argv.proposal)
          .sort((a, b) => a.round - b.round || a.proposal - b.proposal);
        if (candidates.length === 0) {
          const what =
            argv.round === undefined
              ? ""
              : ` in round ${argv.round}${argv.proposal === undefined ? "" : ` proposal ${argv.proposal}`}`;
          throw new HsearchError("not_found", `no proposal${what} in run ${argv.run}`);
        }
        const repo = join(runDir, "harness");
        for (const candidate of candidates) {
          const verdict =
            candidate.state === "evaluated" ? `score ${candidate.score?.toFixed(4)}` : candidate.state;
          io.out(
            `# round ${candidate.round} proposal ${candidate.proposal} · ${candidate.branch} · ${candidate.commit.slice(0, 12)} · ${verdict}`,
          );
          io.out(`# ${candidate.rationale.split("\n")[0]}`);
          io.out(await diff(repo, candidate.commit, candidate.parent ?? undefined));
        }
      } finally {
        store.close();
      }
    },
  );
}
