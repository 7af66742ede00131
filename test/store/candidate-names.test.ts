import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isHsearchError } from "../../src/core/errors";
import { openRunStore, type RunStore, resolveCandidate } from "../../src/store";

const SEED = "a".repeat(40);
const P1 = `abcd1${"1".repeat(35)}`;
const P2 = `abcd2${"2".repeat(35)}`;
const P3 = `ef01${"3".repeat(36)}`;

function run(): RunStore {
  const store = openRunStore(mkdtempSync(join(tmpdir(), "hsearch-names-")));
  store.initRun({ id: "names", name: "names", config: {}, seed: 1, objective: "joint" });
  const add = (commit: string, round: number, proposal: number, parent: string | null) =>
    store.addCandidate({
      commit,
      round,
      proposal,
      parent,
      branch: round === 0 ? "main" : `round-${round}/p${proposal}`,
      proposer: "operators",
      rationale: "r",
      tree_hash: commit,
    });
  add(SEED, 0, 0, null);
  store.startRound(0, SEED);
  store.finishRound(0, { incumbent_after: SEED, accepted_commit: null, decision: {} });
  store.startRound(1, SEED);
  add(P1, 1, 1, SEED);
  add(P2, 1, 2, SEED);
  store.finishRound(1, { incumbent_after: P2, accepted_commit: P2, decision: {} });
  store.startRound(2, P2);
  add(P3, 2, 1, P2);
  store.finishRound(2, { incumbent_after: P2, accepted_commit: null, decision: {} });
  return store;
}

const failure = (store: RunStore, name: string) => {
  try {
    resolveCandidate(store, name, { field: "--from" });
  } catch (error) {
    if (isHsearchError(error, "not_found")) return error;
    throw error;
  }
  throw new Error(`'${name}' resolved`);
};

describe("candidate names", () => {
  it("resolves seed, incumbent, r<round>p<proposal> and a commit prefix, case aside", () => {
    const store = run();
    expect(resolveCandidate(store, "seed").commit).toBe(SEED);
    expect(resolveCandidate(store, "incumbent").commit).toBe(P2);
    expect(resolveCandidate(store, "r1p1").commit).toBe(P1);
    expect(resolveCandidate(store, "R2P1").commit).toBe(P3);
    expect(resolveCandidate(store, "abcd2").commit).toBe(P2);
    expect(resolveCandidate(store, P3).commit).toBe(P3);
  });

  it("has a selection only once the run has finished", () => {
    const store = run();
    expect(failure(store, "selected").message).toMatch(/no selected harness: it is running/);
    store.setRunState("finished");
    expect(resolveCandidate(store, "selected").commit).toBe(P2);
  });

  it("lists the valid names for an unknown name, a missing proposal and an ambiguous prefix", () => {
    const store = run();
    const unknown = failure(store, "best");
    expect(unknown.location.field).toBe("--from");
    expect(unknown.message).toContain("no candidate 'best'");
    expect(unknown.message).toContain(
      "valid names: seed, incumbent, selected, r1p1, r1p2, r2p1, or a commit prefix of 4 or more hex digits",
    );
    expect(failure(store, "r3p1").message).toMatch(/no candidate r3p1 \(round 3 proposal 1\)/);
    const ambiguous = failure(store, "abcd");
    expect(ambiguous.message).toMatch(
      /'abcd' matches 2 candidates .*r1p1 abcd11111111, r1p2 abcd22222222.*give more digits/,
    );
    // Three hex digits is not a prefix (it would match too much by accident).
    expect(failure(store, "abc").message).toContain("no candidate 'abc'");
  });
});
