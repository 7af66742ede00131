import { describe, expect, it } from "vitest";
import type { Argv } from "yargs";
import { COMMANDS, commandNamed } from "../../src/cli/command-list";
import { processIO } from "../../src/cli/io";

describe("the command list", () => {
  it.each(Object.entries(COMMANDS))(
    "lists %s with the usage and description its module registers",
    async (_name, entry) => {
      const registered: Array<[string, string]> = [];
      const parser = {
        command: (usage: string, describe: string) => {
          registered.push([usage, describe]);
          return parser;
        },
      } as unknown as Argv;
      const { register } = await entry.load();
      register(parser, processIO(), () => {});
      expect(registered).toEqual([[entry.usage, entry.describe]]);
    },
  );

  it("names the command by the first word that is not an option", () => {
    expect(commandNamed(["--help"])).toBeUndefined();
    expect(commandNamed(["status", "runs/x"])).toBe(COMMANDS.status);
    expect(commandNamed(["--debug", "eval"])).toBe(COMMANDS.eval);
    expect(commandNamed(["nonsense"])).toBeUndefined();
  });
});
