import type { PlaybookRule } from "../../config";
import { compilePattern } from "../../harness";
import type { ConvolveEpisode } from "./episodes";

/**
 * An entry is *in view* in an episode when one of its signals matches a text the agent was shown — the customer's
 * message or a tool's observation — at a step before the agent's first deferral (every step when it never deferred):
 * the rule was in its context while it decided. In view in a blocked episode that deferred at the decisive step
 * (AbsRec@1), the entry was *helpful*; in view in a feasible episode that abstained, *harmful*. Other episodes
 * leave the counters alone: a rule in view on a missed blocker did not cause the miss, one on a solved task did no harm.
 */
export function inView(rule: PlaybookRule, episode: ConvolveEpisode): boolean {
  const before = episode.deferral_step ?? Number.POSITIVE_INFINITY;
  const fires = rule.when.any.map(compilePattern);
  return episode.moments.some(
    (m) => m.step < before && (m.who === "user" || m.who === "tool") && fires.some((fire) => fire(m.text)),
  );
}

/**
 * The playbook with each entry's counters advanced by the episodes of the candidate that carried it. Deterministic:
 * the episodes are the candidate's stored search rollouts, so a resumed round computes the same counters, and the
 * result is written into the child's commit.
 */
export function advanceCounters(
  playbook: readonly PlaybookRule[],
  episodes: readonly ConvolveEpisode[],
): PlaybookRule[] {
  return playbook.map((rule) => {
    let helpful = rule.helpful ?? 0;
    let harmful = rule.harmful ?? 0;
    for (const episode of episodes) {
      if (episode.outcome !== "timely" && episode.outcome !== "false_abstention") continue;
      if (!inView(rule, episode)) continue;
      if (episode.outcome === "timely") helpful++;
      else harmful++;
    }
    return { ...rule, helpful, harmful };
  });
}
