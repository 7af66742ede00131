import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunStatus } from "../../src/store/run-status";
import { runCli } from "./cli";
import { sharedFixture } from "./fixture-cache";

/**
 * The demo run (`hsearch run search-configs/demo.yaml`) reduced to what must not change by accident: every
 * candidate's commit, score and fate, each round's incumbent, the selected commit and tree, and the held-out
 * objectives. Same config and seed ⇒ the same fingerprint, commit for commit.
 */
export const REGENERATE = "npx tsx test/helpers/demo-run.ts > test/fixtures/demo-run.json";

export interface DemoFingerprint {
  selected: { commit: string; tree: string; score: number | null };
  /** One line per candidate: `r<round>p<proposal> <commit> <score> <state>[/<verdict>]`, and the round's incumbent. */
  rounds: Array<{ round: number; incumbent_after: string | null; candidates: string[] }>;
  heldout: Record<string, Record<string, unknown>>;
}

/**
 * The demo run (`hsearch run` with its default config, search-configs/demo.yaml): a whole search of 25 candidates,
 * built once per suite run and shared by the files that read it (test/search/demo*.e2e.test.ts), which treat runDir
 * as read-only. `cleanup` removes it when it was built for this caller alone (outside the suite).
 */
export async function runDemo(): Promise<{ status: RunStatus; runDir: string; cleanup: () => void }> {
  const { dir: work, shared } = await sharedFixture("demo-run", "search-configs/demo.yaml", async (dir) => {
    // No config: the default one, search-configs/demo.yaml, as a user's first `hsearch run` has it.
    const result = await runCli(["run", "--out", join(dir, "demo"), "--json"], {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
    });
    if (result.code !== 0) throw new Error(`the demo run failed (${result.code}): ${result.stderr}`);
    writeFileSync(join(dir, "status.json"), result.stdout);
  });
  return {
    status: JSON.parse(readFileSync(join(work, "status.json"), "utf8")) as RunStatus,
    runDir: join(work, "demo"),
    cleanup: () => {
      if (!shared) rmSync(work, { recursive: true, force: true });
    },
  };
}

export function demoFingerprint(status: RunStatus, runDir: string): DemoFingerprint {
  const selected = status.selected;
  if (!selected) throw new Error(`the demo run selected nothing (state ${status.state})`);
  const tree = execFileSync(
    "git",
    ["-C", join(runDir, "harness"), "rev-parse", `${selected.commit}^{tree}`],
    {
      encoding: "utf8",
    },
  ).trim();
  const objectives = (summaries: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(summaries)
        .filter(([, value]) => typeof value === "object" && value !== null && "objective" in value)
        .map(([split, value]) => [split, (value as { objective: unknown }).objective]),
    );
  return {
    selected: { commit: selected.commit, tree, score: selected.score },
    rounds: status.rounds.map((round) => ({
      round: round.round,
      incumbent_after: round.incumbent_after,
      candidates: round.proposals.map(
        (p) =>
          `r${round.round}p${p.proposal} ${p.commit} ${p.score} ${p.state}${p.verdict ? `/${p.verdict}` : ""}`,
      ),
    })),
    heldout: Object.fromEntries(
      Object.entries(status.heldout).map(([role, summaries]) => [
        role,
        { commit: summaries.commit, ...objectives(summaries) },
      ]),
    ),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { status, runDir, cleanup } = await runDemo();
  try {
    process.stdout.write(
      `${JSON.stringify({ regenerate: REGENERATE, ...demoFingerprint(status, runDir) }, null, 2)}\n`,
    );
  } finally {
    cleanup();
  }
}
