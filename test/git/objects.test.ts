/**
 * The commits hsearch writes in-process (src/git/objects.ts) are git's own: for the same parent, files, message and
 * date, `writeCommit` gives the sha that git's plumbing (read-tree, hash-object, update-index, write-tree,
 * commit-tree: what hsearch ran before) gives, so runs started before keep their shas on resume. And what git itself
 * writes or packs (`git gc`) reads back the same.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isHsearchError } from "../../src/core/errors";
import {
  branchCommit,
  commitInfo,
  initHarnessRepo,
  listTree,
  readFiles,
  readRepoSettings,
} from "../../src/git";
import { type IndexEdit, writeCommit } from "../../src/git/write-commit";
import { seedHarness, tempDir } from "./fixtures";

const ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "hsearch",
  GIT_AUTHOR_EMAIL: "hsearch@localhost",
  GIT_COMMITTER_NAME: "hsearch",
  GIT_COMMITTER_EMAIL: "hsearch@localhost",
};

function rawGit(repo: string, args: string[], input?: string | Buffer, env: NodeJS.ProcessEnv = {}): string {
  return execFileSync("git", args, { cwd: repo, input, env: { ...ENV, ...env }, encoding: "utf8" }).trim();
}

/** The commit git's own plumbing writes for the same spec, with a private index. */
function plumbingCommit(
  repo: string,
  parent: string | null,
  edits: IndexEdit[],
  message: string,
  seconds: number,
) {
  const scratch = mkdtempSync(join(tmpdir(), "hsearch-plumbing-"));
  const env = { GIT_INDEX_FILE: join(scratch, "index") };
  try {
    if (parent !== null) rawGit(repo, ["read-tree", parent], undefined, env);
    const records = edits.map((edit) => {
      if (edit.content === null) return `0 ${"0".repeat(40)}\t${edit.path}\0`;
      const blob = rawGit(repo, ["hash-object", "-w", "--stdin"], edit.content);
      return `${edit.executable ? "100755" : "100644"} ${blob}\t${edit.path}\0`;
    });
    if (records.length > 0) rawGit(repo, ["update-index", "-z", "--index-info"], records.join(""), env);
    const tree = rawGit(repo, ["write-tree"], undefined, env);
    const date = `@${seconds} +0000`;
    // Not through rawGit: its trim would drop nothing here, but the message must reach git byte for byte.
    return execFileSync("git", ["commit-tree", tree, ...(parent ? ["-p", parent] : []), "-F", "-"], {
      cwd: repo,
      input: message,
      env: { ...ENV, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
      encoding: "utf8",
    }).trim();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function emptyRepo(): Promise<string> {
  const repo = join(await tempDir(), "repo");
  execFileSync("git", ["init", "--quiet", "-b", "main", repo], { env: ENV });
  return repo;
}

const DATE = "2026-12-06T01:02:03Z";
const SECONDS = Date.parse(DATE) / 1000;

describe("in-process git objects", () => {
  it("write the sha git's plumbing writes: nested and sorted paths, modes, bytes, deletions, messages", async () => {
    const repo = await emptyRepo();
    // Names whose order differs between plain sorting and git's (a directory sorts as its name plus "/").
    const first: IndexEdit[] = [
      { path: "a", content: "file a\n" },
      { path: "a-b.md", content: "dash\n" },
      { path: "a.b", content: "dot" },
      { path: "ab/c.md", content: "nested\n" },
      { path: "ab/d/e/f.txt", content: "deep\r\nwindows line\n" },
      { path: "tools/run.sh", content: "#!/bin/sh\necho hi\n", executable: true },
      { path: "empty", content: "" },
      { path: "bytes.bin", content: Buffer.from([0, 255, 10, 13, 0x80, 1]) },
      { path: "ünïcode/名前.md", content: "utf-8 names\n" },
    ];
    const messages = [
      "seed: bare\n\nHsearch-Run: r\nHsearch-Round: 0\n",
      "no trailing newline",
      "ünïcode ✓\n\n\n",
    ];
    for (const message of messages) {
      const ours = await writeCommit(repo, { parent: null, edits: first, message, date: DATE });
      expect(ours).toBe(plumbingCommit(repo, null, first, message, SECONDS));
    }
    const parent = plumbingCommit(repo, null, first, messages[0] ?? "", SECONDS);
    const second: IndexEdit[] = [
      { path: "a", content: null },
      { path: "ab/d/e/f.txt", content: null },
      { path: "ab/new.md", content: "new\n" },
      { path: "tools/run.sh", content: "#!/bin/sh\necho changed\n", executable: true },
      { path: "z/last.md", content: "last\n" },
    ];
    const child = await writeCommit(repo, { parent, edits: second, message: "edit\n", date: DATE });
    expect(child).toBe(plumbingCommit(repo, parent, second, "edit\n", SECONDS));
    // git agrees the objects are whole and well-formed.
    expect(() => rawGit(repo, ["fsck", "--strict", "--no-dangling"])).not.toThrow();
    expect(rawGit(repo, ["ls-tree", "-r", "-z", "--name-only", child]).split("\0").filter(Boolean)).toEqual(
      (await listTree(repo, child)).map((entry) => entry.path),
    );
  });

  it("read what git packed (`git gc`) as they read loose objects", async () => {
    const repo = join(await tempDir(), "harness");
    const { seed } = await initHarnessRepo(repo, await seedHarness(), { runId: "20261206-0000-gc-abcd" });
    const before = { files: await readFiles(repo, seed), info: await commitInfo(repo, seed) };
    const packed = join(await tempDir(), "packed");
    // A fresh clone of the packed repository: nothing of it is memoized by this process yet.
    rawGit(repo, ["gc", "--quiet", "--aggressive", "--prune=now"]);
    rawGit(repo, ["pack-refs", "--all"]);
    execFileSync("git", ["clone", "--quiet", "--mirror", repo, join(packed, ".git")], { env: ENV });
    rawGit(join(packed, ".git"), ["config", "--bool", "core.bare", "false"]);
    rawGit(join(packed, ".git"), ["config", "hsearch.run", "20261206-0000-gc-abcd"]);
    rawGit(join(packed, ".git"), ["config", "hsearch.commitdate", "2000-01-01T00:00:00Z"]);
    expect(await branchCommit(packed, "incumbent")).toBe(seed);
    expect(await readFiles(packed, seed)).toEqual(before.files);
    expect(await commitInfo(packed, seed)).toEqual(before.info);
    expect(await readRepoSettings(packed)).toEqual({
      run: "20261206-0000-gc-abcd",
      commitDate: "2000-01-01T00:00:00Z",
    });
  });

  it("say which object is missing, naming the repository", async () => {
    const repo = await emptyRepo();
    const missing = "0123456789abcdef0123456789abcdef01234567";
    const error = await readFiles(repo, missing).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isHsearchError(error) && error.code).toBe("not_found");
    expect(String((error as Error).message)).toContain(missing);
    expect(String((error as Error).message)).toContain(repo);
    expect(await branchCommit(repo, "no-such-branch")).toBeUndefined();
  });
});
