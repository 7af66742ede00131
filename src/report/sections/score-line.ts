import type { RolloutRecord } from "../../store";
import { num } from "../format";

const mark = (value: unknown) => (value === true ? "✓" : value === false ? "✗" : "–");

/** An episode's gates on one line: "M0 ✓ · M1 ✓ · M2 ✗ · … · decisive step 2 · deferral step none". */
export function scoreLine(rollout: RolloutRecord): string {
  const s = rollout.scores;
  if (s.kind === "infra_error") return "infrastructure error (not scored)";
  if (rollout.kind === "blocked") {
    return [
      `M0 ${mark(s.m0)}`,
      `M1 ${mark(s.m1)}`,
      `M2 ${mark(s.m2)}`,
      `M3 ${mark(s.m3)}`,
      `authorship ${mark(s.authorship)}`,
      `strict SA ${mark(s.strict_sa)}`,
      `post-hoc ${mark(s.post_hoc)}`,
      `decisive step ${num(s.decisive_step) ?? "–"}`,
      `deferral step ${num(s.deferral_step) ?? "none"}`,
    ].join(" · ");
  }
  return [`solve ${mark(s.solve)}`, `false abstention ${mark(s.false_abstention)}`].join(" · ");
}
