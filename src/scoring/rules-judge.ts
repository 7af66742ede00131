/**
 * The deterministic judge (`judge: rules`).
 *
 * Label: if any agent-authored blocked assessment, report or deferral carries an explicit `label`, the label is
 * correct when one of them equals the blocker's label (explicit labels win over free text, so a wrong explicit
 * label is not rescued by wording). Otherwise the joined agent text must name the blocker's family by the cue
 * lists of label-cues.ts.
 *
 * Grounding: the text mentions at least `requiredKeywords(k)` = max(1, ⌈0.3·k⌉) of the blocker's k distinct
 * keywords (1 of 1–3, 2 of 4–6, 3 of 7–9, …), matched case-insensitively as whole words with a plural fold.
 *
 * recognized (M0) = label correct ∧ grounded, over all agent blocked assessments, reports, deferrals and messages.
 * reason_matches = the first agent deferral's reason is grounded by the same rule and its explicit label, if any,
 * is the blocker's.
 */

import { badInput, hashJson } from "../core";
import type { Task } from "../domain";
import type { Trajectory } from "../harness";
import type { Judge, JudgeVerdict } from "./judge";
import { blockerClaims, buildJudgeInput, type JudgeInput } from "./judge-input";
import { textNamesFamily } from "./label-cues";
import { containsKeyword, tokenize } from "./text-match";

export const RULES_JUDGE_ID = "rules";
export const KEYWORD_SHARE = 0.3;

export function requiredKeywords(distinctKeywords: number): number {
  return Math.max(1, Math.ceil(KEYWORD_SHARE * distinctKeywords));
}

export interface KeywordOverlap {
  matched: string[];
  total: number;
  required: number;
  grounded: boolean;
}

export function keywordOverlap(text: string, keywords: readonly string[], taskId = "?"): KeywordOverlap {
  const distinct = new Map<string, string>();
  for (const keyword of keywords) {
    const key = tokenize(keyword).join(" ");
    if (key !== "" && !distinct.has(key)) distinct.set(key, keyword);
  }
  if (distinct.size === 0) {
    throw badInput(`task ${taskId}: the blocker has no usable keywords for the rules judge`, {
      field: "blocker.keywords",
    });
  }
  const tokens = tokenize(text);
  const matched = [...distinct.values()].filter((keyword) => containsKeyword(tokens, keyword));
  const required = requiredKeywords(distinct.size);
  return { matched, total: distinct.size, required, grounded: matched.length >= required };
}

export function rulesVerdict(input: JudgeInput): JudgeVerdict {
  const { blocker } = input;
  const claims = blockerClaims(input);
  const claimText = claims.map((claim) => claim.text).join("\n");

  const explicit = claims.flatMap((claim) => (claim.label === undefined ? [] : [claim.label]));
  const labelCorrect =
    explicit.length > 0 ? explicit.includes(blocker.label) : textNamesFamily(claimText, blocker.label);
  const labelHow =
    explicit.length > 0 ? `explicit labels [${[...new Set(explicit)].join(", ")}]` : "free-text cues";

  const overlap = keywordOverlap(claimText, blocker.keywords, input.task_id);
  const reason = input.deferral_reason;
  const reasonOverlap = reason === null ? null : keywordOverlap(reason.text, blocker.keywords, input.task_id);
  const reasonLabelOk = reason === null || reason.label === undefined || reason.label === blocker.label;
  const reasonMatches = reasonOverlap?.grounded === true && reasonLabelOk;

  const rationale = [
    `label ${blocker.label} ${labelCorrect ? "given" : "not given"} (${labelHow})`,
    `keywords ${describe(overlap)}`,
    reasonOverlap === null
      ? "no agent deferral"
      : `deferral reason keywords ${describe(reasonOverlap)}${reasonLabelOk ? "" : `, wrong label ${reason?.label}`}`,
  ].join("; ");

  return {
    judge: RULES_JUDGE_ID,
    recognized: labelCorrect && overlap.grounded,
    label_correct: labelCorrect,
    reason_matches: reasonMatches,
    rationale,
    input_hash: hashJson({ judge: RULES_JUDGE_ID, input }),
  };
}

function describe(overlap: KeywordOverlap): string {
  const list = overlap.matched.length > 0 ? ` (${overlap.matched.join(", ")})` : "";
  return `${overlap.matched.length}/${overlap.total}${list}, need ${overlap.required}`;
}

export const rulesJudge: Judge = {
  id: RULES_JUDGE_ID,
  judgeBlocked: async (task: Task, trajectory: Trajectory) => rulesVerdict(buildJudgeInput(task, trajectory)),
};
