/**
 * Settings an hsearch harness repository keeps in its own `.git/config` (section `hsearch`), so that a resumed run
 * commits with the same dates without being told again.
 */
import { HsearchError } from "../core/errors";
import { git } from "./git-exec";

export interface RepoSettings {
  run: string;
  /** ISO 8601 time used as author and committer date of every commit of the run. */
  commitDate: string;
}

async function readSetting(repo: string, key: string): Promise<string | undefined> {
  const result = await git(repo, ["config", "--local", "--get", key], { allowExitCodes: [1] });
  return result.exitCode === 0 ? result.stdout.trim() : undefined;
}

export async function readRepoSettings(repo: string): Promise<RepoSettings> {
  const run = await readSetting(repo, "hsearch.run");
  const commitDate = await readSetting(repo, "hsearch.commitdate");
  if (run === undefined || commitDate === undefined) {
    throw new HsearchError(
      "conflict",
      `${repo} is not an hsearch harness repository (no hsearch.run in its config)`,
      {
        file: repo,
      },
    );
  }
  return { run, commitDate };
}

export async function writeRepoSettings(repo: string, settings: RepoSettings): Promise<void> {
  await git(repo, ["config", "--local", "hsearch.run", settings.run]);
  await git(repo, ["config", "--local", "hsearch.commitdate", settings.commitDate]);
}
