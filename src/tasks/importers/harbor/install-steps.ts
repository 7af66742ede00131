/**
 * Pure: what one shell command of a Harbor Dockerfile `RUN` or test script does, as far as the importer cares.
 * Package installs become host requirements (Debian packages, Python distributions), fetches become network
 * needs (the task cannot run offline), apt bookkeeping is dropped, and everything else is a local step kept as is.
 * Commands are split at top-level `&&`, `;` and newlines (quotes respected); a pipeline stays one command.
 */

export type StepKind =
  | { kind: "apt"; packages: string[] }
  | { kind: "pip"; packages: string[]; requirementFiles: string[] }
  | { kind: "noop" }
  | { kind: "network"; tool: string }
  /** A local step only root can take in a container (users, services): the sandbox's user cannot. */
  | { kind: "root"; tool: string }
  | { kind: "local" };

/** Split a shell line (continuations already joined) into its top-level commands. */
export function splitCommands(line: string): string[] {
  const out: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (quote) {
      current += char;
      if (char === "\\" && quote === '"' && i + 1 < line.length) current += line[++i];
      else if (char === quote) quote = null;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      current += char;
      continue;
    }
    if (char === "\\" && i + 1 < line.length) {
      current += char + line[++i];
      continue;
    }
    const two = line.slice(i, i + 2);
    if (two === "&&" || two === "||") {
      // `a || b` keeps b's fate tied to a: one command, so a fallback never becomes a step of its own.
      if (two === "||") {
        current += two;
        i++;
        continue;
      }
      out.push(current);
      current = "";
      i++;
      continue;
    }
    if (char === ";" || char === "\n") {
      out.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  out.push(current);
  return out.map((part) => part.trim()).filter((part) => part !== "");
}

/** Words of a simple command (quotes removed); good enough for install lines, which use no expansions that matter. */
export function words(command: string): string[] {
  const out: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const match of command.matchAll(pattern)) out.push(match[1] ?? match[2] ?? match[3] ?? "");
  return out;
}

