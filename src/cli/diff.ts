import { join } from "node:path";
import type { Argv } from "yargs";
import { HsearchError } from "../core/errors";
import { diff } from "../git";
import { storedComparisons } from "../report/comparisons";
import { objectiveDelta } from "../report/report-data";
import { type CandidateRecord, candidateName, type RunStore, resolveCandidate } from "../store";
import type { CliIO } from "./io";
import { openRunForReading } from "./open-run";
import type { SetExitCode } from "./shared";
import { comparisonText, pairedDeltaText } from "./text/compare-text";
import { colourDiff, fitDiff } from "./text/diff-text";
import { fitLines, type Paint, paintFor } from "./text/table";
import { usageError } from "./usage-error";

export function register(parser: Argv, io: CliIO, _setExitCode: SetExitCode): void {
  parser.command(
    "diff <run>",
    "The git diff of each proposal against its parent, or of any two candidates (--from, --to) with their outcomes",
    (yargs) =>
      yargs
        .positional("run", { type: "string", demandOption: true, describe: "run id or directory" })
        .option("round", { type: "string", coerce: wholeNumberFlag("round"), describe: "only this round" })
        .option("proposal", {
          type: "string",
          coerce: wholeNumberFlag("proposal"),
          describe: "only this proposal (with --round)",
        })
        .option("from", {
          type: "string",
          describe: "compare this candidate (seed, incumbent, selected, r4p1 or a commit prefix) …",
        })
        .option("to", {
          type: "string",
          describe: "… with this one: outcomes per suite and family, flips, diff",
        })
        .option("wide", { type: "boolean", default: false, describe: "do not fit tables to the terminal" })
        .check((argv) => {
          if (argv.proposal !== undefined && argv.round === undefined)
            throw usageError("--proposal needs --round");
          if ((argv.from === undefined) !== (argv.to === undefined))
            throw usageError("--from and --to go together");
          if (argv.from !== undefined && argv.round !== undefined)
            throw usageError(
              "--from/--to compare two candidates; --round picks proposals: use one or the other",
            );
          return true;
        }),
    async (argv) => {
      const store = openRunForReading(argv.run, io.cwd);
      const runDir = store.paths.dir;
      const paint = paintFor(io, argv.color as boolean | undefined);
      const maxWidth = argv.wide ? undefined : io.outColumns;
      // On a terminal every line fits it: a comment line wraps under its `#`, a diff line under its sign.
      const say = (text: string) => io.out(fitLines(text, maxWidth, "#   "));
      const sayDiff = (text: string) => io.out(colourDiff(fitDiff(text, maxWidth), paint));
      try {
        const repo = join(runDir, "harness");
        if (argv.from !== undefined && argv.to !== undefined) {
          const before = resolveCandidate(store, argv.from, { field: "--from" });
          const after = resolveCandidate(store, argv.to, { field: "--to" });
          say(paint.bold(`# ${header(store, before, paint)}`));
          say(paint.bold(`# → ${header(store, after, paint)}`));
          for (const c of storedComparisons(store, before.commit, after.commit))
            io.out(
              `${comparisonText(c, { before: idOf(before), after: idOf(after) }, paint, { flips: true, maxWidth })}\n`,
            );
          sayDiff(await diff(repo, after.commit, before.commit));
          return;
        }
        const rounds = store.listRounds();
        if (argv.round !== undefined && !rounds.some((r) => r.round === argv.round))
          throw new HsearchError(
            "not_found",
            `run ${argv.run} has no round ${argv.round} (rounds ${rounds[0]?.round ?? 0}–${rounds[rounds.length - 1]?.round ?? 0})`,
            { field: "round" },
          );
        const candidates = store
          .listCandidates()
          .filter((c) => c.parent !== null)
          .filter((c) => argv.round === undefined || c.round === argv.round)
          .filter((c) => argv.proposal === undefined || c.proposal === argv.proposal)
          .sort((a, b) => a.round - b.round || a.proposal - b.proposal);
        if (candidates.length === 0) {
          // An existing round with nothing to diff is an answer, not bad input.
          const failures = store
            .searchView()
            .rejectedProposals()
            .filter((f) => f.commit === null && (argv.round === undefined || f.round === argv.round));
          const where =
            argv.round === undefined
              ? ""
              : ` in round ${argv.round}${argv.proposal === undefined ? "" : ` proposal ${argv.proposal}`}`;
          say(`# no proposal became a commit${where}`);
          for (const f of failures)
            say(`# r${f.round}p${f.proposal} refused: ${f.reason ?? ""} · ${f.rationale.split("\n")[0]}`);
          return;
        }
        for (const candidate of candidates) {
          say(paint.bold(`# ${header(store, candidate, paint)}`));
          say(`# ${candidate.rationale.split("\n")[0]}`);
          sayDiff(await diff(repo, candidate.commit, candidate.parent ?? undefined));
        }
      } finally {
        store.close();
      }
    },
  );
}

const idOf = candidateName;

/** "round 1 proposal 2 · round-1/p2 · 1a2b3c4d5e6f · rejected · score 0.5000 (parent 0.5625, Δ -0.063 [-0.188,
 * +0.063]) · reason …": always the verdict, the score and the reason, "-" where there is none. The Δ is paired over
 * the tasks both scored, with its 95% interval. */
function header(store: RunStore, c: CandidateRecord, paint: Paint): string {
  const accepted = store.listRounds().some((r) => r.accepted_commit === c.commit);
  const verdict = c.round === 0 ? "seed" : accepted ? "accepted" : (c.verdict ?? c.state);
  const parentScore = c.parent ? store.getCandidate(c.parent)?.score : undefined;
  const run = store.getRun();
  const delta = c.parent && run ? objectiveDelta(store, run, c.parent, c.commit) : null;
  const vsParent = [
    ...(parentScore === undefined || parentScore === null ? [] : [`parent ${parentScore.toFixed(4)}`]),
    ...(delta ? [pairedDeltaText(delta, paint)] : []),
  ];
  const score = `score ${c.score === null ? "-" : c.score.toFixed(4)}${vsParent.length > 0 ? ` (${vsParent.join(", ")})` : ""}`;
  const parent = c.parent ? ` · parent ${c.parent.slice(0, 12)}` : "";
  return `round ${c.round} proposal ${c.proposal} · ${c.branch} · ${c.commit.slice(0, 12)}${parent} · ${verdict.replace("_", " ")} · ${score} · reason ${c.rejected_reason ?? "-"}`;
}

/** `--round 3` → 3; `--round abc` names the flag and the value (yargs' own number type would give NaN). */
function wholeNumberFlag(name: string): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value)) throw usageError(`--${name} must be a whole number ≥ 0, got '${value}'`);
    return Number(value);
  };
}
