/**
 * The commands an instruction gives for running its deliverable ("when run with `node extract.js /app/a.out`",
 * "`gcc /app/polyglot/main.py.c -o …`", "echo … | python3 interp.py eval.scm"): the program that runs the
 * deliverable and the workspace files it runs on are prerequisites of the work itself, named in the spec, even when
 * the reference solution (which only writes the deliverable) never touches them. Pure.
 */

export interface DeliverableCommand {
  /** The program the command runs (its first word). */
  program: string;
  /** Its other words, quotes removed, `/app/` taken off: the paths it names as the workspace does. */
  operands: string[];
}

/** Words before the program that only change how it runs. */
const PREFIXES = new Set(["sudo", "time", "env", "nice", "nohup", "exec", "command"]);

/**
 * The pieces of the instruction that are commands: inline code spans, the lines of fenced blocks, lines that start
 * as a shell command does (a lowercase word, `./`, `/`; a sentence starts with a capital) and what follows a
 * sentence's last colon when it starts so.
 */
function commandTexts(instruction: string): string[] {
  const texts: string[] = [];
  const fence = /^\s*(```|~~~)/;
  let inFence = false;
  for (const line of instruction.split("\n")) {
    if (fence.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) {
      texts.push(line);
      continue;
    }
    for (const span of line.matchAll(/`([^`\n]+)`/g)) texts.push(span[1] as string);
    if (line.includes("`")) continue;
    if (/^\s*(\.?\/|[a-z])/.test(line)) texts.push(line);
    // "Script must run headlessly: vim -Nu NONE … /app/apply_macros.vim." — a colon introduces a command.
    for (const after of line.matchAll(/:\s+((?:\.?\/|[a-z])[^:]*)$/g)) texts.push(after[1] as string);
  }
  return texts;
}

/** The word without its quotes and the punctuation of the sentence around it (`main.rs.` ends a sentence). */
function unquoted(word: string): string {
  return word.replace(/^['"(]+|['"),.;:!?]+$/g, "");
}

/** `/app/x` (the workspace root's `x`) and `x` name the same workspace path; `./x` too. */
function workspacePath(word: string, root: string): string {
  const path = unquoted(word);
  const inRoot = path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
  return inRoot.replace(/^\.\//, "");
}

/**
 * The simple commands of the instruction that name one of `deliverables` (workspace paths the solution makes)
 * among their words: what the instruction says the deliverable is run, compiled or read with.
 */
export function deliverableCommands(
  instruction: string,
  deliverables: readonly string[],
  root = "/app",
): DeliverableCommand[] {
  const wanted = new Set(deliverables);
  const commands: DeliverableCommand[] = [];
  for (const text of commandTexts(instruction))
    for (const simple of text.split(/\|\||&&|[|;]/)) {
      const words = simple.trim().split(/\s+/).filter(Boolean);
      while (words.length > 0 && (/^\w+=/.test(words[0] as string) || PREFIXES.has(words[0] as string)))
        words.shift();
      const [first, ...rest] = words;
      if (first === undefined || !/^[A-Za-z][\w+.-]*$/.test(first)) continue;
      // A command's first argument is a flag or a file ("vim -Nu", "node extract.js"); prose's is a word ("after
      // running", "each line").
      if (!/^['"]?(-|[^\s]*[./])/.test(rest[0] ?? "")) continue;
      const operands = rest.map((word) => workspacePath(word, root));
      if (operands.some((operand) => wanted.has(operand))) commands.push({ program: first, operands });
    }
  return commands;
}

/**
 * Does the instruction name this program ("using OpenSSL", "compile it using coqc", "primer3's oligotm")? A
 * program the solution merely happens to run (awk to add numbers up, base64 to write a file) is its choice, not the
 * work's: another would do. Names of three letters or more match in any case ("OpenSSL"); a shorter one only as
 * written with a capital ("in R") or in a code span (`ld`), since lowercase it is a word ("as").
 */
export function namesProgram(instruction: string, program: string): boolean {
  const escaped = program.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const word = `(?<![\\w./-])${escaped}(?![\\w+-])`;
  if (program.length >= 3) return new RegExp(word, "i").test(instruction);
  if (program !== program.toLowerCase()) return new RegExp(word).test(instruction);
  return [...instruction.matchAll(/`([^`\n]+)`/g)].some((span) => new RegExp(word).test(span[1] as string));
}
