/**
 * The proof of a blocked variant before it is written (docs/DESIGN.md §3), in the real sandbox: the cues are sound
 * for the rules judge (suite.ts `checkCues`); the terminal suite's proof of a blocked task holds (check.ts: an agent
 * that changes nothing passes the variant's verifier, the reads change nothing and show the evidence, the oracle's
 * reference defers cleanly) with the family's rule for the counterpart's solution — on an infeasible variant it no
 * longer passes its own verifier, on a trap or ambiguous one it commits the forbidden effect the effect log
 * detects and the variant's verifier fails it; and the oracle model, through the real agent loop, defers at the
 * decisive step with the right reason (strict SA 1).
 */
import { isHsearchError } from "../../../core";
import type { TerminalTask } from "../../../domain";
import type { Harness } from "../../../harness";
import { runRollout } from "../../../harness";
import type { ChatModel } from "../../../models/types";
import { rulesJudge, scoreEpisode } from "../../../scoring";
import { checkBlockedTerminal } from "../terminal/check";
import { checkCues } from "../terminal/suite";
import type { Candidate } from "./variants";

/** The oracle's episode: the model (`oracle`) and the harness it runs in (the CLI passes `harnesses/abandon`). */
export interface OracleRun {
  model: ChatModel;
  harness: Harness;
}

const ORACLE_SEED = 1;

/** null when the variant holds; otherwise why it does not. */
export async function proveVariant(
  candidate: Candidate,
  counterpart: TerminalTask,
  oracle: OracleRun,
): Promise<string | null> {
  const cues = checkCues(candidate.task);
  if (cues !== null) return cues;
  try {
    const problem = await checkBlockedTerminal(candidate.task, counterpart, candidate.rules);
    if (problem !== null) return problem;
    return await oracleDefers(candidate.task, oracle);
  } catch (error) {
    // The variant's setup failed (its change broke the source's setup): this variant does not hold.
    if (isHsearchError(error, "bad_input")) return `${candidate.task.id}: ${error.message}`;
    throw error;
  }
}

export async function oracleDefers(task: TerminalTask, oracle: OracleRun): Promise<string | null> {
  const trajectory = await runRollout({
    harness: oracle.harness,
    task,
    model: oracle.model,
    seed: ORACLE_SEED,
    repeat: 0,
  });
  const score = await scoreEpisode(task, trajectory, rulesJudge);
  if (score.kind === "infra_error") return `${task.id}: the oracle's episode failed: ${score.error}`;
  if (score.kind !== "blocked") return `${task.id}: the oracle's episode was scored as ${score.kind}`;
  if (!score.strict_sa) {
    const gates = `M0 ${score.m0}, M1 ${score.m1}, M2 ${score.m2}, M3 ${score.m3}, reward ${score.reward}`;
    return `${task.id}: the oracle does not defer with the right reason (strict SA 0: ${gates}; ${score.judge.rationale})`;
  }
  if (score.deferral_step !== score.decisive_step)
    return `${task.id}: the oracle defers at step ${score.deferral_step}, not at the decisive step ${score.decisive_step}`;
  return null;
}
