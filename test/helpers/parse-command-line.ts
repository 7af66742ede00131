import yargs, { type Argv } from "yargs";
import { commandNamed } from "../../src/cli/command-list";
import { processIO } from "../../src/cli/io";
import { GLOBAL_OPTIONS } from "../../src/cli/main";

type Handler = (...args: unknown[]) => unknown;

/**
 * The parser as `hsearch` builds it, with every command handler replaced by one that does nothing: a proxy passes
 * each call through and swaps the handler (a command's fourth argument) and, inside builders, wraps the nested
 * parser the same way.
 */
function withoutHandlers(parser: Argv): Argv {
  const proxy: Argv = new Proxy(parser, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (property === "command" && typeof args[0] === "string") {
          const builder = args[2];
          if (typeof builder === "function")
            args[2] = (inner: Argv) => (builder as Handler)(withoutHandlers(inner));
          args[3] = () => {};
        }
        const result = (value as Handler).apply(target, args);
        return result === target ? proxy : result;
      };
    },
  });
  return proxy;
}

/**
 * Parses a command line with the real CLI's definitions in strict mode, running nothing: an unknown command or
 * flag, a missing argument or a value a check refuses is thrown as yargs' message.
 */
export async function parseCommandLine(args: readonly string[]): Promise<void> {
  const parser = yargs([...args])
    .scriptName("hsearch")
    .strict()
    .demandCommand(1, "Name a command")
    .options(GLOBAL_OPTIONS)
    .help(false)
    .version(false)
    .exitProcess(false)
    .fail((message, error) => {
      throw error ?? new Error(message);
    });
  const named = commandNamed(args);
  if (!named) throw new Error(`no command: hsearch ${args.join(" ")}`);
  const { register } = await named.load();
  register(withoutHandlers(parser), processIO(), () => {});
  await parser.parseAsync();
}
