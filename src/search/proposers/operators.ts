import { runOperators } from "./operator-library";
import { defineBuiltInProposer } from "./proposer";
import { operatorMaterial } from "./proposer-input";

/**
 * The built-in operators (src/search/proposers/operator-library.ts): offline and deterministic given the seed. A proposal tried before
 * from this parent (or refused before a commit) is not proposed again.
 */
export const operatorsProposer = defineBuiltInProposer({
  name: "operators",
  stream: "proposer",
  async propose(input, { count, rng, round, run }) {
    const { deps, repo, incumbent, avoid } = run;
    const tried = new Set(
      input.rejected.filter((r) => r.commit === null || r.parent === incumbent).map((r) => r.rationale),
    );
    const material = await operatorMaterial(deps.store.searchView(), repo, incumbent, round);
    for (const hash of avoid) material.known.add(hash);
    const result = runOperators({
      harness: input.harness,
      digest: input.digest,
      tried,
      ...material,
      count,
      rng,
      round,
    });
    if (result.exhausted)
      deps.store.logEvent({
        kind: "operators_exhausted",
        data: { round, incumbent, proposals: result.proposals.length },
      });
    return result.proposals;
  },
  // Greedy, after a round in which they found no new edit at all: everything they read — the incumbent, the run's
  // harnesses, the rejected memory — is as it was. (Under pareto another front member may be drawn.)
  ranDry: (deps, round) =>
    round >= 1 &&
    deps.config.strategy === "greedy" &&
    deps.store.eventsOf("operators_exhausted").some((e) => e.data.round === round && e.data.proposals === 0),
});
