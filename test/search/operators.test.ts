import { describe, expect, it } from "vitest";
import { hashJson } from "../../src/core/canonical-json";
import { createRng } from "../../src/core/rng";
import { parseHarness } from "../../src/harness/load";
import { compilePattern } from "../../src/harness/playbook-match";
import type { Digest, FailureExample } from "../../src/search/proposers/digest";
import {
  bestTemplates,
  mergeEdit,
  proposeByOperators,
  recordState,
  runOperators,
  templateGrams,
} from "../../src/search/proposers/operator-library";
import { applyProposal, assertProposalPaths } from "../../src/search/proposers/proposal";

const SYSTEM = "Be careful.\n{{policy}}\n{{protocols}}\n{{playbook}}\n";

function harness(extra: Record<string, string> = {}) {
  return parseHarness(
    { "harness.yaml": "name: h\n# keep me\nagent: {max_steps: 30}\n", "system.md": SYSTEM, ...extra },
    "h",
  );
}

function digest(overrides: Partial<Digest> = {}): Digest {
  return {
    score: 0.5,
    families: [],
    modes: {},
    failures: [],
    ordinary_observations: ['{"status": "delivered", "items": []}'],
    ordinary_requests: ["Hi, I'm Ann. Please cancel my order #W1."],
    rules_in_false_abstentions: [],
    ...overrides,
  };
}

function failure(
  task: string,
  excerpt: string,
  mode: FailureExample["mode"] = "recognition_without_action",
): FailureExample {
  return {
    task_id: task,
    family: "ambiguous",
    mode,
    step: 1,
    excerpt,
    moments: [],
    deferral_reason: null,
    next_action: "stopped",
  };
}

const AMBIGUOUS = [
  failure("t-1", "Hi, I'm Bo. Return the Tablet in order #W1. I also want to keep the Tablet."),
  failure("t-2", "Hi, I'm Cy. Return the Skateboard in order #W2. I also want to keep the Skateboard."),
  failure("t-3", "Hi. Cancel order #W3. I still want order #W3 delivered as planned, though."),
  failure("t-4", "Hi. Cancel order #W4. I still want order #W4 delivered as planned, though."),
];

