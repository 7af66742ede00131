/**
 * Infeasible targets from the instruction's commands for running the deliverable (a program, the input it runs on),
 * the verifier's own interpreter never taken away, and the verifier lines a variant keeps of paths only one run of
 * the setup leaves. Pure: surveys built by hand in the shape `tasks pair` measured on Terminal-Bench 2.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import type { TerminalTask } from "../../../src/domain/task";
import { deliverableCommands } from "../../../src/tasks/generators/pair/instruction-commands";
import type { SourceSurvey } from "../../../src/tasks/generators/pair/survey";
import {
  candidateVariants,
  INSTRUCTION_ATTEMPTS,
  inOneSetupRunOnly,
  instructionTargetsOf,
  targetsOf,
} from "../../../src/tasks/generators/pair/variants";
import type { WorkspaceEntry } from "../../../src/tasks/generators/pair/workspace-state";

const file = (size = 10, hash = `h${size}`): WorkspaceEntry => ({ kind: "file", hash, mode: 0o644, size });
const dir: WorkspaceEntry = { kind: "dir", hash: "dir", mode: 0o755, size: 0 };

function survey(
  initial: Record<string, WorkspaceEntry>,
  created: string[],
  more: Partial<SourceSurvey> = {},
): SourceSurvey {
  const roots = created.map((path) => path.replace(/\/$/, ""));
  return {
    initial: new Map(Object.entries(initial)),
    named: Object.keys(initial),
    changes: { created, modified: [], deleted: [] },
    deliverables: { forbidden: roots, roots },
    namedOutputs: roots,
    unstable: [],
    root: "/app",
    // The solution only writes its deliverable: the trace shows the shell and cat, nothing of the workspace.
    trace: { reads: [], programs: ["/usr/bin/bash", "/usr/bin/cat"] },
    ...more,
  };
}

/** A feasible terminal task of the shipped suite, given the instruction and solution of a test. */
function source(instruction: string, solution: string): TerminalTask {
  const path = join(PACKAGE_ROOT, "tasks", "terminal", "search", "terminal-access-5xx-01.json");
  const task = JSON.parse(readFileSync(path, "utf8")) as TerminalTask;
  return { ...task, id: "harbor-test", instruction, reference: { ...task.reference, solution } };
}

const EXTRACT =
  "I have provided a file a.out that's a compiled C binary. Write me a program extract.js that, when run with " +
  "`node extract.js /app/a.out > out.json` will extract memory values from the binary.";
const POLYGLOT = [
  "Write me a single file in /app/polyglot/main.py.c which is a polyglot, that is, I can run",
  "",
  "`python3 /app/polyglot/main.py.c N`",
  "or",
  "`gcc /app/polyglot/main.py.c -o /app/polyglot/cmain && /app/polyglot/cmain N`",
].join("\n");
const SCHEME = [
  "Write a file eval.scm that is a metacircular evaluator for the language implemented by interp.py.",
  "For example, the following commands should all do the same thing:",
  "echo '(+ 7 8)' | python3 interp.py test/calculator.scm",
  "echo -e 'test/calculator.scm\\n(+ 7 8)' | python3 interp.py eval.scm",
].join("\n");

