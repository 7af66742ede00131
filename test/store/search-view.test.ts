import { describe, expect, it } from "vitest";
import { isHsearchError } from "../../src/core/errors";
import { SearchView } from "../../src/store";
import { addSeedAndProposal, newStore, PROPOSAL, rollout, SEED, summary } from "./fixtures";

/** A run holding search rollouts and, for the same candidates, held-out, independent and diagnostic data. */
function mixedRun() {
  const store = newStore();
  addSeedAndProposal(store);
  store.recordRollouts(SEED, [
    rollout(SEED, "s1"),
    rollout(SEED, "s2"),
    rollout(SEED, "h1", { purpose: "heldout" }),
    rollout(SEED, "i1", { purpose: "independent" }),
    rollout(SEED, "h2", { purpose: "diagnostic" }),
    rollout(SEED, "i2", { purpose: "diagnostic", split: "independent" }),
  ]);
  store.recordRollouts(PROPOSAL, [
    rollout(PROPOSAL, "s1"),
    rollout(PROPOSAL, "h1", { purpose: "diagnostic" }),
  ]);
  store.putEvaluation({
    candidate: SEED,
    purpose: "heldout",
    split: "heldout",
    round: null,
    summary: summary(1, { infra_errors: { secret: 1 } }),
  });
  store.putEvaluation({
    candidate: PROPOSAL,
    purpose: "diagnostic",
    split: "heldout",
    round: 1,
    summary: summary(2, { infra_errors: { secret: 2 } }),
  });
  store.logEvent({
    kind: "infra_error_rate",
    data: { candidate: PROPOSAL, purpose: "diagnostic", rate: 1, count: 3, total: 3, first: "secret" },
  });
  return store;
}

function callEveryMethod(view: SearchView): unknown[] {
  const results: unknown[] = [view.run(), view.candidates(), view.rounds(), view.rejectedProposals()];
  for (const commit of [SEED, PROPOSAL]) {
    results.push(view.candidate(commit), view.rollouts(commit), view.candidatesWithTree("t".repeat(40)));
    for (const row of view.rollouts(commit)) results.push(view.trajectory(commit, row.key));
  }
  return results;
}

describe("searchView", () => {
  it("returns only search-purpose rollouts on the search split", () => {
    const view = mixedRun().searchView();
    expect(view.rollouts(SEED).map((row) => row.task_id)).toEqual(["s1", "s2"]);
    expect(view.rollouts(PROPOSAL).map((row) => row.task_id)).toEqual(["s1"]);
    for (const row of [...view.rollouts(SEED), ...view.rollouts(PROPOSAL)]) {
      expect([row.purpose, row.split]).toEqual(["search", "search"]);
    }
    expect(view.trajectory(SEED, rollout(SEED, "s2").key).task_id).toBe("s2");
  });

  it("cannot read the trajectory of a held-out, independent or diagnostic rollout", () => {
    const store = mixedRun();
    const view = store.searchView();
    for (const task of ["h1", "i1", "h2", "i2"]) {
      const key = rollout(SEED, task).key;
      let error: unknown;
      try {
        view.trajectory(SEED, key);
      } catch (caught) {
        error = caught;
      }
      expect(isHsearchError(error, "not_found"), task).toBe(true);
    }
    // The full store does hold them: the view is what hides them.
    expect(
      store
        .listRollouts(SEED)
        .map((row) => row.task_id)
        .sort(),
    ).toEqual(["h1", "h2", "i1", "i2", "s1", "s2"]);
  });

  it("exposes no held-out task, evaluation or event through any of its methods", () => {
    const view = mixedRun().searchView();
    const everything = JSON.stringify(callEveryMethod(view));
    for (const hidden of ['"h1"', '"h2"', '"i1"', '"i2"', "secret", "heldout", "independent", "diagnostic"]) {
      expect(everything).not.toContain(hidden);
    }
    expect(everything).toContain('"s1"');
  });

  it("has no way to reach the database or other data", () => {
    const view = mixedRun().searchView();
    const methods = Object.getOwnPropertyNames(SearchView.prototype).filter((name) => name !== "constructor");
    expect(methods.sort()).toEqual(
      [
        "candidate",
        "candidates",
        "candidatesWithTree",
        "rejectedProposals",
        "rollouts",
        "rounds",
        "run",
        "trajectory",
      ].sort(),
    );
    expect(Object.keys(view)).toEqual([]);
  });
});
