/**
 * Pure: Harbor scripts made to run in the sandbox. Terminal-Bench tests install uv, pytest and their test
 * dependencies from the network before running pytest; here there is no network, so those install lines become
 * host requirements (Debian packages: python3-pytest, the `-w` packages' python3-* …) and pytest runs as the
 * machine's `python3 -m pytest`, behind a guard that fails with a clear message when it is missing. Any other
 * network use is a need that keeps the task from running offline. A script's sibling files (tests/test_outputs.py,
 * solution/ helpers) cannot reach /tests or /solution in our task format, so the script is bundled: it unpacks them
 * into a fixed /tmp directory and refers to that instead.
 */
import { classifyCommand, distributionName, splitCommands } from "./install-steps";
import { addPython, emptyRequirements, type TaskRequirements } from "./requirements";

export interface Rewrite {
  script: string;
  requires: TaskRequirements;
  pytest: boolean;
}

export const PYTEST_GUARD = [
  "if ! python3 -m pytest --version >/dev/null 2>&1; then",
  "  echo \"hsearch: these tests need pytest, and 'python3 -m pytest' does not run on this machine; install it (Debian: apt-get install python3-pytest)\" >&2",
  "  exit 3",
  "fi",
].join("\n");

/**
 * What `uvx … pytest` and a bare `pytest` become. `python3 -m` would put the working directory first on sys.path,
 * where neither of those does, so a task file named like a standard module (`/app/code.py`) would shadow it inside
 * pytest; PYTHONSAFEPATH (Python 3.11+, ignored before) keeps it off, and `env` lets it follow `timeout`, `exec` ….
 */
export const PYTEST_COMMAND = "env PYTHONSAFEPATH=1 python3 -m pytest";

/** uv's options that take a value, before the tool it runs (`uvx -p 3.13 -w pkg --index URL pytest …`). */
const UV_VALUE_OPTIONS = new Set([
  "-p",
  "--python",
  "-w",
  "--with",
  "--with-requirements",
  "--index",
  "--index-url",
  "--default-index",
  "--extra-index-url",
  "-i",
  "--index-strategy",
  "--from",
  "--cache-dir",
  "--directory",
  "--project",
]);
const UV_WITH = new Set(["-w", "--with"]);

/**
 * Lines with `\`-continuations joined, as the shell reads them. A heredoc's body (and its end marker) is left as it
 * is and marked `data`: it is text fed to a command, never a command (a `.proto`'s `service KVStore {` is no service).
 */
export function joinContinuations(script: string): Array<{ text: string; line: number; data?: true }> {
  const lines = script.split("\n");
  const out: Array<{ text: string; line: number; data?: true }> = [];
  let heredoc: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const first = i + 1;
    let text = lines[i] ?? "";
    if (heredoc !== null) {
      if (text.trim() === heredoc) heredoc = null;
      out.push({ text, line: first, data: true });
      continue;
    }
    while (/(^|[^\\])\\$/.test(text) && i + 1 < lines.length)
      text = `${text.slice(0, -1)} ${(lines[++i] ?? "").trimStart()}`;
    const marker = /<<-?\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?/.exec(text);
    if (marker) heredoc = marker[1] as string;
    out.push({ text, line: first });
  }
  return out;
}

/** Drop the tool installs (they become requirements), run pytest as PYTEST_COMMAND, and say what it needs. */
export function rewriteTestScript(script: string, where = "tests/test.sh"): Rewrite {
  const requires = emptyRequirements();
  const out: string[] = [];
  let pytest = false;
  for (const { text, line, data } of joinContinuations(script)) {
    if (data || /^\s*#/.test(text) || text.trim() === "") {
      out.push(text);
      continue;
    }
    const kept: string[] = [];
    const commands = splitCommands(text);
    const simple = commands.length === 1 || !/[{}]|\b(then|do|else|fi|done)\b/.test(text);
    for (const command of simple ? commands : [text]) {
      const kind = classifyCommand(command);
      if (kind.kind === "apt") {
        // curl only ever fetches uv, which is not needed here.
        requires.debian.push(...kind.packages.filter((name) => name !== "curl"));
        continue;
      }
      if (kind.kind === "pip") {
        addPython(requires, kind.packages);
        if (kind.requirementFiles.length > 0)
          requires.network.push(`pip install -r ${kind.requirementFiles.join(" ")} (${where}:${line})`);
        continue;
      }
      if (kind.kind === "noop") continue;
      if (kind.kind === "network" && /astral\.sh\/uv|install\.sh \| sh/.test(command) && /uv/.test(command))
        continue;
      const rewritten = rewritePytest(command, requires);
      if (rewritten.pytest) pytest = true;
      if (kind.kind === "network" && !rewritten.pytest)
        requires.network.push(`${kind.tool} at ${where}:${line}`);
      if (kind.kind === "root") requires.root.push(`${kind.tool} at ${where}:${line}`);
      kept.push(rewritten.text);
    }
    if (kept.length > 0) out.push(simple ? leading(text) + kept.join(" && ") : (kept[0] as string));
  }
  if (pytest) {
    requires.debian.push("python3", "python3-pytest");
    requires.python.push("pytest");
  } else if (/\bpython3?\b/.test(out.join("\n"))) requires.debian.push("python3");
  let text = out.join("\n");
  if (pytest) text = insertAfterShebang(text, PYTEST_GUARD);
  return { script: text, requires, pytest };
}