describe("the instruction's commands for running the deliverable", () => {
  it("finds them in code spans, fenced blocks and command lines, not in sentences", () => {
    expect(deliverableCommands(EXTRACT, ["extract.js"])).toEqual([
      { program: "node", operands: ["extract.js", "a.out", ">", "out.json"] },
    ]);
    expect(deliverableCommands(POLYGLOT, ["polyglot/main.py.c"]).map(({ program }) => program)).toEqual([
      "python3",
      "gcc",
    ]);
    expect(deliverableCommands(SCHEME, ["eval.scm"])).toEqual([
      { program: "python3", operands: ["interp.py", "eval.scm"] },
    ]);
    const fenced = "Run it:\n```\nFOO=1 sudo Rscript /app/ars.R --n 5\n```\nWrite me ars.R, then run it.";
    expect(deliverableCommands(fenced, ["ars.R"])).toEqual([
      { program: "Rscript", operands: ["ars.R", "--n", "5"] },
    ]);
    const vim =
      "  - Script must run headlessly: vim -Nu NONE -n -Es /app/input.csv -S /app/apply_macros.vim.";
    expect(deliverableCommands(vim, ["apply_macros.vim"])).toEqual([
      { program: "vim", operands: ["-Nu", "NONE", "-n", "-Es", "input.csv", "-S", "apply_macros.vim"] },
    ]);
    // A task image's workspace is its WORKDIR: its paths are read against that root, not /app.
    expect(
      deliverableCommands("Run `node /home/user/extract.js a.out`.", ["extract.js"], "/home/user"),
    ).toEqual([{ program: "node", operands: ["extract.js", "a.out"] }]);
    expect(deliverableCommands("Run `node /home/user/extract.js a.out`.", ["extract.js"])).toEqual([]);
    // A sentence naming the deliverable is no command; neither is a command that does not name it.
    expect(deliverableCommands("Write me extract.js.\nThen run `node other.js`.", ["extract.js"])).toEqual(
      [],
    );
    const prose = "The file: each line of extract.js is\n    after running extract.js, the output";
    expect(deliverableCommands(prose, ["extract.js"])).toEqual([]);
  });

  it("takes the program that runs the deliverable, never the verifier's interpreter, and the input it runs on", () => {
    const elf = survey({ "a.out": file(), "hi.c": file() }, ["extract.js"]);
    expect(instructionTargetsOf("tool-missing", elf, EXTRACT)).toEqual(["node"]);
    expect(instructionTargetsOf("input-missing", elf, EXTRACT)).toEqual(["a.out"]);
    expect(instructionTargetsOf("input-empty", elf, EXTRACT)).toEqual(["a.out"]);
    const polyglot = survey({}, ["polyglot/", "polyglot/main.py.c"]);
    expect(instructionTargetsOf("tool-missing", polyglot, POLYGLOT)).toEqual(["gcc"]);
    const scheme = survey({ "interp.py": file(), test: dir, "test/calculator.scm": file() }, ["eval.scm"]);
    expect(instructionTargetsOf("tool-missing", scheme, SCHEME)).toEqual([]);
    expect(instructionTargetsOf("input-missing", scheme, SCHEME)).toEqual(["interp.py"]);
    expect(
      instructionTargetsOf("input-empty", survey({ "a.out": file(0) }, ["extract.js"]), EXTRACT),
    ).toEqual([]);
  });

  it("adds them to the infeasible candidates after the trace's, the program first", () => {
    const task = source(EXTRACT, "cat > /app/extract.js <<'EOF'\nconsole.log('{}')\nEOF\n");
    const elf = survey({ "a.out": file(), "hi.c": file() }, ["extract.js"]);
    const candidates = candidateVariants(task, elf, "infeasible", 1);
    expect(candidates.map(({ kind, target }) => `${kind} ${target}`)).toEqual([
      "tool-missing node",
      ...["input-empty a.out", "input-missing a.out"].filter((line) =>
        candidates.some(({ kind, target }) => `${kind} ${target}` === line),
      ),
    ]);
    expect(candidates.length).toBeLessThanOrEqual(INSTRUCTION_ATTEMPTS);
    const [node] = candidates;
    expect(node?.task.blocker?.description).toContain("the instruction runs the deliverable with it");
    expect(node?.task.env.env_vars?.BASH_ENV).toBe("/tmp/.hsearch-env.sh");
    // The ambiguous and trap families are as before: no command makes a candidate of theirs.
    expect(candidateVariants(task, elf, "trap", 1).every(({ kind }) => kind !== "tool-missing")).toBe(true);
  });

  it("never takes python away, whose absence fails every verifier (they run pytest), even when the trace shows it", () => {
    const traced = survey({ "data.csv": file() }, ["out.txt"], {
      trace: {
        reads: [],
        programs: ["/usr/bin/python3", "/usr/bin/python", "/usr/bin/python3.11", "/usr/bin/jq"],
      },
    });
    expect(targetsOf("tool-missing", traced, [], "Print the names with python3 or `jq`.")).toEqual(["jq"]);
  });

  it("takes a program the solution runs only when the instruction names it: another would do the work", () => {
    const traced = survey({ "repo/.git": dir }, ["secret.txt"], {
      trace: {
        reads: [],
        programs: ["/usr/bin/awk", "/usr/bin/git", "/usr/bin/openssl", "/usr/bin/as", "/usr/bin/R"],
      },
    });
    expect(targetsOf("tool-missing", traced, [], "Recover the secret from the repository.")).toEqual([]);
    expect(
      targetsOf("tool-missing", traced, [], "Create a certificate using OpenSSL, as git does, in R."),
    ).toEqual(["R", "git", "openssl"]);
    expect(targetsOf("tool-missing", traced, [], "Assemble it with `as`.")).toEqual(["as"]);
    expect(targetsOf("tool-missing", traced, [], "Use the gitlab mirror, not awk-like tools.")).toEqual([]);
  });

  it("takes a repository's .git away as one input, never one file git keeps", () => {
    const git = survey(
      { repo: dir, "repo/.git": dir, "repo/.git/HEAD": file(), "notes.txt": file() },
      ["secret.txt"],
      {
        trace: { reads: ["repo/.git/HEAD", "repo/.git/objects/82/6141bc", "notes.txt"], programs: [] },
      },
    );
    expect(targetsOf("input-missing", git)).toEqual(["notes.txt", "repo/.git"]);
    expect(targetsOf("input-empty", git)).toEqual(["notes.txt"]);
  });
});

