import { compareRunDirs, viewComparison } from "../api";
import { defineCommand } from "./command-list";
import { runComparisonText } from "./text/compare-runs-text";
import { paintFor } from "./text/table";
import { untilInterrupted } from "./until-interrupted";
import { usageError } from "./usage-error";

/** `hsearch compare A B`: the library's compareRunDirs (src/api/view.ts); this file reads flags and prints. */
export const register = defineCommand("compare", {
  options: (yargs) =>
    yargs
      .positional("a", {
        type: "string",
        demandOption: true,
        describe: "run or evaluation: id or directory",
      })
      .positional("b", {
        type: "string",
        demandOption: true,
        describe: "run or evaluation: id or directory",
      })
      .option("candidate-a", {
        type: "string",
        describe:
          "A's harness (default: the selection, or the evaluated harness): seed, r4p1, a commit prefix …",
      })
      .option("candidate-b", { type: "string", describe: "B's harness, named the same way" })
      .option("flips", {
        type: "string",
        default: "10",
        coerce: (value: string) => {
          if (!/^\d+$/.test(value)) throw usageError(`--flips must be a whole number ≥ 0, got '${value}'`);
          return Number(value);
        },
        describe: "list at most this many flipped episodes per split",
      })
      .option("json", { type: "boolean", default: false, describe: "print the comparison as JSON" })
      .option("wide", { type: "boolean", default: false, describe: "do not fit tables to the terminal" })
      .option("view", {
        type: "boolean",
        default: false,
        describe:
          "serve the comparison in the viewer (A's viewer, with the page /compare-runs); Ctrl-C stops it",
      })
      .option("port", {
        type: "number",
        default: 0,
        describe: "with --view: port to listen on (0: any free port)",
      }),
  run: async (argv, io) => {
    const sides = { cwd: io.cwd, candidateA: argv.candidateA, candidateB: argv.candidateB };
    const comparison = await compareRunDirs(argv.a, argv.b, sides);
    if (argv.view) {
      const viewer = await viewComparison(argv.a, argv.b, { ...sides, port: argv.port });
      io.out(viewer.url);
      io.err("hsearch compare: serving read-only; Ctrl-C stops it");
      await untilInterrupted();
      await viewer.close();
      return;
    }
    if (argv.json) {
      io.out(JSON.stringify(comparison, null, 2));
      return;
    }
    const paint = paintFor(io, argv.color as boolean | undefined);
    io.out(
      runComparisonText(comparison, paint, {
        maxWidth: argv.wide ? undefined : io.outColumns,
        flips: argv.flips as number,
      }),
    );
  },
});
