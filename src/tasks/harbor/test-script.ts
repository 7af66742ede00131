/**
 * Pure: Harbor scripts made to run in the sandbox. Terminal-Bench tests install uv and pytest from the network
 * before running pytest; here there is no network, so those install lines go and pytest runs as the machine's
 * `python3 -m pytest`, behind a guard that fails with a clear message when it is missing. Any other network use
 * makes the task unimportable. A script's sibling files (tests/test_outputs.py, solution/ helpers) cannot reach
 * /tests or /solution in our task format, so the script is bundled: it unpacks them into a fixed /tmp directory
 * and refers to that instead.
 */

export type Rewrite =
  | { ok: true; script: string; needs: { python: boolean; pytest: boolean } }
  | { ok: false; reason: string };

const INSTALL_LINES = [
  /^\s*apt(-get)?\s+(update|install\b.*\bcurl\b)/,
  /^\s*(curl|wget)\b.*astral\.sh\/uv\b/,
  /^\s*(source|\.)\s+["']?\$HOME\/\.local\/bin\/env["']?\s*$/,
  /^\s*(uv\s+)?pip3?\s+install\b.*\bpytest\b/,
  /^\s*uv\s+(venv|init|add\s+.*pytest)\b/,
];
const NETWORK = /\b(apt-get|apt|pip3?\s+install|uv\s+pip|curl|wget|git\s+clone|npm\s+install)\b/;

export const PYTEST_GUARD = [
  "if ! python3 -m pytest --version >/dev/null 2>&1; then",
  "  echo \"hsearch: these tests need pytest, and 'python3 -m pytest' does not run on this machine; install it (Debian: apt-get install python3-pytest)\" >&2",
  "  exit 3",
  "fi",
].join("\n");

/** Drop the tool installs, run pytest as `python3 -m pytest`, and say what the script needs. */
export function rewriteTestScript(script: string, where = "tests/test.sh"): Rewrite {
  const out: string[] = [];
  let pytest = false;
  const lines = script.split("\n");
  for (const [index, line] of lines.entries()) {
    if (INSTALL_LINES.some((pattern) => pattern.test(line))) continue;
    let rewritten = line
      .replace(/\buvx\s+(?:(?:-p|--python|-w|--with)\s+\S+\s+)*pytest\b/g, "python3 -m pytest")
      .replace(/\buv\s+run\s+(?:(?:-p|--python|--with)\s+\S+\s+)*pytest\b/g, "python3 -m pytest")
      .replace(/(^|[\s;&|(])pytest\b/g, "$1python3 -m pytest");
    rewritten = rewritten.replace(/python3 -m python3 -m pytest/g, "python3 -m pytest");
    if (/python3 -m pytest/.test(rewritten)) {
      pytest = true;
      // pytest-json-ctrf is not installed here; its report is Harbor's, not the reward.
      rewritten = rewritten.replace(/\s--ctrf(?:=|\s+)\S+/g, "");
    }
    if (NETWORK.test(rewritten) && !/^\s*#/.test(rewritten))
      return { ok: false, reason: `the tests need network (${where}:${index + 1}: ${line.trim()})` };
    out.push(rewritten);
  }
  let text = out.join("\n");
  if (pytest) text = insertAfterShebang(text, PYTEST_GUARD);
  return { ok: true, script: text, needs: { python: pytest || /\bpython3?\b/.test(text), pytest } };
}

function insertAfterShebang(script: string, block: string): string {
  if (!script.startsWith("#!")) return `${block}\n${script}`;
  const end = script.indexOf("\n");
  return end < 0 ? `${script}\n${block}\n` : `${script.slice(0, end + 1)}${block}\n${script.slice(end + 1)}`;
}

/** Where a bundled script's sibling files are unpacked in the sandbox. */
export const BUNDLE_DIRS = { "/tests": "/tmp/hsearch-tests", "/solution": "/tmp/hsearch-solution" } as const;

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
  const retarget = (text: string) => text.replace(new RegExp(`${mount}(?=/|\\b)`, "g"), dir);
  const lines = [
    "#!/bin/bash",
    `# Bundled Harbor script: the files of ${mount} are unpacked into ${dir} first.`,
    `rm -rf ${dir} && mkdir -p ${dir}`,
  ];
  const unpack = (path: string, bytes: Buffer) => {
    const target = `${dir}/${path}`;
    lines.push(`mkdir -p "$(dirname '${target}')"`);
    const text = bytes.toString("utf8");
    // Readable when it can be: text that ends in a newline goes in as a here-document, anything else as base64.
    if (isText(bytes) && text.endsWith("\n") && !text.split("\n").includes(FILE_MARKER))
      lines.push(`cat > '${target}' <<'${FILE_MARKER}'`, `${text}${FILE_MARKER}`);
    else lines.push(`base64 -d > '${target}' <<'HSEARCH_B64'`, bytes.toString("base64"), "HSEARCH_B64");
  };
  for (const [path, bytes] of [...files.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    unpack(path, isText(bytes) ? Buffer.from(retarget(bytes.toString("utf8"))) : bytes);
  }
  unpack("__main__.sh", Buffer.from(retarget(main)));
  lines.push(`cd /app && exec bash ${dir}/__main__.sh`, "");
  return lines.join("\n");
}

const FILE_MARKER = "HSEARCH_FILE";

/** Valid UTF-8 without NUL bytes. */
export function isText(bytes: Buffer): boolean {
  return !bytes.includes(0) && Buffer.from(bytes.toString("utf8")).equals(bytes);
}
