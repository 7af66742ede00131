import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunStatus } from "../../src/store/run-status";
import { runCli } from "./cli";

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

export async function runDemo(): Promise<{ status: RunStatus; runDir: string; cleanup: () => void }> {
  const work = mkdtempSync(join(tmpdir(), "hsearch-demo-"));
  const runDir = join(work, "demo");
  const result = await runCli(["run", "search-configs/demo.yaml", "--out", runDir, "--json"], {
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
  });
  if (result.code !== 0) throw new Error(`the demo run failed (${result.code}): ${result.stderr}`);
  return {
    status: JSON.parse(result.stdout) as RunStatus,
    runDir,
    cleanup: () => rmSync(work, { recursive: true, force: true }),
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
