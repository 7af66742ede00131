/**
 * The programs a shell script's own text runs: the first word of each simple command (after variable assignments
 * and the words that only change how a program runs), and the commands of `su … -c "…"` and `bash -c "…"`. Where
 * no trace shows what the reference solution ran (a task image without strace), its script says what it calls
 * itself; what those programs run in turn stays unseen. Here-document bodies, comments, arithmetic and the script's
 * own functions are not programs. Pure.
 */

/** Words before the program that only change how it runs. */
const PREFIXES = new Set(["sudo", "time", "env", "nice", "nohup", "exec", "command", "builtin"]);
/** Shell words that start a compound command or a branch: the program is the next word. */
const KEYWORDS = new Set(
  "if then else elif fi do done while until for in case esac select function ! { }".split(" "),
);
/** The shell's own commands: no program runs. */
const BUILTINS = new Set(
  "cd set unset exit break continue return export local read source . eval shift trap wait declare typeset alias umask ulimit".split(
    " ",
  ),
);

/** The programs `script` runs, as written (a name, or an absolute path), sorted. */
export function scriptPrograms(script: string): string[] {
  const lines = commandLines(script);
  // A function the script defines runs no program of that name.
  const functions = new Set(
    lines.flatMap((line) =>
      [...line.matchAll(/(?:^|[\s;{])(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\)/g)].map((m) => m[1]),
    ),
  );
  const programs = new Set<string>();
  for (const line of lines)
    for (const program of programsOf(line.replace(/\$?\(\([^()]*(\([^()]*\)[^()]*)*\)\)/g, " ")))
      if (!functions.has(program)) programs.add(program);
  return [...programs].sort();
}

/** The script's lines without here-document bodies and comments. */
function commandLines(script: string): string[] {
  const lines: string[] = [];
  let until: string | undefined;
  for (const raw of script.split("\n")) {
    if (until !== undefined) {
      if (raw.trim() === until) until = undefined;
      continue;
    }
    const line = raw.replace(/(^|\s)#.*$/, "");
    const heredoc = /<<-?\s*(['"]?)([A-Za-z_]\w*)\1/.exec(line);
    if (heredoc) until = heredoc[2];
    lines.push(line);
  }
  return lines;
}

function programsOf(line: string): string[] {
  const found: string[] = [];
  // `-c "…"` of su and a shell runs a command line of its own.
  for (const inner of line.matchAll(/\s-c\s+(["'])(.+?)\1/g)) found.push(...programsOf(inner[2] as string));
  for (const simple of line.split(/\|\||&&|[|;&`()]|\$\(/)) {
    const words = simple.trim().split(/\s+/).filter(Boolean);
    // A loop's or a case's head names variables and words, not a program.
    if (["for", "select", "case"].includes(words[0] ?? "")) continue;
    while (
      words.length > 0 &&
      (/^\w+=/.test(words[0] as string) ||
        PREFIXES.has(words[0] as string) ||
        KEYWORDS.has(words[0] as string))
    )
      words.shift();
    const first = words[0];
    if (
      first !== undefined &&
      /^(\/[\w./+-]+|[A-Za-z][\w+.-]*)$/.test(first) &&
      !first.endsWith("/") &&
      !BUILTINS.has(first) &&
      !KEYWORDS.has(first)
    )
      found.push(first);
  }
  return found;
}
