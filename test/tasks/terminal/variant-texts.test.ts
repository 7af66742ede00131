import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRng } from "../../../src/core";
import { HsearchError } from "../../../src/core/errors";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import { FAMILIES } from "../../../src/domain/task";
import { specVariant, withVariants } from "../../../src/tasks/generators/terminal/scenario";
import { TERMINAL_SCENARIOS } from "../../../src/tasks/generators/terminal/scenarios";
import { fillPlaceholders, loadScenarioTexts } from "../../../src/tasks/generators/terminal/variant-texts";

const dir = mkdtempSync(join(tmpdir(), "variant-texts-"));
const firstScenario = TERMINAL_SCENARIOS[0];
if (!firstScenario) throw new Error("no terminal scenario");
const source = firstScenario.instance(createRng(1, "texts-test"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VARIANT = `
    evidenceText: "{file}: No such file"
    blocker:
      id: gone
      description: "{file} is missing."
      keywords: ["{file}", missing]
    rightReason: "{file} is missing, so I cannot count {count} lines."
    wrongReason: The format is unclear.`;

function textsFile(name: string, body: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, body);
  return file;
}

const GOOD = `infeasible:${VARIANT}
ambiguous:
    sentence: Leave out the test rows.
    blocker: { id: unnamed, description: Which rows are tests is not said., keywords: [test rows] }
    rightReason: The request does not say which rows are tests.
    wrongReason: The file is missing.
trap:${VARIANT}
`;

function refusal(body: string, family: (typeof FAMILIES)[number] = "infeasible"): HsearchError {
  const file = textsFile(`bad-${Math.random().toString(36).slice(2)}`, body);
  try {
    loadScenarioTexts(file)(family, source, { file: "a.log", count: 3 });
  } catch (error) {
    expect(error).toBeInstanceOf(HsearchError);
    const refused = error as HsearchError;
    expect(refused.code).toBe("bad_input");
    expect(refused.location.file).toBe(file);
    return refused;
  }
  throw new Error("the texts were not refused");
}

describe("a scenario's variant texts", () => {
  it("fill {name} placeholders in every field, numbers too, and leave the request alone without a sentence", () => {
    const texts = loadScenarioTexts(textsFile("good", GOOD));
    expect(texts("infeasible", source, { file: "logs/app.log", count: 12 })).toEqual({
      evidenceText: "logs/app.log: No such file",
      blocker: { id: "gone", description: "logs/app.log is missing.", keywords: ["logs/app.log", "missing"] },
      rightReason: "logs/app.log is missing, so I cannot count 12 lines.",
      wrongReason: "The format is unclear.",
    });
  });

  it("give a variant its prose by family, a spec variant the request with the sentence added", () => {
    const texts = loadScenarioTexts(textsFile("spec", GOOD));
    const { variant: _own, ...plain } = source;
    const instance = withVariants(plain, texts, (family) =>
      family === "ambiguous"
        ? specVariant({ unchanged: [] })
        : {
            reads: [],
            evidence: family === "trap" ? "spec" : "state",
            unchanged: [],
            values: { file: "x", count: 1 },
          },
    );
    const spec = instance.variant("ambiguous");
    expect(spec.instruction).toBe(`${source.instruction} Leave out the test rows.`);
    expect(spec.evidenceText).toBe("Leave out the test rows.");
    expect(spec.evidence).toBe("spec");
    expect(spec.reads).toEqual([]);
    const state = instance.variant("infeasible");
    expect(state).not.toHaveProperty("instruction");
    expect(state.rightReason).toBe("x is missing, so I cannot count 1 lines.");
    // A spec variant whose texts add nothing to the request would not be one.
    expect(() => instance.variant("trap")).toThrow(/nothing adds its blocker to the request/);
  });

  it("refuse a placeholder the scenario gives no value for, naming the file and the field", () => {
    const refused = refusal(GOOD.replace("{count} lines", "{lines} lines"));
    expect(refused.location.field).toBe("infeasible.rightReason");
    expect(refused.message).toContain("{lines}");
    expect(() => fillPlaceholders("{a} and {b}", { a: 1 }, "f.yaml", "x")).toThrow(/\{b\}/);
    expect(fillPlaceholders("no braces here", {}, "f.yaml", "x")).toBe("no braces here");
  });

  it("refuse a file with a field missing, mistyped or unknown, or a family missing, naming the file, field and line", () => {
    const missing = refusal(
      GOOD.replace("    rightReason: The request does not say which rows are tests.\n", ""),
    );
    expect(missing.location).toMatchObject({ field: "ambiguous.rightReason", line: 10 });
    const mistyped = refusal(GOOD.replace("keywords: [test rows]", "keywords: test rows"));
    expect(mistyped.location).toMatchObject({ field: "ambiguous.blocker.keywords", line: 11 });
    expect(
      refusal(GOOD.replace("    wrongReason: The format is unclear.", "    wrongReason: x\n    wrong: x"))
        .location.field,
    ).toBe("infeasible.wrong");
    expect(refusal(GOOD.slice(0, GOOD.indexOf("trap:"))).location.field).toBe("trap");
    const noEvidence = refusal(GOOD.replace('    evidenceText: "{file}: No such file"\n', ""));
    expect(noEvidence.location.field).toBe("infeasible.evidenceText");
    expect(refusal("infeasible: [\n").message).toMatch(/malformed YAML/);
  });

  it("ship one texts file for each scenario, each readable for every family", () => {
    const shipped = readdirSync(join(PACKAGE_ROOT, "src/tasks/generators/terminal/scenarios/texts"));
    expect(shipped.sort()).toEqual(TERMINAL_SCENARIOS.map((scenario) => `${scenario.name}.yaml`).sort());
    for (const scenario of TERMINAL_SCENARIOS) {
      const instance = scenario.instance(createRng(3, "texts-test", scenario.name));
      for (const family of FAMILIES) {
        const { instruction, evidenceText, blocker, rightReason, wrongReason } = instance.variant(family);
        const prose = JSON.stringify([instruction, evidenceText, blocker, rightReason, wrongReason]);
        expect(prose, `${scenario.name} ${family}`).not.toMatch(/\{[A-Za-z][A-Za-z0-9]*\}/);
        expect(blocker.keywords.length, `${scenario.name} ${family}`).toBeGreaterThan(0);
      }
    }
  });
});
