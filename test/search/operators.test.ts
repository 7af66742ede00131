import { describe, expect, it } from "vitest";
import { createRng } from "../../src/core/rng";
import { parseHarness } from "../../src/harness/load";
import type { Digest } from "../../src/search/digest";
import { bestPhrase, candidatePhrases, proposeByOperators } from "../../src/search/operators";
import { applyProposal, assertProposalPaths } from "../../src/search/proposal";

const SYSTEM = "{{policy}}\n{{protocols}}\n{{playbook}}\n";

function harness(extra: Record<string, string> = {}) {
  return parseHarness(
    { "harness.yaml": "name: h\n# keep me\nagent: {max_steps: 30}\n", "system.md": SYSTEM, ...extra },
    "h",
  );
}

function digest(overrides: Partial<Digest> = {}): Digest {
  return {
    score: 0.5,
    blocked: {},
    feasible: { n: 4, solve: 1, false_abstention: 0 },
    modes: {},
    failures: [],
    ordinary_observations: ['{"status": "delivered", "items": []}'],
    ordinary_requests: ["Hi, I'm Ann. Please cancel my order."],
    rules_in_false_abstentions: [],
    ...overrides,
  };
}

describe("phrase distillation", () => {
  it("only proposes phrases that literally occur in the text", () => {
    const text = "Hi, I'm Bo. Keep the order cancellable, but also modify the lamp.";
    for (const phrase of candidatePhrases(text)) expect(text.toLowerCase()).toContain(phrase.toLowerCase());
    expect(candidatePhrases(text)).toContain("keep the order cancellable");
    expect(candidatePhrases('{"status": "processed", "order_id": "#W1"}')).toEqual(['"status": "processed"']);
  });

  it("picks the phrase shared by failing excerpts and absent from the contrast set", () => {
    const failing = [
      '{"status": "processed", "x": "a"}',
      '{"status": "processed", "x": "b"}',
      '{"status": "delivered"}',
    ];
    expect(bestPhrase(failing, ['{"status": "delivered"}'])).toEqual({
      text: '"status": "processed"',
      coverage: 2,
    });
    expect(bestPhrase(failing, ['{"status": "processed"}', '{"status": "delivered"}'])).toBeNull();
    expect(bestPhrase(['{"status": "processed"}'], [])).toBeNull();
  });
});

describe("operators proposer", () => {
  const failures = ["a", "b", "c"].map((id) => ({
    task_id: `t-${id}`,
    family: "infeasible" as const,
    mode: "recognition_without_action" as const,
    excerpt: `{"status": "processed", "id": "${id}"}`,
    next_action: "stopped",
  }));

  it("proposes rules and protocol switches for the observed failures, deterministically", () => {
    const input = {
      harness: harness(),
      digest: digest({ failures, modes: { recognition_without_action: 3, post_hoc: 1 } }),
      tried: new Set<string>(),
      count: 4,
      round: 1,
    };
    const first = proposeByOperators({ ...input, rng: createRng(7, "p") });
    const again = proposeByOperators({ ...input, rng: createRng(7, "p") });
    expect(first).toEqual(again);
    expect(first).toHaveLength(4);
    // Ranked by how many failures each edit addresses: the rule (3 excerpts) first.
    expect(first[0]?.operator).toBe("distil_rule");
    const operators = first.map((p) => p.operator).sort();
    expect(operators).toContain("distil_rule");
    expect(operators).toContain("switch_protocol");
    const rule = first.find((p) => p.operator === "distil_rule");
    const next = parseHarness(applyProposal(harness().files, rule!), "next");
    expect(next.playbook[0]).toMatchObject({
      family: "infeasible",
      then: "abstain",
      when: { any: ['"status": "processed"'] },
    });
    const gate = first.find((p) => p.rationale.includes("effect_gate"));
    expect(
      parseHarness(applyProposal(harness().files, gate!), "g").config.protocols.effect_gate.enabled,
    ).toBe(true);
    expect(gate?.files["harness.yaml"]).toContain("# keep me");
  });

  it("does not propose what was already tried from this incumbent", () => {
    const base = {
      harness: harness(),
      digest: digest({ failures, modes: { recognition_without_action: 3 } }),
      count: 5,
      round: 2,
      rng: createRng(1),
    };
    const all = proposeByOperators({ ...base, tried: new Set() });
    const rest = proposeByOperators({ ...base, tried: new Set(all.slice(0, 1).map((p) => p.rationale)) });
    expect(rest.map((p) => p.rationale)).not.toContain(all[0]?.rationale);
  });

  it("narrows a rule that fires on ordinary observations when there are false abstentions", () => {
    const broad = harness({
      "playbook.yaml": "- {id: broad, when: {any: ['status', 'lamp shade']}, then: abstain}\n",
    });
    const proposals = proposeByOperators({
      harness: broad,
      digest: digest({ modes: { false_abstention: 2 } }),
      tried: new Set(),
      count: 3,
      rng: createRng(1),
      round: 1,
    });
    const narrow = proposals.find((p) => p.operator === "narrow_rule");
    expect(narrow).toBeDefined();
    expect(parseHarness(applyProposal(broad.files, narrow!), "n").playbook[0]?.when.any).toEqual([
      "lamp shade",
    ]);
  });

  it("raises the step budget when episodes hit the limit", () => {
    const proposals = proposeByOperators({
      harness: harness(),
      digest: digest({ modes: { step_limit: 4 } }),
      tried: new Set(),
      count: 3,
      rng: createRng(1),
      round: 1,
    });
    const budget = proposals.find((p) => p.operator === "step_budget");
    expect(parseHarness(applyProposal(harness().files, budget!), "b").config.agent.max_steps).toBe(40);
  });
});

describe("proposal paths", () => {
  it("refuses edits outside the harness", () => {
    for (const path of ["../x", "/etc/passwd", "a/../../x", ".git/config", "C:/x", "a\\b", ""])
      expect(() => assertProposalPaths({ [path]: "x" }), path).toThrow(/inside the harness/);
    expect(() => assertProposalPaths({ "prompts/report.md": "x", "playbook.yaml": null })).not.toThrow();
  });
});
