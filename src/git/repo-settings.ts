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

/** Every `hsearch.*` setting in one git call (one is made per proposal committed), by lower-case key. */
async function readSettings(repo: string): Promise<Map<string, string>> {
  const result = await git(repo, ["config", "--local", "--get-regexp", "^hsearch\\."], {
    allowExitCodes: [1],
  });
  const settings = new Map<string, string>();
  if (result.exitCode !== 0) return settings;
  for (const line of result.stdout.split("\n")) {
    const space = line.indexOf(" ");
    if (space > 0) settings.set(line.slice(0, space), line.slice(space + 1).trim());
  }
  return settings;
}

export async function readRepoSettings(repo: string): Promise<RepoSettings> {
  const settings = await readSettings(repo);
  const run = settings.get("hsearch.run");
  const commitDate = settings.get("hsearch.commitdate");
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
