import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { PlaybookRule } from "../../src/config/harness-schema";
import { parseHarness, readHarnessFiles } from "../../src/harness/load";
import { deleteYaml, editPlaybook, editYaml } from "../../src/search/config/yaml-edit";

/** The lines that differ between two texts of the same length in lines (an edit in place), or every line. */
function changedLines(before: string, after: string): string[] {
  const a = before.split("\n");
  const b = after.split("\n");
  if (a.length !== b.length) return b;
  return b.filter((line, index) => line !== a[index]);
}

describe("harness YAML edits keep the parent's formatting", () => {
  it("switching on a protocol of every shipped harness is a one-line diff", () => {
    for (const name of readdirSync("harnesses")) {
      const text = readFileSync(`harnesses/${name}/harness.yaml`, "utf8");
      for (const protocol of ["abandon", "report", "self_check", "effect_gate"]) {
        const edited = editYaml(text, ["protocols", protocol, "enabled"], true);
        const changed = changedLines(text, edited);
        if (text === edited) continue; // already on
        expect(changed, `${name}: ${protocol}`).toHaveLength(1);
        expect(changed[0]).toMatch(new RegExp(`^  ${protocol}: \\{enabled: true`));
      }
    }
  });

  it("keeps comments, quoting and the parent's flow padding", () => {
    expect(editYaml("# c\na: {b: 1}\n", ["a", "b"], 2)).toBe("# c\na: {b: 2}\n");
    expect(editYaml("# c\na: { b: 1 }\n", ["a", "b"], 2)).toBe("# c\na: { b: 2 }\n");
    const long = `description: "${"a very long description ".repeat(8).trim()}"\nagent:\n  max_steps: 30 # budget\n`;
    expect(editYaml(long, ["agent", "max_steps"], 40)).toBe(long.replace("30", "40"));
    expect(deleteYaml("a: 1\nb: 2\n", ["b"])).toBe("a: 1\n");
  });

  it("adds a playbook rule below the header and keeps unchanged rules as written", () => {
    const seed = readHarnessFiles("harnesses/bare")["playbook.yaml"] ?? "";
    const rule: PlaybookRule = {
      id: "ambiguous-also-want",
      family: "ambiguous",
      when: { any: ["/\\bI (?:also|still) want\\b/i"] },
      then: "abstain",
      note: "",
    };
    const one = editPlaybook(seed, [rule]);
    expect(one.startsWith(seed.split("\n")[0] ?? "#")).toBe(true);
    expect(one).not.toContain("note:");
    expect(one.split("\n")[1]).toBe("- id: ambiguous-also-want");
    const files = {
      "harness.yaml": "name: h\n",
      "system.md": "{{policy}}\n{{playbook}}",
      "playbook.yaml": one,
    };
    expect(parseHarness(files, "h").playbook).toEqual([rule]);
    // A hand-written rule keeps its flow style when another rule is added after it.
    const handWritten = `${seed.split("\n")[0]}\n- {id: a, when: {any: [x]}, then: verify} # mine\n`;
    const two = editPlaybook(handWritten, [
      { id: "a", when: { any: ["x"] }, then: "verify", note: "" },
      rule,
    ]);
    expect(two.split("\n").slice(0, 2).join("\n")).toBe(handWritten.trim());
    expect(editPlaybook(two, [])).toBe(`${seed.split("\n")[0]}\n[]\n`);
  });
});
