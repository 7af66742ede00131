/**
 * The prose of a scenario's blocked variants (the blocker, the right and wrong reasons, the evidence and any sentence
 * added to the request) is content a researcher edits, so it lives in `scenarios/texts/<scenario>.yaml` beside the
 * scenario, which keeps only how each variant's state is made. A text may name an instance's value as `{name}`; the
 * scenario fills it.
 */
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { loadDocument } from "../../../config";
import { HsearchError } from "../../../core";
import { FAMILIES, type Family } from "../../../domain";
import type { Instance, VariantParts } from "./scenario";

const text = z.string().min(1);

const variantTextSchema = z
  .object({
    /** A sentence added to the end of the source's request (for spec evidence, the blocker itself). */
    sentence: text.optional(),
    /** What in the revealing observation shows the blocker; default the sentence. */
    evidenceText: text.optional(),
    blocker: z.object({ id: text, description: text, keywords: z.array(text).min(1) }).strict(),
    rightReason: text,
    wrongReason: text,
  })
  .strict()
  .refine((variant) => variant.sentence !== undefined || variant.evidenceText !== undefined, {
    message: "a variant needs an evidenceText, or a sentence that is its evidence",
    path: ["evidenceText"],
  });

const textsSchema = z.record(z.enum(FAMILIES), variantTextSchema);

/** What a variant's texts give: the request with the sentence added (when there is one) and the prose fields. */
export type TextParts = Pick<
  VariantParts,
  "instruction" | "evidenceText" | "blocker" | "rightReason" | "wrongReason"
>;

/** The values a text's `{name}` placeholders stand for. */
export type TextValues = Readonly<Record<string, string | number>>;

/** One family's texts for a variant of `source`, placeholders filled from `values`. */
export type ScenarioTexts = (family: Family, source: Instance, values?: TextValues) => TextParts;

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9]*)\}/g;

/** `template` with each `{name}` replaced; a name the scenario gives no value for is an error naming the field. */
export function fillPlaceholders(template: string, values: TextValues, file: string, field: string): string {
  return template.replace(PLACEHOLDER, (_match, name: string) => {
    const value = values[name];
    if (value === undefined)
      throw new HsearchError(
        "bad_input",
        `unknown placeholder {${name}} (this variant fills: ${Object.keys(values).join(", ") || "none"})`,
        { file, field },
      );
    return String(value);
  });
}

/** The texts in `file`, read and checked on first use (a bad file fails the generation, not every command). */
export function loadScenarioTexts(file: string): ScenarioTexts {
  let texts: z.output<typeof textsSchema> | undefined;
  return (family, source, values = {}) => {
    texts ??= loadDocument(textsSchema, file);
    const variant = texts[family];
    const fill = (template: string, field: string) =>
      fillPlaceholders(template, values, file, `${family}.${field}`);
    const sentence = variant.sentence === undefined ? undefined : fill(variant.sentence, "sentence");
    return {
      ...(sentence === undefined ? {} : { instruction: `${source.instruction} ${sentence}` }),
      evidenceText:
        variant.evidenceText === undefined ? (sentence ?? "") : fill(variant.evidenceText, "evidenceText"),
      blocker: {
        id: fill(variant.blocker.id, "blocker.id"),
        description: fill(variant.blocker.description, "blocker.description"),
        keywords: variant.blocker.keywords.map((keyword, i) => fill(keyword, `blocker.keywords.${i}`)),
      },
      rightReason: fill(variant.rightReason, "rightReason"),
      wrongReason: fill(variant.wrongReason, "wrongReason"),
    };
  };
}

/** The shipped texts of the scenario `name` (found beside the compiled module too: the build copies them). */
export function scenarioTexts(name: string): ScenarioTexts {
  return loadScenarioTexts(fileURLToPath(new URL(`./scenarios/texts/${name}.yaml`, import.meta.url)));
}
