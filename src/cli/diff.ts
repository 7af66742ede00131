import { type DiffedCandidate, diffRun } from "../api";
import { defineCommand } from "./command-list";
import { RUN } from "./shared";
import { comparisonText, pairedDeltaText } from "./text/compare-text";
import { colourDiff, fitDiff } from "./text/diff-text";
import { fitLines, type Paint, paintFor } from "./text/table";
import { usageError } from "./usage-error";

export const register = defineCommand("diff", {
  options: (yargs) =>
    yargs
      .positional("run", RUN)
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
  run: async (argv, io) => {
    const { round, proposal, from, to } = argv;
    const found = await diffRun(argv.run, { cwd: io.cwd, round, proposal, from, to });
    const paint = paintFor(io, argv.color as boolean | undefined);
    const maxWidth = argv.wide ? undefined : io.outColumns;
    // On a terminal every line fits it: a comment line wraps under its `#`, a diff line under its sign.
    const say = (text: string) => io.out(fitLines(text, maxWidth, "#   "));
    const sayDiff = (text: string) => io.out(colourDiff(fitDiff(text, maxWidth), paint));
    if (found.kind === "pair") {
      say(paint.bold(`# ${header(found.from, paint)}`));
      say(paint.bold(`# → ${header(found.to, paint)}`));
      for (const c of found.comparisons)
        io.out(
          `${comparisonText(c, { before: found.from.name, after: found.to.name }, paint, { flips: true, maxWidth })}\n`,
        );
      sayDiff(found.diff);
      return;
    }
    if (found.kind === "none") {
      const where =
        argv.round === undefined
          ? ""
          : ` in round ${argv.round}${argv.proposal === undefined ? "" : ` proposal ${argv.proposal}`}`;
      say(`# no proposal became a commit${where}`);
      for (const f of found.failures)
        say(`# r${f.round}p${f.proposal} refused: ${f.reason ?? ""} · ${f.rationale.split("\n")[0]}`);
      return;
    }
    for (const proposal of found.proposals) {
      say(paint.bold(`# ${header(proposal, paint)}`));
      say(`# ${proposal.candidate.rationale.split("\n")[0]}`);
      sayDiff(proposal.diff);
    }
  },
});

/** "round 1 proposal 2 · round-1/p2 · 1a2b3c4d5e6f · rejected · score 0.5000 (parent 0.5625, Δ -0.063 [-0.188,
 * +0.063]) · reason …": always the verdict, the score and the reason, "-" where there is none. The Δ is paired over
 * the tasks both scored, with its 95% interval. */
function header({ candidate: c, verdict, parentScore, delta }: DiffedCandidate, paint: Paint): string {
  const vsParent = [
    ...(parentScore === null ? [] : [`parent ${parentScore.toFixed(4)}`]),
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
