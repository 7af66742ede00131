import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "vitest";
import { openRunStore } from "../../src/store";

/**
 * What two runs of one config must agree on (resume, workers): the content hash, the selection, every candidate's
 * state and score, and the rollout keys by purpose.
 */
export function runSummary(runDir: string) {
  const store = openRunStore(runDir, { readonly: true });
  try {
    const keys = store
      .listCandidates()
      .flatMap((c) =>
        (["search", "heldout", "independent"] as const).flatMap((p) =>
          store.listRollouts(c.commit, p).map((r) => `${p}:${r.key}`),
        ),
      );
    return {
      hash: store.contentHash(),
      selected: store.listRounds().at(-1)?.incumbent_after,
      scores: store.listCandidates().map((c) => [c.commit, c.state, c.score]),
      keys: keys.sort(),
      total: store.countRollouts(),
      state: store.getRun()?.state,
    };
  } finally {
    store.close();
  }
}

/** Rollouts stored so far, read while another process writes (0 before the schema exists). */
export function storedRollouts(runDir: string): number {
  const file = join(runDir, "run.db");
  if (!existsSync(file)) return 0;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare("SELECT COUNT(*) AS n FROM rollouts").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0; // the schema may not exist yet
  }
}

/** A child's exit with its stderr (listened to from now on: call it right after spawning). */
export function finished(
  child: ChildProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, stderr })));
}

/** A run ended as the reference run did: finished, same selection and scores, every rollout key once, same hash. */
export function expectSameRun(runDir: string, reference: ReturnType<typeof runSummary>): void {
  const after = runSummary(runDir);
  expect(after.state).toBe("finished");
  expect(after.selected).toBe(reference.selected);
  expect(after.scores).toEqual(reference.scores);
  // No rollout lost or stored twice.
  expect(after.keys).toEqual(reference.keys);
  expect(new Set(after.keys).size).toBe(after.keys.length);
  expect(after.hash).toBe(reference.hash);
}
