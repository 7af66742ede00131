import type { Argv } from "yargs";
import type { CliIO } from "./io";
import type { SetExitCode } from "./shared";

/** What a command module exports: it adds its command (builder and handler) to the parser. */
export type RegisterCommand = (parser: Argv, io: CliIO, setExitCode: SetExitCode) => void;

export interface CommandEntry {
  /** The yargs command string, as the module registers it. */
  usage: string;
  describe: string;
  load: () => Promise<{ register: RegisterCommand }>;
}

/**
 * Every command, one module each, loaded only when named: `hsearch --help` lists these lines without importing
 * any command (the SDKs, SQLite and git behind them cost most of the start-up). A test checks each module
 * registers the same usage and description.
 */
export const COMMANDS: Record<string, CommandEntry> = {
  run: {
    usage: "run [config]",
    describe: "Search for a better harness (default config: search-configs/demo.yaml)",
    load: () => import("./run"),
  },
  study: {
    usage: "study [study]",
    describe:
      "Run the self-awareness study end to end and write its tables and figures (default: studies/default.yaml)",
    load: () => import("./study"),
  },
  status: {
    usage: "status <run>",
    describe:
      "Rounds, proposals, scores, incumbent, held-out results and usage of a run; an evaluation's tables",
    load: () => import("./status"),
  },
  diff: {
    usage: "diff <run>",
    describe:
      "The git diff of each proposal against its parent, or of any two candidates (--from, --to) with their outcomes",
    load: () => import("./diff"),
  },
  compare: {
    usage: "compare <a> <b>",
    describe:
      "Two runs or evaluations side by side: paired outcomes on the tasks both ran, config differences, spending, harness diff",
    load: () => import("./compare"),
  },
  digest: {
    usage: "digest <run>",
    describe: "What a proposer sees with a candidate as the incumbent: the llm proposer's prompt, exactly",
    load: () => import("./digest"),
  },
  export: {
    usage: "export <run>",
    describe:
      "Write a candidate (default: the selected harness) as a self-contained harness directory with provenance.json",
    load: () => import("./export"),
  },
  eval: {
    usage: "eval",
    describe:
      "Evaluate one harness on a split or a task directory, keeping every episode in an evaluation directory; prints every metric of docs/DESIGN.md §6",
    load: () => import("./eval"),
  },
  tasks: {
    usage: "tasks",
    describe: "Manage task suites: list, validate, generate, import-tau2, import-harbor, requirements, pair",
    load: () => import("./tasks"),
  },
  probe: {
    usage: "probe",
    describe: "The know and hold probes: beliefs, challenge (docs/DESIGN.md §6)",
    load: () => import("./probe"),
  },
  sandbox: {
    usage: "sandbox",
    describe: "Run commands in the terminal sandbox",
    load: () => import("./sandbox"),
  },
  report: {
    usage: "report <run>",
    describe: "Write a self-contained HTML report of a run or an evaluation (default: <dir>/report.html)",
    load: () => import("./report"),
  },
  worker: {
    usage: "worker",
    describe:
      "Run rollouts for `hsearch run --workers` from a Redis queue (API keys from this machine's environment)",
    load: () => import("./worker"),
  },
  serve: {
    usage: "serve",
    describe:
      "Serve a harness around a model as an OpenAI-compatible Chat Completions endpoint; Ctrl-C stops it",
    load: () => import("./serve"),
  },
  view: {
    usage: "view <run>",
    describe:
      "Browse a run or an evaluation in a local web viewer (report, candidates, diffs, episodes with their trajectories); Ctrl-C stops it",
    load: () => import("./view"),
  },
};

/** The command a command line names: its first word that is not an option (undefined for `hsearch --help`). */
export function commandNamed(argv: readonly string[]): CommandEntry | undefined {
  const first = argv.find((arg) => !arg.startsWith("-"));
  return first === undefined ? undefined : COMMANDS[first];
}