function leading(text: string): string {
  return /^\s*/.exec(text)?.[0] ?? "";
}

/**
 * `uvx [opts] pytest …`, `uv run [opts] pytest …` and a bare `pytest …` → PYTEST_COMMAND; `-w` packages
 * become requirements; `--ctrf FILE` (Harbor's report, not the reward) goes. `python -m pytest` stays as it is.
 */
function rewritePytest(command: string, requires: TaskRequirements): { text: string; pytest: boolean } {
  let text = command;
  const uv = /(^|[\s;&|(])(uvx|uv\s+run|uv\s+tool\s+run)\s+/.exec(text);
  if (uv) {
    const start = uv.index + (uv[1] ?? "").length;
    const tokens = text.slice(start + (uv[0].length - (uv[1] ?? "").length)).split(/\s+/);
    const withs: string[] = [];
    let i = 0;
    while (i < tokens.length && (tokens[i] as string).startsWith("-")) {
      const option = (tokens[i] as string).replace(/=.*$/, "");
      const inline = (tokens[i] as string).includes("=");
      if (UV_VALUE_OPTIONS.has(option) && !inline) {
        if (UV_WITH.has(option)) withs.push(tokens[i + 1] ?? "");
        i += 2;
      } else {
        if (UV_WITH.has(option)) withs.push((tokens[i] as string).slice(option.length + 1));
        i += 1;
      }
    }
    const tool = tokens[i];
    addPython(
      requires,
      withs.map(distributionName).filter((name): name is string => name !== null && name !== "pytest"),
    );
    const rest = tokens.slice(i + 1).join(" ");
    if (tool === "pytest") text = `${text.slice(0, start)}${PYTEST_COMMAND}${rest ? ` ${rest}` : ""}`;
    else if (tool === "python" || tool === "python3")
      text = `${text.slice(0, start)}python3${rest ? ` ${rest}` : ""}`;
  }
  text = text.replace(/(^|[\s;&|(])(?<!-m\s)pytest(?=\s|$)/g, `$1${PYTEST_COMMAND}`);
  const pytest = /python3? -m pytest\b/.test(text);
  if (pytest) text = text.replace(/\s--ctrf(?:=|\s+)\S+/g, "");
  return { text, pytest };
}

function insertAfterShebang(script: string, block: string): string {
  if (!script.startsWith("#!")) return `${block}\n${script}`;
  const end = script.indexOf("\n");
  return end < 0 ? `${script}\n${block}\n` : `${script.slice(0, end + 1)}${block}\n${script.slice(end + 1)}`;
}

/** Where a bundled script's sibling files are unpacked in the sandbox. */
/** Their last part is the mount's own name, so the directory is a valid Python package (relative imports in tests). */
export const BUNDLE_DIRS = { "/tests": "/tmp/hsearch/tests", "/solution": "/tmp/hsearch/solution" } as const;

/**
 * A self-contained script: `main` plus its sibling `files` (bytes, by path relative to `mount`). Without siblings
 * the script is returned unchanged; otherwise the siblings are unpacked (base64, so any bytes survive) into a fresh
 * directory and every reference to `mount` in the text files points there.
 */
export function bundleScript(
  main: string,
  files: ReadonlyMap<string, Buffer>,
  mount: keyof typeof BUNDLE_DIRS,
): string {
  if (files.size === 0) return main;
  const dir = BUNDLE_DIRS[mount];
  // Only the mount itself, never a path that merely ends in it (/app/tests stays).
  const retarget = (text: string) => text.replace(new RegExp(`(?<![\\w./-])${mount}(?=/|\\b)`, "g"), dir);
  const lines = [
    "#!/bin/bash",
    `# Bundled Harbor script: the files of ${mount} are unpacked into ${dir} first.`,
    `rm -rf ${dir} && mkdir -p ${dir}`,
  ];
  const unpack = (path: string, bytes: Buffer) => lines.push(...writeFileLines(`${dir}/${path}`, bytes));
  for (const [path, bytes] of [...files.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    unpack(path, isText(bytes) ? Buffer.from(retarget(bytes.toString("utf8"))) : bytes);
  }
  unpack("__main__.sh", Buffer.from(retarget(main)));
  // A task image may have no /app (its WORKDIR elsewhere): the script then starts where the command did.
  lines.push(`cd /app 2>/dev/null; exec bash ${dir}/__main__.sh`, "");
  return lines.join("\n");
}

const FILE_MARKER = "HSEARCH_FILE";

/**
 * Shell lines that write `bytes` to the absolute path `target` (its directory made first). Readable when it can
 * be: text that ends in a newline goes in as a here-document, anything else as base64.
 */
export function writeFileLines(target: string, bytes: Buffer): string[] {
  const quoted = `'${target.replace(/'/g, `'\\''`)}'`;
  const lines = [`mkdir -p "$(dirname ${quoted})"`];
  const text = bytes.toString("utf8");
  if (isText(bytes) && text.endsWith("\n") && !text.split("\n").includes(FILE_MARKER))
    lines.push(`cat > ${quoted} <<'${FILE_MARKER}'`, `${text}${FILE_MARKER}`);
  else lines.push(`base64 -d > ${quoted} <<'HSEARCH_B64'`, bytes.toString("base64"), "HSEARCH_B64");
  return lines;
}

/** Valid UTF-8 without NUL bytes. */
export function isText(bytes: Buffer): boolean {
  return !bytes.includes(0) && Buffer.from(bytes.toString("utf8")).equals(bytes);
}

/** Files by path in path order, text as UTF-8 and the rest as base64: a task's `files` and `binary_files`. */
export function splitByEncoding(entries: Iterable<readonly [string, Buffer]>): {
  files: Record<string, string>;
  binary: Record<string, string>;
} {
  const files: Record<string, string> = {};
  const binary: Record<string, string> = {};
  for (const [path, bytes] of [...entries].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (isText(bytes)) files[path] = bytes.toString("utf8");
    else binary[path] = bytes.toString("base64");
  }
  return { files, binary };
}

/**
 * Calls that fetch what a URL names, in the languages tests and solutions are written in: Python mostly, and R's
 * package installs (mcmc-sampling-stan's solution installs RStan from CRAN through `R -e`).
 */
const FETCH_CALLS =
  /\b(urlopen|urlretrieve|requests\.(get|post|head)|httpx\.(get|post|Client|AsyncClient)|wget\.download|fetch|install\.packages|install_version|install_github)\s*\(/;
/**
 * Library calls that download a data set or model from its hub without naming a URL (pytorch-model-cli's test loads
 * MNIST with torchvision's `download=True`).
 */
const DOWNLOADS =
  /\bdownload\s*=\s*True\b|\b(hf_hub_download|snapshot_download|fetch_openml)\s*\(|\bload_dataset\s*\(\s*["'][^/."']/;
const URL_LITERAL = /["'`](https?|ftp):\/\/([^/"'`:\s]+)[^"'`\s]*["'`]/;
const LOOPBACK_HOST = /^(localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1\])$/;

/** `chroot DIR …` inside a string of a test's code (path-tracing's `subprocess.run("… chroot /jail /image")`). */
const CHROOT_IN_TEXT = /\bchroot\s+\/\S*/;

/** Steps only root can take that a test or solution file runs from its own code (not a shell line of its script). */
export function rootStepsIn(text: string, where: string): string[] {
  const lines = text.split("\n");
  const index = lines.findIndex((line) => CHROOT_IN_TEXT.test(line) && !/^\s*#/.test(line));
  return index < 0 ? [] : [`chroot in ${where}:${index + 1}`];
}

/**
 * A test or solution file other than the script (tests/test_outputs.py …) that fetches from the network: a file
 * that makes a fetch call and names a URL of another host. Pure; `where` names the file in what it returns.
 */
export function fetchesIn(text: string, where: string): string[] {
  const needs: string[] = [];
  const lines = text.split("\n");
  const download = lines.findIndex((line) => DOWNLOADS.test(line) && !/^\s*#/.test(line));
  if (download >= 0) {
    const call = (DOWNLOADS.exec(lines[download] as string)?.[0] ?? "").replace(/\s*\(.*$/, "(…)");
    needs.push(`a download (${call}) in ${where}:${download + 1}`);
  }
  if (!FETCH_CALLS.test(text)) return needs;
  const hosts = new Set<string>();
  for (const [index, line] of text.split("\n").entries()) {
    const url = URL_LITERAL.exec(line);
    const host = url?.[2] as string;
    // One need per host and file: the first line that names it.
    if (!url || LOOPBACK_HOST.test(host) || hosts.has(host)) continue;
    hosts.add(host);
    needs.push(`a fetch of ${url[1]}://${host}/… in ${where}:${index + 1}`);
  }
  return needs;
}
