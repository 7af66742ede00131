import { z } from "zod";
import { linearRegex } from "../core";
import { FAMILIES } from "../domain";
import { namedDocumentFields } from "./named-document";

/** harness.yaml (docs/DESIGN.md §3). Each protocol is a switch with options. */
const protocolSwitch = z.object({ enabled: z.boolean() }).strict();

/** The largest step budgets a harness may set (a plan bounds an unknown harness's calls by them). */
export const STEP_LIMITS = { agent: 500, self_check: 50 } as const;

export const harnessConfigSchema = z
  .object({
    ...namedDocumentFields,
    agent: z
      .object({
        max_steps: z.number().int().min(1).max(STEP_LIMITS.agent).default(30),
        temperature: z.number().min(0).max(2).default(0),
        /**
         * Continue messages in a row (prompts/continue.md) after turns without a tool call that no customer answers;
         * 0: such a turn ends the episode (DESIGN §4).
         */
        max_continues: z.number().int().min(0).max(10).default(1),
      })
      .strict()
      .default({ max_steps: 30, temperature: 0, max_continues: 1 }),
    protocols: z
      .object({
        abandon: protocolSwitch.default({ enabled: false }),
        report: protocolSwitch.default({ enabled: false }),
        self_check: z
          .object({
            enabled: z.boolean(),
            max_steps: z.number().int().min(1).max(STEP_LIMITS.self_check).default(5),
          })
          .strict()
          .default({ enabled: false, max_steps: 5 }),
        harness_control: protocolSwitch.default({ enabled: false }),
        effect_gate: protocolSwitch.default({ enabled: false }),
      })
      .strict()
      .default({
        abandon: { enabled: false },
        report: { enabled: false },
        self_check: { enabled: false, max_steps: 5 },
        harness_control: { enabled: false },
        effect_gate: { enabled: false },
      }),
    playbook: z
      .object({ enabled: z.boolean().default(true), max_rules: z.number().int().min(0).max(200).default(12) })
      .strict()
      .default({ enabled: true, max_rules: 12 }),
  })
  .strict();

export type HarnessConfig = z.output<typeof harnessConfigSchema>;
export type ProtocolName = keyof HarnessConfig["protocols"];

/**
 * A playbook pattern is a phrase (matched case-insensitively as a substring) or a regex written `/…/flags`.
 * Regexes are compiled at validation time so a bad one is a validation error, not a crash mid-run: first as a
 * JavaScript regex (syntax and flags), then on RE2, the linear-time engine they run on (src/harness/playbook-match),
 * which has no backreferences or lookaround.
 */
export const PATTERN_REGEX = /^\/(.+)\/([a-z]*)$/s;

const pattern = z
  .string()
  .min(1)
  .max(300)
  .superRefine((text, ctx) => {
    const match = PATTERN_REGEX.exec(text);
    if (!match) {
      if (text.trim() === "") ctx.addIssue({ code: "custom", message: "a phrase may not be blank" });
      return;
    }
    const [source, flags] = [match[1] ?? "", match[2] ?? ""];
    let regex: RegExp;
    try {
      regex = new RegExp(source, flags);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: `not a valid regex: ${(error as Error).message}` });
      return;
    }
    try {
      linearRegex(source, flags);
    } catch (error) {
      ctx.addIssue({
        code: "custom",
        message: `regex needs what the linear-time engine (RE2) cannot do, e.g. a backreference or lookaround: ${(error as Error).message}`,
      });
      return;
    }
    // A pattern that matches the empty string fires on every observation: a rule that stops everything.
    if (regex.test(""))
      ctx.addIssue({
        code: "custom",
        message: `the regex ${text} matches every text, so the rule would always fire`,
      });
  });

export const playbookRuleSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "a rule id is lower-case letters, digits, '_' or '-'"),
    family: z.enum(FAMILIES).optional(),
    when: z.object({ any: z.array(pattern).min(1) }).strict(),
    then: z.enum(["abstain", "verify", "continue"]),
    note: z.string().max(1000).default(""),
    /**
     * How often the rule was in view (src/search/convolve/counters.ts) in an episode that went right (a blocked task
     * deferred timely) or wrong (a feasible task abstained falsely). Optional, so playbooks without them still load.
     */
    helpful: z.number().int().min(0).optional(),
    harmful: z.number().int().min(0).optional(),
  })
  .strict();

export const playbookSchema = z.array(playbookRuleSchema).superRefine((rules, ctx) => {
  const seen = new Set<string>();
  rules.forEach((rule, index) => {
    if (seen.has(rule.id))
      ctx.addIssue({ code: "custom", path: [index, "id"], message: `duplicate rule id '${rule.id}'` });
    seen.add(rule.id);
  });
});

export type PlaybookRule = z.output<typeof playbookRuleSchema>;