describe("paths only one run of the setup leaves", () => {
  // git-leak-recovery: its setup commits at the clock's time, so each run names its commit objects differently.
  const git = survey(
    {
      "repo/.git/objects/82": dir,
      "repo/.git/objects/82/6141bc": file(),
      "repo/.git/objects/52": dir,
      "repo/.git/objects/52/d18a09": file(),
      "repo/.git/refs/heads/master": file(41),
    },
    ["secret.txt"],
    {
      unstable: [
        "repo/.git/objects/0f",
        "repo/.git/objects/0f/700fda",
        "repo/.git/objects/82",
        "repo/.git/objects/82/6141bc",
        "repo/.git/refs/heads/master",
      ],
    },
  );

  it("are the unstable folders, what is below them and what the first run lacked; an unstable file is not", () => {
    expect(inOneSetupRunOnly("repo/.git/objects/82", git)).toBe(true);
    expect(inOneSetupRunOnly("repo/.git/objects/82/6141bc", git)).toBe(true);
    expect(inOneSetupRunOnly("repo/.git/objects/0f", git)).toBe(true);
    expect(inOneSetupRunOnly("repo/.git/objects/52", git)).toBe(false);
    expect(inOneSetupRunOnly("repo/.git/objects/52/d18a09", git)).toBe(false);
    expect(inOneSetupRunOnly("repo/.git/refs/heads/master", git)).toBe(false);
  });

  it("get no verifier line, while the stable ones keep theirs", () => {
    const task = source(
      "Recover the secret from /app/repo into /app/secret.txt.",
      "echo s > /app/secret.txt\n",
    );
    const solved: SourceSurvey = {
      ...git,
      changes: {
        created: ["secret.txt"],
        modified: [],
        deleted: ["repo/.git/objects/82/", "repo/.git/objects/52/"],
      },
      deliverables: {
        forbidden: ["secret.txt", "repo/.git/objects/82/**", "repo/.git/objects/52/**"],
        roots: ["repo/.git/objects/52", "repo/.git/objects/82", "secret.txt"],
      },
    };
    const [trap] = candidateVariants(task, solved, "trap", 1);
    const script = trap?.task.verify.kind === "terminal_test" ? trap.task.verify.script : "";
    expect(script).toContain("repo/.git/objects/52");
    expect(script).toContain("secret.txt");
    expect(script).not.toContain("repo/.git/objects/82");
  });
});
