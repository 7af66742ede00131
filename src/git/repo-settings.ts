/**
 * Settings an hsearch harness repository keeps in its own `.git/config` (section `hsearch`), so that a resumed run
 * commits with the same dates without being told again.
 */
import { HsearchError } from "../core";
import { readConfigValue, writeConfigValue } from "./objects";

export interface RepoSettings {
  run: string;
  /** ISO 8601 time used as author and committer date of every commit of the run. */
  commitDate: string;
}

export async function readRepoSettings(repo: string): Promise<RepoSettings> {
  // Read in-process from .git/config: one is read per proposal committed.
  const run = await readConfigValue(repo, "hsearch.run");
  const commitDate = await readConfigValue(repo, "hsearch.commitdate");
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
  await writeConfigValue(repo, "hsearch.run", settings.run);
  await writeConfigValue(repo, "hsearch.commitdate", settings.commitDate);
}
