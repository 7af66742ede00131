import type { Argv } from "yargs";
import { COMMANDS } from "../../src/cli/command-list";
import { processIO } from "../../src/cli/io";

/** One flag or positional as a command's builder declares it. */
export interface DeclaredOption {
  name: string;
  kind: "positional" | "option";
  settings: Record<string, unknown>;
}

/** A command (or subcommand) as its module registers it with yargs: its usage, options and subcommands. */
export interface DeclaredCommand {
  /** The words that name it, e.g. ["tasks", "import-harbor"]. */
  path: string[];
  usage: string;
  describe: string;
  options: DeclaredOption[];
  subcommands: DeclaredCommand[];
}

type Builder = ((parser: Argv) => unknown) | Record<string, Record<string, unknown>> | undefined;

/**
 * A stand-in for yargs' parser that records what a builder declares (`command`, `positional`, `option`,
 * `options`) and lets every other call (`check`, `demandCommand`, …) through, so a command's definition reads as
 * data without parsing a command line.
 */
function recorder(path: string[], into: { options: DeclaredOption[]; subcommands: DeclaredCommand[] }): Argv {
  const parser: Argv = new Proxy({} as Argv, {
    get(_target, property) {
      switch (property) {
        case "positional":
          return (name: string, settings: Record<string, unknown> = {}) => {
            into.options.push({ name, kind: "positional", settings });
            return parser;
          };
        case "option":
        case "options":
          return (
            name: string | Record<string, Record<string, unknown>>,
            settings: Record<string, unknown> = {},
          ) => {
            const entries = typeof name === "string" ? [[name, settings] as const] : Object.entries(name);
            for (const [key, value] of entries)
              into.options.push({ name: key, kind: "option", settings: value });
            return parser;
          };
        case "command":
          return (usage: string, describe: string, builder?: Builder) => {
            into.subcommands.push(declared([...path, commandWord(usage)], usage, describe, builder));
            return parser;
          };
        case "then":
          // Not a promise: a builder's parser may be returned from an async function and awaited.
          return undefined;
        default:
          return () => parser;
      }
    },
  });
  return parser;
}

function declared(path: string[], usage: string, describe: string, builder: Builder): DeclaredCommand {
  const command: DeclaredCommand = { path, usage, describe, options: [], subcommands: [] };
  if (typeof builder === "function") builder(recorder(path, command));
  else if (builder)
    for (const [name, settings] of Object.entries(builder))
      command.options.push({ name, kind: "option", settings });
  return command;
}

/** The first word of a yargs command string: `"validate [path]"` → `validate`. */
const commandWord = (usage: string) => usage.split(/\s+/)[0] as string;

/** Every command of `hsearch`, loaded from its module and walked through its builder (subcommands included). */
export async function commandTree(): Promise<DeclaredCommand[]> {
  const commands: DeclaredCommand[] = [];
  for (const entry of Object.values(COMMANDS)) {
    const { register } = await entry.load();
    const top = { options: [] as DeclaredOption[], subcommands: [] as DeclaredCommand[] };
    register(recorder([], top), processIO(), () => {});
    commands.push(...top.subcommands);
  }
  return commands;
}
