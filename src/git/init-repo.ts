/**
 * The harness repository of a run (docs/DESIGN.md §3): the seed harness committed on `main` as "seed: <name>", branch
 * `incumbent` at the seed. Calling it again on an existing repository (a resumed run) checks that the seed commit is
 * the same and leaves `incumbent` where the search moved it.
 */
import { access, lstat, mkdir, readdir, readFile } from "node:fs/promises";
import { basename, join, relative, sep } from "node:path";
import { badInput, HsearchError } from "../core";
import { composeCommitMessage } from "./commit-message";
import { git, HSEARCH_AUTHOR } from "./git-exec";
import { assertHarnessPath } from "./harness-path";
import { writeConfigValue } from "./objects";
import { branchCommit } from "./refs";
import { readRepoSettings, writeRepoSettings } from "./repo-settings";
import { treeHash } from "./tree";
import { createBranchAt, type IndexEdit, writeCommit } from "./write-commit";

/** Commit date of runs that do not give one: a constant, so SHAs depend only on content. */
export const DEFAULT_COMMIT_DATE = "2000-01-01T00:00:00Z";

export interface InitOptions {
  runId: string;
  /** Seed harness name for the commit subject; defaults to the seed directory's name. */
  name?: string;
  /** Author and committer date of every commit of the run (ISO 8601), e.g. the run's start time. */
  commitDate?: string;
}

export interface InitializedRepo {
  seed: string;
  tree: string;
  /** False when the repository already existed (resume). */
  created: boolean;
}

/** The seed's files, sorted: regular files only; symlinks, devices and `.git` are refused, never followed. */
async function collectSeedFiles(seedDir: string): Promise<IndexEdit[]> {
  const edits: IndexEdit[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const full = join(dir, entry.name);
      const path = relative(seedDir, full).split(sep).join("/");
      assertHarnessPath(path);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) {
        const stat = await lstat(full);
        edits.push({ path, content: await readFile(full), executable: (stat.mode & 0o111) !== 0 });
      } else {
        const what = entry.isSymbolicLink() ? "a symlink" : "not a regular file";
        throw badInput(`seed harness '${path}' is ${what}; harnesses hold regular files only`, {
          file: full,
          field: path,
        });
      }
    }
  };
  try {
    await access(seedDir);
  } catch (error) {
    throw new HsearchError("not_found", `seed harness directory ${seedDir} does not exist`, {
      file: seedDir,
      cause: error,
    });
  }
  await walk(seedDir);
  if (edits.length === 0) throw badInput(`seed harness ${seedDir} has no files`, { file: seedDir });
  return edits;
}

async function isDirEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw error;
  }
}

async function hasGitDir(dir: string): Promise<boolean> {
  try {
    await access(join(dir, ".git"));
    return true;
  } catch {
    return false;
  }
}

export async function initHarnessRepo(
  dir: string,
  seedHarnessDir: string,
  options: InitOptions,
): Promise<InitializedRepo> {
  const edits = await collectSeedFiles(seedHarnessDir);
  const name = options.name ?? basename(seedHarnessDir);
  const commitDate = options.commitDate ?? DEFAULT_COMMIT_DATE;
  const message = composeCommitMessage(`seed: ${name}`, {
    run: options.runId,
    round: 0,
    proposal: 0,
    proposer: "seed",
  });
  const created = !(await hasGitDir(dir));
  if (created) {
    if (!(await isDirEmptyOrMissing(dir))) {
      throw new HsearchError("conflict", `${dir} exists and is not a harness repository`, { file: dir });
    }
    await mkdir(dir, { recursive: true });
    await git(dir, ["init", "--quiet", "-b", "main"]);
    await writeConfigValue(dir, "user.name", HSEARCH_AUTHOR.name);
    await writeConfigValue(dir, "user.email", HSEARCH_AUTHOR.email);
    await writeRepoSettings(dir, { run: options.runId, commitDate });
  } else {
    const settings = await readRepoSettings(dir);
    if (settings.run !== options.runId || settings.commitDate !== commitDate) {
      throw new HsearchError(
        "conflict",
        `${dir} belongs to run ${settings.run} (dates ${settings.commitDate}), not ${options.runId} (${commitDate})`,
        { file: dir },
      );
    }
  }
  const seed = await writeCommit(dir, { parent: null, edits, message, date: commitDate });
  await createBranchAt(dir, "main", seed);
  // On resume `incumbent` stays where the search moved it; it is only created when missing.
  if (created || (await branchCommit(dir, "incumbent")) === undefined)
    await createBranchAt(dir, "incumbent", seed);
  if (created) {
    // The working directory shows the seed, so that a researcher opening the folder sees the harness.
    await git(dir, ["reset", "--quiet", "--hard", "main"]);
  }
  return { seed, tree: await treeHash(dir, seed), created };
}
