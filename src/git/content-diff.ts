import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { git } from "./git-exec";
import { assertHarnessPath } from "./harness-path";

/**
 * The unified diff between two harnesses given by content (path → text), as `git diff` prints it with paths
 * relative to the harness (`a/system.md`, `b/system.md`). Two runs have two repositories, so their trees cannot be
 * diffed by commit: both are written to a temporary directory and compared with `git diff --no-index`.
 */
export async function diffContents(
  before: Readonly<Record<string, string>>,
  after: Readonly<Record<string, string>>,
): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), "hsearch-diff-"));
  try {
    for (const [side, files] of [
      ["a", before],
      ["b", after],
    ] as const) {
      mkdirSync(join(work, side));
      for (const [path, text] of Object.entries(files)) {
        assertHarnessPath(path);
        mkdirSync(dirname(join(work, side, path)), { recursive: true });
        writeFileSync(join(work, side, path), text);
      }
    }
    // Exit 1 means "they differ", an answer.
    const { stdout } = await git(
      work,
      ["diff", "--no-index", "--no-color", "--no-ext-diff", "--no-textconv", "--no-prefix", "-M", "a", "b"],
      { allowExitCodes: [1] },
    );
    // --no-prefix prints the directories themselves (a/system.md, b/system.md): exactly git's usual prefixes.
    return stdout;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
