import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { startRun } from "../../src/api";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { createRng } from "../../src/core/rng";
import type { EpisodeScore } from "../../src/scoring";
import {
  gainLeft,
  incumbentOutcomes,
  largestDrop,
  nextLeader,
  rejectionOrder,
  rejectionStep,
} from "../../src/search/acceptance/early-reject";
import { openRunStore } from "../../src/store";
import { retailSubset } from "../helpers/task-subset";

function blocked(task: string, strict: boolean, repeat = 0): EpisodeScore {
  return { kind: "blocked", task_id: task, repeat, strict_sa: strict } as unknown as EpisodeScore;
}
function feasible(task: string, solve: boolean, repeat = 0): EpisodeScore {
  return { kind: "feasible", task_id: task, repeat, solve } as unknown as EpisodeScore;
}

/** Early rejection as the round runs it, over per-task values in [0, 1]: the tasks it ran and whether it stopped. */
function simulate(incumbent: readonly number[], proposal: readonly number[]) {
  const ids = incumbent.map((_, i) => `t${i}`);
  const outcomes = new Map(
    ids.map((id, i) => [
      id,
      { mean: incumbent[i] as number, min: incumbent[i] as number, max: incumbent[i] as number },
    ]),
  );
  const order = rejectionOrder(ids, outcomes, () => true);
  const at = (id: string) => Number(id.slice(1));
  const gains = order.map((id) => gainLeft(outcomes.get(id), true));
  const drops = order.map((id) => largestDrop(outcomes.get(id), true));
  const differences = order.map((id) => (proposal[at(id)] as number) - (incumbent[at(id)] as number));
  let seen = 0;
  let step = rejectionStep([], gains, drops, 0);
  let steps = 0;
  while (step.kind === "run") {
    seen += step.tasks;
    steps++;
    step = rejectionStep(differences, gains, drops, seen);
  }
  return { step, seen, order, steps };
}

