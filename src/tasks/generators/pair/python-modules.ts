/**
 * The Python modules a task's scripts import, for the infeasible kinds that take a module away
 * (`module-missing`: a package not installed; `operation-unsupported`: a capability the interpreter lacks). Pure.
 */

/** Top-level standard-library modules (Python 3.11's `sys.stdlib_module_names`, private ones left out). */
const STDLIB = new Set(
  (
    "abc aifc antigravity argparse array ast asynchat asyncio asyncore atexit audioop base64 bdb binascii bisect " +
    "builtins bz2 cProfile calendar cgi cgitb chunk cmath cmd code codecs codeop collections colorsys compileall " +
    "concurrent configparser contextlib contextvars copy copyreg crypt csv ctypes curses dataclasses datetime dbm " +
    "decimal difflib dis distutils doctest email encodings ensurepip enum errno faulthandler fcntl filecmp fileinput " +
    "fnmatch fractions ftplib functools gc genericpath getopt getpass gettext glob graphlib grp gzip hashlib heapq " +
    "hmac html http idlelib imaplib imghdr imp importlib inspect io ipaddress itertools json keyword lib2to3 " +
    "linecache locale logging lzma mailbox mailcap marshal math mimetypes mmap modulefinder msilib msvcrt " +
    "multiprocessing netrc nis nntplib nt ntpath nturl2path numbers opcode operator optparse os ossaudiodev pathlib " +
    "pdb pickle pickletools pipes pkgutil platform plistlib poplib posix posixpath pprint profile pstats pty pwd " +
    "py_compile pyclbr pydoc pydoc_data pyexpat queue quopri random re readline reprlib resource rlcompleter runpy " +
    "sched secrets select selectors shelve shlex shutil signal site smtpd smtplib sndhdr socket socketserver spwd " +
    "sqlite3 sre_compile sre_constants sre_parse ssl stat statistics string stringprep struct subprocess sunau " +
    "symtable sys sysconfig syslog tabnanny tarfile telnetlib tempfile termios textwrap this threading time timeit " +
    "tkinter token tokenize tomllib trace traceback tracemalloc tty turtle turtledemo types typing unicodedata " +
    "unittest urllib uu uuid venv warnings wave weakref webbrowser winreg winsound wsgiref xdrlib xml xmlrpc zipapp " +
    "zipfile zipimport zlib zoneinfo"
  ).split(" "),
);

/**
 * Standard modules whose work an interpreter may lack (built without the C library, or the platform without the
 * facility): what disabling one says about the environment. The test runner itself needs none of them.
 */
export const CAPABILITIES: Readonly<Record<string, string>> = {
  sqlite3: "SQLite databases (sqlite3)",
  ssl: "TLS/SSL (ssl)",
  gzip: "gzip compression (gzip)",
  zlib: "zlib compression (zlib)",
  lzma: "xz/LZMA compression (lzma)",
  bz2: "bzip2 compression (bz2)",
  ctypes: "loading C libraries (ctypes)",
  multiprocessing: "process pools (multiprocessing)",
  concurrent: "concurrent.futures executors (concurrent)",
  asyncio: "asyncio event loops (asyncio)",
  mmap: "memory-mapped files (mmap)",
  curses: "terminal control (curses)",
  readline: "line editing (readline)",
  dbm: "dbm databases (dbm)",
  tkinter: "Tk graphics (tkinter)",
};

/** Test frameworks: taking one away would fail the verifier for everyone, not the work. */
const TEST_RUNNERS = new Set(["pytest", "_pytest", "unittest", "hypothesis", "pluggy", "iniconfig"]);

/** Top-level names of the modules `import` and `from … import` lines of a script (and its heredocs) load. */
export function pythonImports(script: string): string[] {
  const names = new Set<string>();
  for (const match of script.matchAll(
    /^[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import\b|import[ \t]+([^\n#;]+))/gm,
  )) {
    const from = match[1];
    const list = from === undefined ? (match[2] ?? "").split(",") : [from];
    for (const item of list) {
      const top = /^\s*([A-Za-z_]\w*)/.exec(item)?.[1];
      if (top !== undefined) names.add(top);
    }
  }
  return [...names].sort();
}

export function isStdlib(name: string): boolean {
  return STDLIB.has(name) || name.startsWith("_");
}

/**
 * Third-party modules the scripts import that the workspace does not hold (a module of the task's own files is an
 * input, not a prerequisite): what `module-missing` may take away.
 */
export function thirdPartyImports(scripts: readonly string[], workspacePaths: Iterable<string>): string[] {
  const own = new Set<string>();
  for (const path of workspacePaths) {
    const base = path.slice(path.lastIndexOf("/") + 1);
    own.add(base.replace(/\.py$/, "").replace(/\..*\.so$/, ""));
  }
  return [...new Set(scripts.flatMap(pythonImports))]
    .filter((name) => !isStdlib(name) && !TEST_RUNNERS.has(name) && !own.has(name))
    .sort();
}

/** Standard modules with a capability an environment may lack, which the scripts import. */
export function capabilityImports(scripts: readonly string[]): string[] {
  return [...new Set(scripts.flatMap(pythonImports))].filter((name) => name in CAPABILITIES).sort();
}

/** Where the modules made unimportable live: first on PYTHONPATH, so they shadow the real ones. */
export const SHADOW_DIR = "/tmp/.hsearch-python";

/** Setup lines that make `module` raise `error` on import (a package of that name on the PYTHONPATH). */
export function shadowModuleSetup(module: string, error: string): string {
  const dir = `${SHADOW_DIR}/${module}`;
  return [`mkdir -p ${dir}`, `printf '%s\\n' ${shellSingle(`raise ${error}`)} > ${dir}/__init__.py`, ""].join(
    "\n",
  );
}

/** PYTHONPATH with the shadowing modules first, before whatever the task set. */
export function shadowedPythonPath(current: string | undefined): string {
  return current === undefined || current === "" ? SHADOW_DIR : `${SHADOW_DIR}:${current}`;
}

function shellSingle(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