describe("rule distillation from shared structure", () => {
  it("abstracts ids and names into slots and never takes a JSON key/value pair", () => {
    expect(templateGrams("I also want to keep the Tablet.")).toContain("also want to keep the <name>");
    expect(templateGrams("Cancel order #W3 now please")).toContain("cancel order <id> now");
    expect(templateGrams('{"status": "processed", "order_id": "#W1"}')).toEqual([]);
    expect(templateGrams('{"error": "Error: order #W1 not found for user"}')).toContain(
      "order <id> not found",
    );
  });

  it("makes a regex that matches every excerpt it was made from and no ordinary text", () => {
    const [clean, widest] = bestTemplates(AMBIGUOUS, [
      "Please return the lamp in order #W7, I want a refund.",
      "Hi, I'm Ann. Please cancel order #W8.",
    ]);
    expect(clean?.pattern).toMatch(/^\/.+\/i$/);
    // "I also want …" and "I still want …": one template for both shapes of the contradiction.
    expect(clean?.pattern).toContain("(?:also|still)");
    expect(clean?.tasks).toBe(4);
    expect(clean?.contrast).toBe(0);
    const fires = compilePattern(clean?.pattern ?? "");
    expect(AMBIGUOUS.filter((f) => fires(f.excerpt))).toHaveLength(4);
    // The template generalises beyond its data: another product, another order id.
    expect(
      fires("I also want to keep the Hiking Boots.") || fires("I still want order #W9 delivered as planned"),
    ).toBe(true);
    // No bare data value: neither an order id nor a product name is in the pattern.
    expect(clean?.pattern).not.toMatch(/#W\d|Tablet|Skateboard/);
    expect(widest === undefined || widest.tasks >= clean!.tasks).toBe(true);
  });

  it("merges two templates that differ in one word into an alternation", () => {
    const excerpts = [
      failure("a", "Fine. I also want the order kept."),
      failure("b", "Fine. I also want the order kept."),
      failure("c", "Fine. I still want the order kept."),
      failure("d", "Fine. I still want the order kept."),
    ];
    const [best] = bestTemplates(excerpts, []);
    expect(best?.pattern).toContain("(?:also|still)");
    expect(best?.tasks).toBe(4);
  });

  it("describes a blocker that lives in a record by the record's state field, never by its data", () => {
    const record = (id: string, status: string) =>
      `{"order_id": "#W${id}", "user_id": "ann_${id}", "address": {"city": "austin", "country": "USA"}, "items": [{"options": {"color": "black"}}], "status": "${status}", "payment_history": []}`;
    expect(recordState(record("1", "processed"))).toEqual([["status", "processed"]]);
    const excerpts = [
      failure("a", record("1", "processed")),
      failure("b", record("2", "processed")),
      failure("c", record("3", "pending")),
    ];
    const [clean, widest] = bestTemplates(excerpts, [record("9", "pending"), record("8", "delivered")]);
    // Two tasks share "processed", which no ordinary record shows; all three share the field, which ordinary ones do.
    expect(clean).toMatchObject({ pattern: '/"status":\\s*"processed"/i', tasks: 2, contrast: 0 });
    expect(widest).toMatchObject({
      pattern: '/"status":\\s*"(?:pending|processed)"/i',
      tasks: 3,
      contrast: 1,
    });
    expect(compilePattern(clean?.pattern ?? "")(record("5", "processed"))).toBe(true);
  });

  it("needs two distinct tasks", () => {
    expect(
      bestTemplates([failure("x", "I also want to keep it."), failure("x", "I also want to keep it.")], []),
    ).toEqual([]);
  });
});

describe("operators proposer", () => {
  const base = {
    harness: harness(),
    digest: digest({
      failures: AMBIGUOUS,
      modes: { recognition_without_action: 4, missed_recognition: 1, post_hoc: 1 },
    }),
    tried: new Set<string>(),
    count: 6,
    round: 1,
  };

  it("proposes rules and protocol switches for the observed failures, deterministically", () => {
    const first = proposeByOperators({ ...base, rng: createRng(7, "p") });
    expect(first).toEqual(proposeByOperators({ ...base, rng: createRng(7, "p") }));
    expect(first).toHaveLength(6);
    expect(first[0]?.operator).toBe("distil_rule");
    const operators = new Set(first.map((p) => p.operator));
    expect(operators).toContain("switch_protocol");
    const rule = first.find((p) => p.operator === "distil_rule");
    const next = parseHarness(applyProposal(harness().files, rule!), "next");
    expect(next.playbook[0]).toMatchObject({ family: "ambiguous", then: "abstain" });
    expect(next.playbook[0]?.when.any[0]).toMatch(/^\/.+\/i$/);
    expect(next.playbook[0]?.id).toMatch(/^ambiguous-[a-z0-9-]+$/);
    const gate = first.find((p) => p.rationale.includes("effect_gate"));
    expect(
      parseHarness(applyProposal(harness().files, gate!), "g").config.protocols.effect_gate.enabled,
    ).toBe(true);
    expect(gate?.files["harness.yaml"]).toContain("# keep me");
  });

  it("does not propose what was tried from this incumbent, nor a harness the run already has", () => {
    const all = proposeByOperators({ ...base, rng: createRng(1) });
    const rest = proposeByOperators({
      ...base,
      tried: new Set([all[0]?.rationale ?? ""]),
      rng: createRng(1),
    });
    expect(rest.map((p) => p.rationale)).not.toContain(all[0]?.rationale);
    const known = new Set([hashJson(applyProposal(base.harness.files, all[1]!))]);
    const fresh = proposeByOperators({ ...base, known, rng: createRng(1) });
    expect(fresh.map((p) => p.rationale)).not.toContain(all[1]?.rationale);
  });

  it("does not run dry: with no failures left it still has rephrasings, budgets and removals, and says when it is exhausted", () => {
    const ruled = harness({
      "harness.yaml": "name: h\nprotocols:\n  self_check: {enabled: true, max_steps: 5}\n",
      "playbook.yaml":
        "- {id: a, family: trap, when: {any: [x]}, then: abstain}\n- {id: b, family: trap, when: {any: [y]}, then: abstain}\n",
    });
    const quiet = { ...base, harness: ruled, digest: digest(), count: 3, rng: createRng(3) };
    const result = runOperators(quiet);
    expect(result.proposals).toHaveLength(3);
    expect(result.exhausted).toBe(false);
    const operators = new Set(runOperators({ ...quiet, count: 50 }).proposals.map((p) => p.operator));
    for (const op of [
      "rephrase",
      "step_budget",
      "remove_rule",
      "merge_rules",
      "remove_protocol",
      "protocol_parameter",
    ])
      expect(operators, op).toContain(op);
    const everything = runOperators({ ...quiet, count: 500 });
    expect(everything.exhausted).toBe(true);
    // Every proposal is a valid harness.
    for (const p of everything.proposals)
      expect(() => parseHarness(applyProposal(ruled.files, p), "x")).not.toThrow();
  });

  it("narrows or softens a rule that fires on ordinary observations", () => {
    const broad = harness({
      "playbook.yaml":
        "- {id: broad, when: {any: ['status', 'lamp shade']}, then: abstain}\n- {id: mine, when: {any: [zebra]}, then: verify} # kept\n",
    });
    const proposals = proposeByOperators({
      harness: broad,
      digest: digest({ modes: { false_abstention: 2 } }),
      tried: new Set(),
      count: 10,
      rng: createRng(1),
      round: 1,
    });
    const narrow = proposals.find((p) => p.rationale.startsWith("Narrow"));
    expect(parseHarness(applyProposal(broad.files, narrow!), "n").playbook[0]?.when.any).toEqual([
      "lamp shade",
    ]);
    const soften = proposals.find((p) => p.rationale.startsWith("Soften"));
    expect(parseHarness(applyProposal(broad.files, soften!), "n").playbook[0]?.then).toBe("verify");
    // The hand-written flow style of the rule survives a change elsewhere in the file.
    expect(narrow?.files["playbook.yaml"]).toContain(
      "- {id: mine, when: {any: [zebra]}, then: verify} # kept\n",
    );
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

  it("merges another lineage's edit (crossover): its changed settings, added rules and changed prose", () => {
    const parent = harness().files;
    const donorFiles = {
      ...parent,
      "harness.yaml": "name: h\n# keep me\nagent: {max_steps: 30}\nprotocols:\n  abandon: {enabled: true}\n",
      "playbook.yaml": "- {id: r, family: trap, when: {any: ['/belongs to \\S+/i']}, then: abstain}\n",
    };
    const mine = harness({
      "harness.yaml": "name: h\n# keep me\nagent: {max_steps: 40}\n",
      "system.md": "Be careful!\n{{policy}}\n{{protocols}}\n{{playbook}}\n",
    });
    const merged = mergeEdit(mine, {
      commit: "c".repeat(40),
      round: 1,
      proposal: 2,
      gain: 0.1,
      files: donorFiles,
      parentFiles: parent,
    });
    const next = parseHarness(
      applyProposal(mine.files, { files: merged ?? {}, rationale: "", operator: "" }),
      "m",
    );
    expect(next.config.agent.max_steps).toBe(40);
    expect(next.config.protocols.abandon.enabled).toBe(true);
    expect(next.playbook.map((r) => r.id)).toEqual(["r"]);
    expect(next.system.startsWith("Be careful!")).toBe(true);
  });
});

describe("proposal paths", () => {
  it("refuses edits outside the harness", () => {
    for (const path of ["../x", "/etc/passwd", "a/../../x", ".git/config", "C:/x", "a\\b", ""])
      expect(() => assertProposalPaths({ [path]: "x" }), path).toThrow(/inside the harness/);
    expect(() => assertProposalPaths({ "prompts/report.md": "x", "playbook.yaml": null })).not.toThrow();
  });
});
