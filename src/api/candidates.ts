import { join, resolve } from "node:path";
import { assertOutputApart } from "../core";
import { diff, type ExportedHarness, exportHarness as writeHarness } from "../git";
import type { Comparison } from "../report";
import type { CandidateRecord } from "../store/types";
import { openRun, type RunReader } from "./open-run";

/** A run given by its directory (or id under cwd/runs), or one already opened (left open). */
export type RunRef = string | RunReader;

async function withRun<T>(
  run: RunRef,
  cwd: string | undefined,
  use: (reader: RunReader) => Promise<T>,
): Promise<T> {
  if (typeof run !== "string") return use(run);
  const reader = openRun(run, cwd ? { cwd } : {});
  try {
    return await use(reader);
  } finally {
    reader.close();
  }
}

/**
 * Writes a candidate (`selected`, `seed`, `incumbent`, `r4p1` or a commit prefix) as a self-contained harness directory with its
 * provenance (`hsearch export`). `out` must not exist or be empty.
 */
export async function exportHarness(
  run: RunRef,
  candidate: string,
  out: string,
  options: { cwd?: string } = {},
): Promise<ExportedHarness & { commit: string; out: string }> {
  return withRun(run, options.cwd, async (reader) => {
    reader.config();
    const found = await reader.candidate(candidate);
    const commit = found.commit;
    const evaluations = reader
      .evaluations()
      .filter((e) => e.candidate === commit && e.purpose !== "diagnostic");
    const target = resolve(options.cwd ?? process.cwd(), out);
    assertOutputApart({ path: target, name: "--out" }, [{ path: reader.dir, name: "the run" }]);
    const exported = await writeHarness(join(reader.dir, "harness"), commit, target, {
      run: reader.run.id,
      config: reader.run.config,
      candidate: {
        round: found.round,
        proposal: found.proposal,
        branch: found.branch,
        rationale: found.rationale,
      },
      scores: {
        search: { objective: reader.run.objective, score: found.score, summary: found.summary },
        ...Object.fromEntries(evaluations.map((e) => [e.purpose, e.summary])),
      },
    });
    return { ...exported, commit, out: target };
  });
}

export interface CandidateDiff {
  from: CandidateRecord;
  to: CandidateRecord;
  /** Outcomes per suite and family on every split both were evaluated on, with flips. */
  comparisons: Comparison[];
  /** `git diff from to` of the harness files. */
  diff: string;
}

/** Two candidates of a run side by side (`hsearch diff --from a --to b`): their outcomes and the harness diff. */
export async function diffCandidates(
  run: RunRef,
  a: string,
  b: string,
  options: { cwd?: string } = {},
): Promise<CandidateDiff> {
  return withRun(run, options.cwd, async (reader) => {
    const from = await reader.candidate(a);
    const to = await reader.candidate(b);
    return {
      from,
      to,
      comparisons: reader.comparisons(from.commit, to.commit),
      diff: await diff(join(reader.dir, "harness"), to.commit, from.commit),
    };
  });
}
