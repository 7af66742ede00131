// A plug-in proposer: a function from what the built-in proposers see (the parent harness with its files, the digest
// of its search-split outcomes, the lineage and the rejected proposals) to harness edits. Name it in a search config
// in place of the built-in one:
//
//   meta_model: ./my-proposer.mjs     # relative to the config file; `operators` is the built-in proposer
//
// Its edits are admitted like the built-ins' (paths inside the harness, the files must load as a harness) and it
// draws from the seeded `rng` it is given, so a run replays and resumes to the same result.
import { defineProposer } from "hsearch";

/** Cues worth a stopping rule: the start of an error or of an owner's note in the observation before a failure. */
const CUE = /(?:^|\n)(Error: [^\n]{4,60}?|note: [^\n]{4,60}?)(?=[.;\n]|$)/g;

export default defineProposer({
  name: "cue-rules",
  propose(input, { count, round, rng }) {
    const { harness, digest } = input;
    const edits = [];
    // 1. Switch the abandon protocol on when blocked tasks fail and the agent was never told how to defer.
    const blockedFailures = digest.failures.filter((failure) => failure.family !== null);
    if (blockedFailures.length > 0 && !harness.config.protocols.abandon.enabled)
      edits.push({
        files: { "harness.yaml": harness.files["harness.yaml"].replace(/abandon:\s*\{\s*enabled:\s*false/, "abandon: {enabled: true") },
        rationale: "Tell the agent how to defer: blocked tasks fail and the abandon protocol is off.",
        operator: "abandon-on",
      });
    // 2. A stopping rule per cue seen before blocked failures that ordinary (solved) episodes never show.
    const ordinary = [...digest.ordinary_observations, ...digest.ordinary_requests].join("\n");
    const known = new Set(harness.playbook.flatMap((rule) => rule.when.any));
    const cues = new Map();
    for (const failure of blockedFailures)
      for (const match of failure.excerpt.matchAll(CUE)) {
        // The words before any quoted name, so the rule fits every task that shows the cue, not one key.
        const cue = match[1].split("'")[0].replace(/\s+/g, " ").trim().split(" ").slice(0, 4).join(" ");
        if (cue.length >= 8 && !ordinary.includes(cue) && !known.has(cue)) cues.set(cue, failure.family);
      }
    // Seeded order: the same run proposes the same rules, resumed or not.
    for (const [cue, family] of rng.shuffle([...cues.entries()].sort())) {
      const id = `cue-r${round}-${edits.length + 1}`;
      const rules = [
        ...harness.playbook,
        { id, family, when: { any: [cue] }, then: "abstain", note: "Seen before tasks that could not be done." },
      ];
      edits.push({
        files: { "playbook.yaml": `${JSON.stringify(rules, null, 2)}\n` },
        rationale: `Stop and defer on "${cue}" (${family}): it preceded blocked-task failures and no solved episode.`,
        operator: "cue-rule",
      });
    }
    // Not again what this parent already had rejected (the rejected memory of earlier rounds).
    const tried = new Set(
      input.rejected.filter((r) => r.parent === input.incumbent.commit).map((r) => r.rationale),
    );
    return edits.filter((edit) => !tried.has(edit.rationale)).slice(0, count);
  },
});
