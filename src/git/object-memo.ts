import { resolve } from "node:path";

/**
 * What git says about objects named by their full id (a commit's tree, its files, the diff between two commits)
 * never changes, so each answer is computed once per process. A search asks for the same ones every round (every
 * earlier rejected proposal's diff for the proposer, the incumbent's files for each proposal), and each git call
 * forks a process from the event loop, stalling every episode in flight. Refs (branches, tags, prefixes) move and
 * are never memoized. Failures are not kept: the next call asks git again.
 */
const MAX_ENTRIES = 4096;
const answers = new Map<string, Promise<unknown>>();

/** A full object id (SHA-1, or SHA-256 in a repository that uses it). */
export function isFullObjectId(ref: string): boolean {
  return /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(ref);
}

export function memoizedByObject<T>(
  repo: string,
  key: readonly string[],
  compute: () => Promise<T>,
): Promise<T> {
  const id = [resolve(repo), ...key].join("\0");
  const known = answers.get(id);
  if (known) return known as Promise<T>;
  const answer = compute();
  answers.set(id, answer);
  answer.catch(() => {
    if (answers.get(id) === answer) answers.delete(id);
  });
  // Oldest first: a long-lived process (the viewer) keeps a bounded set.
  if (answers.size > MAX_ENTRIES) answers.delete(answers.keys().next().value as string);
  return answer;
}