const ROOT_TOOLS = new Set([
  "useradd",
  "adduser",
  "groupadd",
  "addgroup",
  "usermod",
  "chpasswd",
  "passwd",
  "systemctl",
  "mount",
  "update-alternatives",
  "ldconfig",
  "chroot",
]);
const SUDO = new Set(["sudo", "env", "DEBIAN_FRONTEND=noninteractive"]);
// Removing packages changes nothing the sandbox shows (the host's packages are what a task finds) and needs no network.
const APT_NOOP = new Set([
  "update",
  "upgrade",
  "clean",
  "autoclean",
  "autoremove",
  "dist-upgrade",
  "purge",
  "remove",
]);
/** Commands whose arguments are only text: a URL or `git clone` they print is not a fetch. */
const PRINTS_ONLY = new Set(["echo", "printf", ":", "true", "false"]);
const NETWORK_TOOLS =
  /(?:^|[\s|;&(`])(curl|wget|git\s+clone|git\s+fetch|git\s+pull|npm\s+(?:install|i|ci)|yarn\s+add|cargo\s+install|go\s+install|go\s+get|gem\s+install|conda\s+install|rustup|nvm\s+install|huggingface-cli\s+download|apk\s+add|yum\s+install|dnf\s+install)\b/;

export function classifyCommand(command: string): StepKind {
  let argv = words(command);
  while (argv.length > 0 && (SUDO.has(argv[0] as string) || /^[A-Z_][A-Z0-9_]*=/.test(argv[0] as string)))
    argv = argv.slice(1);
  const [head, sub] = argv;
  // `TARGET_DIR=/app/out` alone sets a variable the next commands use: a step, never nothing.
  if (head === undefined) return words(command).length > 0 ? { kind: "local" } : { kind: "noop" };
  if (head === "rm" && argv.some((word) => word.startsWith("/var/lib/apt/lists"))) return { kind: "noop" };
  if (head === "apt-get" || head === "apt") {
    const action = argv.slice(1).find((word) => !word.startsWith("-"));
    if (action !== undefined && APT_NOOP.has(action)) return { kind: "noop" };
    if (action === "install") return { kind: "apt", packages: aptPackages(argv.slice(1)) };
    return { kind: "network", tool: `${head} ${action ?? ""}`.trim() };
  }
  const pip = pipArguments(argv);
  if (pip) return { kind: "pip", ...pip };
  if (head === "uv" && (sub === "venv" || sub === "init")) return { kind: "noop" };
  if ((head === "source" || head === ".") && /\.local\/bin\/env|\/venv\/bin\/activate/.test(sub ?? ""))
    return { kind: "noop" };
  const network = PRINTS_ONLY.has(head) ? undefined : NETWORK_TOOLS.exec(command)?.[1];
  if (network && !isLocalFetch(network, argv)) return { kind: "network", tool: network.replace(/\s+/g, " ") };
  if (ROOT_TOOLS.has(head) || (head === "service" && argv[2] !== undefined && argv[2] !== "status"))
    return { kind: "root", tool: head === "service" ? `service ${sub} ${argv[2]}` : head };
  return { kind: "local" };
}

/**
 * A fetch that stays on this machine: git from a path or bundle (`git fetch /app/b.bundle`, `git clone /srv/repo`),
 * curl or wget of the loopback (a solution checking the server it started).
 */
function isLocalFetch(tool: string, argv: readonly string[]): boolean {
  const operands = argv.filter((word) => !word.startsWith("-"));
  if (/^git\b/.test(tool)) {
    // `git clone SRC [DIR]`, `git fetch SRC [REFSPEC]`: the source is the first operand after the subcommand.
    const source = operands[operands.indexOf("git") + 2];
    return source !== undefined && !isRemote(source) && /^(\/|\.{1,2}\/|~\/)|\.bundle$/.test(source);
  }
  if (tool === "curl" || tool === "wget") {
    const urls = operands.filter((word) => /^[a-z]+:\/\/|^(localhost|127\.0\.0\.1)\b/i.test(word));
    return (
      urls.length > 0 &&
      urls.every((url) => /^([a-z]+:\/\/)?(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(\/|$)/i.test(url))
    );
  }
  return false;
}

/** A URL or an scp-like `host:path` (git's remote forms). */
function isRemote(source: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(source) || /^[\w.-]+@?[\w.-]*:[^/]/.test(source);
}

function aptPackages(args: string[]): string[] {
  const out: string[] = [];
  let seenInstall = false;
  for (const word of args) {
    if (!seenInstall) {
      if (word === "install") seenInstall = true;
      continue;
    }
    if (word.startsWith("-")) continue;
    // Version pins (pkg=1.2-3) are the image's; the machine's version stands in.
    const name = word.replace(/=.*$/, "");
    if (/^[a-z0-9][a-z0-9+.-]+$/.test(name)) out.push(name);
  }
  return out;
}

/** `pip install …`, `pip3 install …`, `python -m pip install …`, `uv pip install …`, `uv add …`. */
function pipArguments(argv: string[]): { packages: string[]; requirementFiles: string[] } | null {
  let rest: string[] | null = null;
  const [a, b, c, d] = argv;
  if ((a === "pip" || a === "pip3") && b === "install") rest = argv.slice(2);
  else if (/^python3?(\.\d+)?$/.test(a ?? "") && b === "-m" && c === "pip" && d === "install")
    rest = argv.slice(4);
  else if (a === "uv" && b === "pip" && c === "install") rest = argv.slice(3);
  else if (a === "uv" && b === "add") rest = argv.slice(2);
  if (rest === null) return null;
  const packages: string[] = [];
  const requirementFiles: string[] = [];
  const WITH_VALUE = new Set([
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "--target",
    "-t",
  ]);
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i] as string;
    if (word === "-r" || word === "--requirement") {
      const file = rest[++i];
      if (file) requirementFiles.push(file);
      continue;
    }
    if (WITH_VALUE.has(word)) {
      i++;
      continue;
    }
    if (word.startsWith("-")) continue;
    const name = distributionName(word);
    if (name) packages.push(name);
  }
  return { packages, requirementFiles };
}

/** `numpy==1.26`, `scikit-learn>=1`, `pkg[extra]` → the distribution's name; null for paths and URLs. */
export function distributionName(spec: string): string | null {
  if (/^(\.|\/|[a-z]+:\/\/|git\+)/i.test(spec) || spec.endsWith(".whl") || spec.endsWith(".tar.gz"))
    return null;
  const name = /^[A-Za-z0-9][A-Za-z0-9._-]*/.exec(spec)?.[0];
  return name ? name.toLowerCase().replace(/[._]+/g, "-") : null;
}

/** The requirement lines of a requirements.txt, as distribution names (options, comments and paths dropped). */
export function requirementsFile(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/#.*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("-"))
    .map(distributionName)
    .filter((name): name is string => name !== null);
}
