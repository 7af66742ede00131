import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HsearchError } from "../../src/core/errors";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { loadHarness, parseHarness } from "../../src/harness/load";
import { matchingRules } from "../../src/harness/playbook-match";
import { renderSystemPrompt } from "../../src/harness/render";

const base = { "harness.yaml": "name: h\n", "system.md": "{{policy}}\n{{protocols}}\n{{playbook}}\n" };

function failure(files: Record<string, string>): HsearchError {
  try {
    parseHarness(files, "h");
  } catch (error) {
    if (error instanceof HsearchError) return error;
    throw error;
  }
  throw new Error("expected a validation error");
}

describe("harness loading", () => {
  it("loads and renders every seed harness", () => {
    const names = readdirSync(join(PACKAGE_ROOT, "harnesses")).sort();
    expect(names).toEqual(["abandon", "bare", "gated", "harness-control", "report", "self-check"]);
    for (const name of names) {
      const harness = loadHarness(join(PACKAGE_ROOT, "harnesses", name));
      expect(harness.config.name).toBe(name);
      const prompt = renderSystemPrompt(harness, "retail", "POLICY");
      expect(prompt).toContain("POLICY");
      expect(prompt).not.toMatch(/\{\{/);
    }
  });

  it("protocol switches show in the prompt only when enabled", () => {
    const bare = loadHarness(join(PACKAGE_ROOT, "harnesses", "bare"));
    const abandon = loadHarness(join(PACKAGE_ROOT, "harnesses", "abandon"));
    expect(renderSystemPrompt(bare, "retail", "")).not.toContain("abstain");
    expect(renderSystemPrompt(abandon, "retail", "")).toContain("`abstain`");
    expect(renderSystemPrompt(abandon, "terminal", "")).toContain("infeasible.md");
  });

  it("defaults fill a minimal harness.yaml", () => {
    const harness = parseHarness(base, "h");
    expect(harness.config.agent.max_steps).toBe(30);
    expect(harness.config.protocols.abandon.enabled).toBe(false);
    expect(harness.playbook).toEqual([]);
  });

  it("agent.max_continues: 1 by default, 0 to 10 allowed; prompts/continue.md is the continue message", () => {
    expect(parseHarness(base, "h").config.agent.max_continues).toBe(1);
    const off = parseHarness({ ...base, "harness.yaml": "name: h\nagent: {max_continues: 0}\n" }, "h");
    expect(off.config.agent).toEqual({ max_steps: 30, temperature: 0, max_continues: 0 });
    const own = parseHarness({ ...base, "prompts/continue.md": "Call a tool or finish." }, "h");
    expect(own.prompts.continue).toBe("Call a tool or finish.");
    for (const [value, why] of [
      ["-1", /greater than or equal to 0|>=0/],
      ["11", /less than or equal to 10|<=10/],
      ["1.5", /expected int/],
      ["'one'", /number/],
    ] as const) {
      const error = failure({ ...base, "harness.yaml": `name: h\nagent:\n  max_continues: ${value}\n` });
      expect(error.code, value).toBe("bad_input");
      expect(error.location).toMatchObject({ file: "h/harness.yaml", field: "agent.max_continues", line: 3 });
      expect(error.message).toMatch(why);
    }
    const empty = failure({ ...base, "prompts/continue.md": "  \n" });
    expect(empty.location).toMatchObject({ file: "h/prompts/continue.md" });
    expect(empty.message).toMatch(/may not be empty/);
  });

  it("errors name file, field and line", () => {
    const badField = failure({ ...base, "harness.yaml": "name: h\nagent:\n  max_steps: -3\n" });
    expect(badField.location).toMatchObject({ file: "h/harness.yaml", field: "agent.max_steps", line: 3 });
    const unknownProtocol = failure({
      ...base,
      "harness.yaml": "name: h\nprotocols:\n  telepathy: {enabled: true}\n",
    });
    expect(unknownProtocol.location).toMatchObject({ field: "protocols.telepathy", line: 3 });
    const placeholder = failure({ ...base, "system.md": "hello\n{{policy}}\n{{secrets}}\n" });
    expect(placeholder.location).toMatchObject({ file: "h/system.md", line: 3 });
    const badRegex = failure({
      ...base,
      "playbook.yaml": "- id: r1\n  when: {any: ['/([/']}\n  then: abstain\n",
    });
    expect(badRegex.location).toMatchObject({ file: "h/playbook.yaml", field: "0.when.any.0", line: 2 });
    const duplicate = failure({
      ...base,
      "playbook.yaml":
        "- {id: r1, when: {any: [a]}, then: abstain}\n- {id: r1, when: {any: [b]}, then: verify}\n",
    });
    expect(duplicate.message).toMatch(/duplicate rule id/);
    expect(failure({ ...base, "notes.txt": "x" }).message).toMatch(/unexpected file/);
    expect(failure({ "system.md": "x" }).message).toMatch(/missing harness.yaml/);
    const tooMany = failure({
      ...base,
      "harness.yaml": "name: h\nplaybook: {enabled: true, max_rules: 1}\n",
      "playbook.yaml":
        "- {id: a, when: {any: [a]}, then: abstain}\n- {id: b, when: {any: [b]}, then: abstain}\n",
    });
    expect(tooMany.message).toMatch(/exceed/);
  });

  it("refuses a harness that would silently lose part of itself, or is too large", () => {
    const noPolicy = failure({ ...base, "system.md": "You are an agent. Do the task." });
    expect(noPolicy.location).toMatchObject({ file: "h/system.md", field: "{{policy}}" });
    expect(noPolicy.message).toMatch(/must contain \{\{policy\}\}/);
    // {{protocols}} is needed only when an enabled protocol has instructions; {{playbook}} only when there are rules.
    expect(() => parseHarness({ ...base, "system.md": "{{policy}}" }, "h")).not.toThrow();
    const lostProtocol = failure({
      ...base,
      "harness.yaml": "name: h\nprotocols:\n  abandon: {enabled: true}\n",
      "system.md": "{{policy}}\n{{playbook}}",
    });
    expect(lostProtocol.message).toMatch(/\{\{protocols\}\}.*abandon/);
    const lostRules = failure({
      ...base,
      "system.md": "{{policy}}\n{{protocols}}",
      "playbook.yaml": "- {id: a, when: {any: [x]}, then: abstain}\n",
    });
    expect(lostRules.message).toMatch(/\{\{playbook\}\}/);
    const huge = failure({ ...base, "system.md": `{{policy}}\n${"word ".repeat(5000)}` });
    expect(huge.location).toMatchObject({ file: "h/system.md", line: 2 });
    expect(huge.message).toMatch(/more than 20000/);
    const everything = failure({
      ...base,
      "playbook.yaml": "- id: a\n  when: {any: ['/x*/']}\n  then: abstain\n",
    });
    expect(everything.location).toMatchObject({ file: "h/playbook.yaml", field: "0.when.any.0", line: 2 });
    expect(everything.message).toMatch(/matches every text/);
  });

  it("matches playbook phrases case-insensitively and regexes as written", () => {
    const harness = parseHarness(
      {
        ...base,
        "playbook.yaml":
          "- {id: owner, when: {any: ['another customer']}, then: abstain}\n- {id: status, when: {any: ['/\"status\": \"(processed|delivered)\"/']}, then: verify}\n",
      },
      "h",
    );
    expect(matchingRules(harness.playbook, "Order of ANOTHER customer").map((r) => r.id)).toEqual(["owner"]);
    expect(matchingRules(harness.playbook, '{"status": "processed"}').map((r) => r.id)).toEqual(["status"]);
    expect(matchingRules(harness.playbook, '{"status": "pending"}')).toEqual([]);
    expect(renderSystemPrompt(harness, "retail", "")).toContain("(owner)");
  });

  it("refuses, with file, field and line, a regex the linear-time engine cannot run", () => {
    for (const regex of ["(a)\\1", "(?=a)b", "(?<!x)y"]) {
      const error = failure({
        ...base,
        "playbook.yaml": `- id: ok\n  when: {any: [fine]}\n  then: verify\n- id: r2\n  when:\n    any: [plain, '/${regex}/']\n  then: abstain\n`,
      });
      expect(error.location).toMatchObject({ file: "h/playbook.yaml", field: "1.when.any.1", line: 6 });
      expect(error.message).toMatch(/linear-time engine \(RE2\)/);
    }
  });

  it("runs a catastrophic-backtracking rule in linear time instead of hanging", () => {
    const harness = parseHarness(
      { ...base, "playbook.yaml": "- {id: evil, when: {any: ['/(a+)+$/']}, then: abstain}\n" },
      "h",
    );
    // V8's backtracking engine needs ~2^n steps here: 64 characters would not finish in a lifetime.
    const observation = `${"a".repeat(100_000)}!`;
    expect(matchingRules(harness.playbook, observation)).toEqual([]);
    expect(matchingRules(harness.playbook, "aaaa").map((r) => r.id)).toEqual(["evil"]);
  });
});
