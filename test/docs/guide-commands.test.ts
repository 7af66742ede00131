/**
 * Every `hsearch …` command shown in a fenced block of the guide (docs/guide/*.md) or the README parses with the
 * real CLI's yargs definitions in strict mode, so a renamed or unknown flag fails here; the cheap ones (a plan, a
 * task listing or check) run for real in a temporary directory, after the shell lines before them in their block.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { runCli } from "../helpers/cli";
import { parseCommandLine } from "../helpers/parse-command-line";

interface ShownCommand {
  file: string;
  line: number;
  args: string[];
  /** The shell lines before it in its block that are not hsearch commands (they make its inputs). */
  before: string[];
}

const COMMAND = /^(?:\$\s+)?(?:[A-Z_]+=\S+\s+)*(?:.*&&\s*)?(?:npx\s+)?hsearch\s+(?![^\s]*:(?:\s|$))(.*)$/;

/** Shell words of a line up to a comment, pipe, redirection or the next command (quotes kept together). */
function shellWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
    const bare = match[3];
    if (bare !== undefined && /^(#|\||>|2>|&&|;|\\$)/.test(bare)) break;
    words.push(match[1] ?? match[2] ?? bare ?? "");
  }
  return words;
}

function shownCommands(file: string, markdown: string): ShownCommand[] {
  const found: ShownCommand[] = [];
  const lines = markdown.split("\n");
  let fence: string | undefined;
  let before: string[] = [];
  lines.forEach((line, index) => {
    const opening = /^(```|~~~)/.exec(line)?.[1];
    if (opening && (fence === undefined || line.trim() === fence)) {
      fence = fence === undefined ? opening : undefined;
      before = [];
      return;
    }
    if (fence === undefined) return;
    const rest = COMMAND.exec(line)?.[1];
    if (rest === undefined) {
      if (line.trim() !== "" && !line.trim().startsWith("#")) before.push(line);
      return;
    }
    found.push({ file, line: index + 1, args: shellWords(rest), before: [...before] });
  });
  return found;
}

const files = [
  join(PACKAGE_ROOT, "README.md"),
  ...readdirSync(join(PACKAGE_ROOT, "docs", "guide"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => join(PACKAGE_ROOT, "docs", "guide", name)),
];
const commands = files.flatMap((file) =>
  shownCommands(file.slice(PACKAGE_ROOT.length + 1), readFileSync(file, "utf8")),
);

/** Commands cheap enough to run for real: they read files and print, and call no model. */
const cheap = (args: string[]) =>
  (args[0] === "run" && args.includes("--plan") && !args.includes("--pilot")) ||
  (args[0] === "tasks" && (args[1] === "list" || args[1] === "validate"));

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe("the commands the guide and README show", () => {
  it("finds them, and only commands", () => {
    expect(commands.length).toBeGreaterThan(10);
    expect(
      shownCommands(
        "x.md",
        "```sh\nnpm ci && npx hsearch run   # c\n$ hsearch status r --json | less\n```\n",
      ),
    ).toEqual([
      { file: "x.md", line: 2, args: ["run"], before: [] },
      { file: "x.md", line: 3, args: ["status", "r", "--json"], before: [] },
    ]);
    expect(shownCommands("x.md", "```\nhsearch run: a message\n```\n`hsearch run` in prose\n")).toEqual([]);
  });

  it.each(commands.map((c) => [`${c.file}:${c.line} hsearch ${c.args.join(" ")}`, c] as const))(
    "%s parses with the CLI's definitions",
    async (_name, command) => {
      await expect(parseCommandLine(command.args)).resolves.toBeUndefined();
    },
  );

  it("tells a renamed flag, an unknown command and a missing argument apart from a good line", async () => {
    await expect(parseCommandLine(["status", "runs/x", "--json"])).resolves.toBeUndefined();
    await expect(parseCommandLine(["status", "runs/x", "--jsn"])).rejects.toThrow(/Unknown argument: jsn/);
    await expect(parseCommandLine(["statuss", "runs/x"])).rejects.toThrow(/no command/);
    await expect(parseCommandLine(["export", "runs/x"])).rejects.toThrow(/Missing required argument: out/);
  });

  const runnable = commands.filter((c) => cheap(c.args));
  it("runs some of them for real", () => expect(runnable.length).toBeGreaterThan(0));
  it.each(runnable.map((c) => [`${c.file}:${c.line} hsearch ${c.args.join(" ")}`, c] as const))(
    "%s runs on the shipped files",
    async (_name, command) => {
      const dir = mkdtempSync(join(tmpdir(), "hsearch-guide-"));
      temps.push(dir);
      for (const name of ["search-configs", "harnesses", "tasks", "examples"])
        symlinkSync(join(PACKAGE_ROOT, name), join(dir, name));
      for (const line of command.before.filter((l) => !/^\s*(export|npm)\s/.test(l)))
        execFileSync("bash", ["-c", line], { cwd: dir, stdio: "pipe" });
      const result = await runCli(command.args, {
        cwd: dir,
        env: { ...process.env, OPENAI_API_KEY: "sk-test" },
      });
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
    },
    60_000,
  );
});
