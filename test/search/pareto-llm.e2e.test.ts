import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { openRunStore } from "../../src/store";
import { runStatus } from "../../src/store/run-status";
import { runCli } from "../helpers/cli";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";
import { retailSubset } from "../helpers/task-subset";

/**
 * `strategy: pareto` with the `llm` proposer: a scripted proposer model behind the fake OpenAI server answers each
 * call with two edits. Each proposal's parent is drawn from the front; the proposer is asked once per parent drawn,
 * with that parent's digest; admission follows the front's rule, and the selection is the front's best.
 */
const bare = readFileSync(join(PACKAGE_ROOT, "harnesses", "bare", "harness.yaml"), "utf8");
const on = (yaml: string, ...protocols: string[]) =>
  protocols.reduce(
    (text, name) => text.replace(`${name}: {enabled: false}`, `${name}: {enabled: true}`),
    yaml,
  );
// Edits the scripted proposer hands out, as many as a call asks for, in order: each call gets the next ones.
const EDITS: Array<{ rationale: string; yaml: string }> = [
  { rationale: "tell the agent about the certified deferral", yaml: on(bare, "abandon") },
  { rationale: "gate effects once a blocker is stated", yaml: on(bare, "effect_gate") },
  { rationale: "deferral and a self-check", yaml: on(bare, "abandon", "self_check") },
  { rationale: "deferral and the effect gate", yaml: on(bare, "abandon", "effect_gate") },
  {
    rationale: "deferral, self-check and effect gate",
    yaml: on(bare, "abandon", "self_check", "effect_gate"),
  },
  { rationale: "a longer leash", yaml: on(bare, "abandon").replace("max_steps: 30", "max_steps: 40") },
  { rationale: "a self-check alone", yaml: on(bare, "self_check") },
  { rationale: "a report at the end", yaml: on(bare, "report") },
  { rationale: "a gated report", yaml: on(bare, "report", "effect_gate") },
  { rationale: "everything", yaml: on(bare, "abandon", "self_check", "effect_gate", "report") },
];

let handedOut = 0;
function proposerReply(request: RecordedRequest) {
  const body = request.body as { messages: Array<{ content: string }> };
  const prompt = body.messages.map((m) => m.content).join("\n");
  if (!prompt.includes("You improve the harness of an AI agent"))
    throw new Error("only the proposer talks to this server");
  const count = Number(/Propose (\d+) different edits/.exec(prompt)?.[1] ?? 0);
  const proposals = Array.from({ length: count }, () => EDITS[handedOut++ % EDITS.length]).map((edit) => ({
    rationale: edit?.rationale ?? "",
    edits: [{ path: "harness.yaml", content: edit?.yaml ?? "" }],
  }));
  return openaiCompletion({ content: JSON.stringify({ proposals }) });
}

let server: FakeOpenAIServer | undefined;
afterAll(async () => server?.close());

describe("strategy pareto with the llm proposer", () => {
  it("asks the model once per parent drawn from the front, about that parent, and selects the front's best", async () => {
    server = await startFakeOpenAIServer(proposerReply);
    const work = mkdtempSync(join(tmpdir(), "hsearch-pareto-llm-"));
    const { dir, tasks } = retailSubset({ perFamily: 3 });
    const config = join(work, "search.yaml");
    writeFileSync(
      config,
      `name: pareto-llm\nsuites: [retail]\ntasks: ${dir}\nobjective: joint\nseed_harness: ${join(PACKAGE_ROOT, "harnesses", "bare")}\nrounds: 4\nproposals_per_round: 3\ntask_model: sim:default\nmeta_model: openai:proposer\nstrategy: pareto\nseed: 3\nconcurrency: 4\n`,
    );
    const runDir = join(work, "run");
    const env = { ...process.env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: server.baseURL };
    const result = await runCli(["run", config, "--out", runDir], { env });
    expect(result.code, result.stderr).toBe(0);

    const store = openRunStore(runDir, { readonly: true });
    try {
      const status = runStatus(store);
      const candidates = store.listCandidates();
      const front = new Set([candidates[0]?.commit]);
      const proposerOf = new Map(candidates.map((c) => [c.commit, c.proposer]));
      // The prompt names candidates by their stable names (seed, r1p2), never by commit id.
      const nameOf = new Map(
        candidates.map((c) => [c.commit, c.round === 0 ? "seed" : `r${c.round}p${c.proposal}`]),
      );
      const parents = new Set<string>();
      let request = 0;
      for (let round = 1; round <= 4; round++) {
        const proposals = status.rounds[round]?.proposals ?? [];
        expect(proposals.length).toBeGreaterThan(0);
        // One proposer call per parent drawn, in the order the parents were first drawn; its prompt is about it.
        // (The merge step makes its proposal without the model: its parent needs no request.)
        const fromModel = proposals.filter((p) => proposerOf.get(p.commit) !== "pareto-merge");
        const roundParents = [...new Set(fromModel.map((p) => p.parent ?? ""))];
        for (const parent of roundParents) {
          parents.add(parent);
          // Each parent is a front member of earlier rounds.
          expect(front.has(parent), `round ${round}`).toBe(true);
          const prompt = JSON.stringify(server.requests[request++]?.body);
          expect(prompt).toContain(`Incumbent (${nameOf.get(parent)}, score`);
          for (const c of candidates) expect(prompt).not.toContain(c.commit.slice(0, 12));
        }
        for (const proposal of proposals)
          expect(proposal.rejected_reason ?? "joined").toMatch(
            /joined|no gain on its parent|dominated by|same outcomes|same harness as/,
          );
        for (const proposal of proposals) if (proposal.verdict === "accepted") front.add(proposal.commit);
        expect(store.getRound(round)?.decision).toMatchObject({ rule: "pareto" });
      }
      expect(server.requests).toHaveLength(request);
      // The front grew past the seed and later proposals drew their parents from it. (That a round draws several
      // parents, and the merge step, are tested with the operators proposer in pareto-slots.e2e.test.ts.)
      expect(front.size).toBeGreaterThan(1);
      expect(parents.size).toBeGreaterThan(1);
      // The selection is the best front member by the search objective (the oldest on a tie).
      const members = candidates.filter((c) => front.has(c.commit));
      const best = Math.max(...members.map((c) => c.score ?? 0));
      const selected = status.rounds.at(-1)?.incumbent_after;
      expect(selected).toBe(members.find((c) => c.score === best)?.commit);
      // No held-out or independent task reached the proposer.
      const sent = JSON.stringify(server.requests.map((r) => r.body));
      for (const task of tasks.filter((t) => t.split !== "search")) expect(sent).not.toContain(task.id);
    } finally {
      store.close();
    }
    // `hsearch status` names each proposal's parent.
    const text = await runCli(["status", runDir]);
    expect(text.stdout).toMatch(/\n\s+1\s+r1p1\s+seed\s/);
  }, 300_000);
});