describe("early rejection under greater (pure)", () => {
  it("runs the incumbent's failures first, ties in the seeded order, uncounted tasks last", () => {
    const outcomes = new Map([
      ["a", { mean: 1, min: 1, max: 1 }],
      ["b", { mean: 0, min: 0, max: 0 }],
      ["c", { mean: 0.5, min: 0, max: 1 }],
      ["d", { mean: 0, min: 0, max: 0 }],
    ]);
    expect(rejectionOrder(["e", "a", "b", "c", "d"], outcomes, (id) => id !== "a")).toEqual([
      "e", // counted, never scored for the incumbent: all to gain
      "b",
      "d",
      "c",
      "a",
    ]);
  });

  it("reads the incumbent's outcome per task under the objective", () => {
    const scores = [blocked("x", true, 0), blocked("x", false, 1), feasible("y", true)];
    expect(incumbentOutcomes(scores, "joint").get("x")).toEqual({ mean: 0.5, min: 0, max: 1 });
    expect(incumbentOutcomes(scores, "sa-only").get("y")).toBeNull();
    expect(gainLeft({ mean: 0.5, min: 0, max: 1 }, true)).toBe(1);
    expect(largestDrop({ mean: 0.5, min: 0, max: 1 }, true)).toBe(2);
    expect(gainLeft(null, false)).toBe(0);
  });

  it("a proposal that changes nothing stops after exactly the incumbent's failures, in one step", () => {
    const incumbent = Array.from({ length: 128 }, (_, i) => (i % 8 === 0 ? 0 : 1));
    const run = simulate(incumbent, incumbent);
    expect(run.step).toMatchObject({ kind: "rejected", seen: 16, difference: 0, left: 0 });
    expect(run.steps).toBe(1);
  });

  it("a perfect incumbent rejects every proposal before any task (greater needs a strict gain)", () => {
    const run = simulate([1, 1, 1], [1, 1, 1]);
    expect(run.step).toMatchObject({ kind: "rejected", seen: 0 });
  });

  it("a proposal ahead after the failures runs every task once no losses left can reject it", () => {
    const incumbent = [0, 0, 1, 1, 1, 1];
    expect(simulate(incumbent, [1, 0, 1, 1, 1, 1]).step.kind).toBe("run-all");
    // Ahead by one, then a loss: rejected once the sum reaches 0.
    const lost = simulate(incumbent, [1, 0, 0, 1, 1, 1]);
    expect(lost.step).toMatchObject({ kind: "rejected", difference: 0 });
  });

  it("against a leader's total: a tie rejects only the higher-numbered proposal", () => {
    const gains = [0, 0];
    const drops = [1, 1];
    // Two tasks run, +3 so far, nothing left to gain: against a leader at +3.
    expect(rejectionStep([2, 1], gains, drops, 2, { total: 3, tieRejects: true }).kind).toBe("rejected");
    expect(rejectionStep([2, 1], gains, drops, 2, { total: 3, tieRejects: false }).kind).toBe("run-all");
    expect(rejectionStep([2, 1], gains, drops, 2, { total: 4, tieRejects: false }).kind).toBe("rejected");
    // +3 after one task of two, one more can lose 1: at a leader of +2 (tie rejects) it needs that task.
    expect(rejectionStep([3], [0, 0], [1, 1], 1, { total: 2, tieRejects: true })).toEqual({
      kind: "run",
      tasks: 1,
    });
    expect(
      nextLeader([
        { index: 2, total: 5 },
        { index: 1, total: 5 },
        { index: 3, total: 1 },
      ])?.index,
    ).toBe(1);
  });

  it("decides exactly as greater on every task would, and a rejected prefix never scores above the incumbent", () => {
    const rng = createRng(3, "early-reject-test");
    for (let replicate = 0; replicate < 3000; replicate++) {
      const n = 1 + Math.floor(rng.next() * 40);
      const repeats = 1 + Math.floor(rng.next() * 3);
      const value = () => Math.floor(rng.next() * (repeats + 1)) / repeats;
      const passRate = rng.next();
      const incumbent = Array.from({ length: n }, () => (rng.next() < passRate ? 1 : value()));
      const flip = rng.next() * 0.3;
      const proposal = incumbent.map((v) => (rng.next() < flip ? value() : v));
      const total = proposal.reduce((s, p, i) => s + p - (incumbent[i] as number), 0);
      const { step, seen, order } = simulate(incumbent, proposal);
      // greater rejects when the proposal's total is not above the incumbent's.
      expect(step.kind === "rejected", `replicate ${replicate}`).toBe(total <= 1e-9);
      if (step.kind !== "rejected" || seen === 0) continue;
      const prefix = order.slice(0, seen).map((id) => Number(id.slice(1)));
      const prefixScore = prefix.reduce((s, i) => s + (proposal[i] as number), 0) / seen;
      const incumbentScore = incumbent.reduce((s, v) => s + v, 0) / n;
      expect(prefixScore).toBeLessThanOrEqual(incumbentScore + 1e-12);
    }
  });
});

