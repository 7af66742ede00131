import { readFileSync } from "node:fs";
import type { ArgumentsCamelCase, Argv } from "yargs";
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

/** Each command's usage and one-line description: the list `--help` prints, and what each module registers. */
export const COMMAND_TEXT: Record<string, { usage: string; describe: string }> = JSON.parse(
  readFileSync(new URL("./commands.json", import.meta.url), "utf8"),
);

/** Every command's module, loaded only when named: `hsearch --help` imports none of them (the SDKs, SQLite and git
 * behind them cost most of the start-up). */
const LOADERS: Record<string, CommandEntry["load"]> = {
  run: () => import("./run"),
  study: () => import("./study"),
  status: () => import("./status"),
  diff: () => import("./diff"),
  compare: () => import("./compare"),
  digest: () => import("./digest"),
  export: () => import("./export"),
  eval: () => import("./eval"),
  tasks: () => import("./tasks"),
  probe: () => import("./probe"),
  sandbox: () => import("./sandbox"),
  report: () => import("./report"),
  worker: () => import("./worker"),
  serve: () => import("./serve"),
  agent: () => import("./agent"),
  "export-log": () => import("./export-log"),
  view: () => import("./view"),
};

/** Every command: its text and its module. A test checks each module registers the text listed here. */
export const COMMANDS: Record<string, CommandEntry> = Object.fromEntries(
  Object.entries(LOADERS).map(([name, load]) => [name, { ...commandText(name), load }]),
);

/** A command's usage and description, for its module to register (one place for the words `--help` lists). */
export function commandText(name: string): { usage: string; describe: string } {
  const text = COMMAND_TEXT[name];
  if (text === undefined) throw new Error(`no command '${name}' in commands.json`);
  return text;
}

/** The command a command line names: its first word that is not an option (undefined for `hsearch --help`). */
export function commandNamed(argv: readonly string[]): CommandEntry | undefined {
  const first = argv.find((arg) => !arg.startsWith("-"));
  return first === undefined ? undefined : COMMANDS[first];
}

/** What a command with a handler is: its options (a yargs builder) and what it does with them. */
export interface CommandSpec<U> {
  options: (yargs: Argv) => Argv<U>;
  run: (argv: ArgumentsCamelCase<U>, io: CliIO, setExitCode: SetExitCode) => void | Promise<void>;
}

/** A command module's `register`: the command's words from commands.json, its options and its handler. */
export function defineCommand<U>(name: string, spec: CommandSpec<U>): RegisterCommand {
  const { usage, describe } = commandText(name);
  return (parser, io, setExitCode) => {
    parser.command(usage, describe, spec.options, (argv) => spec.run(argv, io, setExitCode));
  };
}