describe("a search with early_reject", () => {
  let work: string;
  const runs: Record<"full" | "early" | "leader", string> = { full: "", early: "", leader: "" };
  const setting = { full: "false", early: "true", leader: "leader" };
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "hsearch-early-reject-"));
    const { dir } = retailSubset({ perFamily: 4, heldoutPerFamily: 2, independent: 2 });
    for (const name of ["full", "early", "leader"] as const) {
      const config = join(work, `${name}.yaml`);
      writeFileSync(
        config,
        `name: early\nsuites: [retail]\ntasks: ${dir}\nobjective: joint\nseed_harness: ${join(PACKAGE_ROOT, "harnesses", "bare")}\nrounds: 4\nproposals_per_round: 3\ntask_model: sim:default\nseed: 3\nacceptance: {rule: greater, early_reject: ${setting[name]}}\n`,
      );
      runs[name] = join(work, name, "run");
      await startRun(config, { out: runs[name] }).result;
    }
  }, 300_000);

  function read(runDir: string) {
    const store = openRunStore(runDir, { readonly: true });
    try {
      const trees = new Map(store.listCandidates().map((c) => [c.commit, c.tree_hash]));
      return {
        rounds: store.listRounds().map((r) => ({
          round: r.round,
          accepted: r.accepted_commit,
          proposals: store.listCandidates({ round: r.round }).map((c) => c.commit),
        })),
        candidates: store.listCandidates().map((c) => ({
          commit: c.commit,
          round: c.round,
          at: `r${c.round}p${c.proposal}`,
          tree: c.tree_hash,
          verdict: c.verdict,
          score: c.score,
          reason: c.rejected_reason,
          searched: store.listRollouts(c.commit, "search").length,
        })),
        accepted: store.listRounds().map((r) => (r.accepted_commit ? trees.get(r.accepted_commit) : null)),
        selected: trees.get(store.listRounds().at(-1)?.incumbent_after ?? ""),
        heldout: store
          .listEvaluations()
          .map((e) => [trees.get(e.candidate), e.purpose, JSON.stringify(e.summary)])
          .sort(),
        search: store.listCandidates().reduce((s, c) => s + store.listRollouts(c.commit, "search").length, 0),
      };
    } finally {
      store.close();
    }
  }

  it("proposes, accepts and selects what greater on every task does, for fewer search rollouts", () => {
    const full = read(runs.full);
    const early = read(runs.early);
    expect(early.candidates.map((c) => [c.at, c.tree, c.verdict])).toEqual(
      full.candidates.map((c) => [c.at, c.tree, c.verdict]),
    );
    expect(early.accepted).toEqual(full.accepted);
    expect(early.selected).toEqual(full.selected);
    expect(early.heldout).toEqual(full.heldout);
    expect(early.search).toBeLessThan(full.search);
    const tasks = full.candidates[0]?.searched as number;
    const stopped = early.candidates.filter((c) => c.reason?.startsWith("cannot beat the incumbent"));
    expect(stopped.length).toBeGreaterThan(0);
    for (const c of early.candidates) {
      const twin = full.candidates.find((f) => f.at === c.at);
      if (stopped.includes(c)) {
        // Stopped before the whole split, with no score (its tasks are the incumbent's failures, not a sample).
        expect(c.searched).toBeLessThan(tasks);
        expect(c.score).toBeNull();
        expect(c.reason).toMatch(/on its \d+ of \d+ search tasks, at most \+[\d.]+ on the \d+ left$/);
      } else {
        // Every other proposal ran every task, with greater's score and reason.
        expect(c.searched).toBe(tasks);
        expect([c.score, c.reason]).toEqual([twin?.score, twin?.reason]);
      }
    }
  });

  it("leader: also stops a proposal that cannot beat the round's leader; each round still accepts greater's choice", () => {
    const full = read(runs.full);
    const early = read(runs.early);
    const leader = read(runs.leader);
    expect(leader.search).toBeLessThan(early.search);
    // Round 1 reads no earlier candidate, so its proposals and decision are the full protocol's.
    const round1 = (run: typeof full) =>
      run.candidates.filter((c) => c.round === 1).map((c) => [c.tree, c.verdict]);
    expect(round1(leader)).toEqual(round1(full));
    const beaten = leader.candidates.filter((c) => c.reason?.startsWith("cannot beat proposal"));
    expect(beaten.length).toBeGreaterThan(0);
    const tasks = leader.candidates[0]?.searched as number;
    for (const round of leader.rounds.filter((r) => r.round > 0)) {
      const proposals = leader.candidates.filter((c) => round.proposals.includes(c.commit));
      const complete = proposals.filter((c) => c.searched === tasks && c.score !== null);
      // The accepted proposal (if any) ran every task and scored highest of those that did, ties to the lowest number.
      const best = [...complete].sort(
        (a, b) => (b.score as number) - (a.score as number) || a.at.localeCompare(b.at),
      )[0];
      if (round.accepted) expect(round.accepted).toBe(best?.commit);
      // Every stopped proposal was stopped against the incumbent or against a proposal of its round run to the end.
      for (const c of proposals.filter((p) => p.score === null)) {
        const against = /cannot beat proposal (\d+)/.exec(c.reason ?? "")?.[1];
        if (against) expect(complete.map((p) => p.at)).toContain(`r${round.round}p${against}`);
        else expect(c.reason).toMatch(/^cannot beat the incumbent/);
      }
    }
  });
});
