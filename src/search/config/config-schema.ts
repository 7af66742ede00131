import { z } from "zod";
import { DEFAULT_CONCURRENCY } from "../../core";
import { SUITES } from "../../domain";
import { IMAGE_SOURCES } from "../../envs";
import { HARNESS_LIMITS } from "../../harness";
import { DEFAULT_MAX_REPLY_CHARS, DEFAULT_TIMEOUT_MS, roleModelsSchema } from "../../models";
import { objectiveSchema } from "../../scoring";
import { acceptanceSchema } from "../acceptance";
import type { AcceptanceConfig } from "../acceptance/config";
import { metaModelSchema } from "../proposers";
import { modelSpec, modulePath } from "./config-fields";

/** The search config (docs/DESIGN.md §3). `hsearch run` reads it; `schemas/search-config.schema.json` is generated from it. */
const SUITE_RULE = "a suite is retail, terminal, or the path of a suite module (./my-suite.mjs)";
const suiteEntry = z
  .union([z.enum(SUITES), modulePath(SUITE_RULE)], { error: SUITE_RULE })
  .describe(
    "retail, terminal, or the path of a plug-in suite module (./my-suite.mjs, relative to the config file).",
  );
function buildConfigSchema() {
  return z
    .object({
      name: z
        .string()
        .min(1)
        .regex(/^[A-Za-z0-9._-]+$/, "letters, digits, '.', '_' or '-'"),
      description: z.string().optional(),
      suites: z.array(suiteEntry).min(1),
      tasks: z.string().optional().describe("A task directory instead of the shipped suites."),
      objective: objectiveSchema,
      seed_harness: z.string().min(1),
      rounds: z.number().int().min(0).max(200),
      proposals_per_round: z.number().int().min(1).max(20),
      repeats: z.number().int().min(1).max(20).default(1),
      task_model: modelSpec,
      // One member per proposer module (src/search/proposers): a built-in by name, a model, a module path.
      meta_model: (metaModelSchema() as z.ZodType<string>).default("operators"),
      judge: z
        .string()
        .regex(/^(rules|llm:.+)$/, "rules or llm:<model>")
        .default("rules"),
      customer: z
        .string()
        .regex(/^(auto|scripted|llm:.+)$/, "auto, scripted or llm:<model>")
        .default("auto")
        .describe(
          "auto: the task model plays the retail customer when it is a real model; scripted with sim/oracle.",
        ),
      models: roleModelsSchema
        .optional()
        .describe(
          "Per-role model settings (agent, proposer, judge, customer; reflector and curator for meta_model convolve): temperature, max_tokens, reasoning_effort, thinking, top_p, seed, prompt_cache, extra; null = not sent.",
        ),
      cache: z
        .object({
          dir: z
            .string()
            .min(1)
            .default("run")
            .describe(
              "run: the run directory; user: $XDG_CACHE_HOME/hsearch (else ~/.cache/hsearch), shared by every run; or a directory, relative to the config file. Keyed by the canonical request, seed and repeat.",
            ),
        })
        .strict()
        .default({ dir: "run" })
        .describe(
          "The request cache of every role's model calls: a call already answered is not sent again.",
        ),
      strategy: z
        .enum(["greedy", "pareto"])
        .default("greedy")
        .describe(
          "greedy: every round proposes from the incumbent; pareto: from a seeded draw of the front of candidates best on at least one search-task family, admitting a proposal when it gains on its parent and no member dominates it.",
        ),
      // One member per rule module (src/search/acceptance), told apart by `rule`.
      acceptance: (acceptanceSchema() as z.ZodType<AcceptanceConfig>).default({
        rule: "greater",
        early_reject: false,
      }),
      early_stop: z
        .object({ patience: z.number().int().min(1).nullable().default(null) })
        .strict()
        .default({ patience: null })
        .describe("Stop after this many rounds without an accepted proposal."),
      heldout: z
        .object({
          final: z
            .boolean()
            .default(true)
            .describe("Evaluate the selected and the seed harness on heldout and independent."),
          per_round: z
            .boolean()
            .default(false)
            .describe("Diagnostics only: never read by proposers or acceptance."),
        })
        .strict()
        .default({ final: true, per_round: false }),
      proposer: z
        .object({
          max_prompt_tokens: z
            .number()
            .int()
            .min(2000)
            .max(1_000_000)
            .default(32_000)
            .describe(
              "The llm proposer's prompt budget (estimated as characters / 4); trimmed in a fixed order.",
            ),
          examples_per_cell: z
            .number()
            .int()
            .min(1)
            .max(20)
            .default(3)
            .describe("Failure examples per family × failure mode in the digest (seeded choice)."),
          trajectories: z
            .number()
            .int()
            .min(1)
            .max(1000)
            .default(20)
            .describe(
              "meta_model convolve: at most this many search-split trajectories per round reach the reflector (seeded draw).",
            ),
        })
        .strict()
        .default({ max_prompt_tokens: 32_000, examples_per_cell: 3, trajectories: 20 }),
      concurrency: z
        .number()
        .int()
        .min(1)
        .max(256)
        .default(DEFAULT_CONCURRENCY)
        .describe(
          "Rollouts in flight at once (over all workers with --workers); the same number bounds the model calls in flight per provider and base URL.",
        ),
      max_infra_error_rate: z
        .number()
        .min(0)
        .max(1)
        .default(0.05)
        .describe(
          "Stop the run (exit 1, first provider error printed) when more than this share of a candidate's rollouts end in an infrastructure error after retries.",
        ),
      seed: z.number().int().min(0).default(1),
      budget: z
        .object({
          max_rollouts: z
            .number()
            .int()
            .min(1)
            .nullable()
            .default(null)
            .describe("Rollouts of every purpose."),
          max_usd: z
            .number()
            .gt(0)
            .nullable()
            .default(null)
            .describe("Spend of every role: agent, customer, judge, proposer."),
          max_minutes: z
            .number()
            .gt(0)
            .nullable()
            .default(null)
            .describe("Active minutes over every session of the run."),
        })
        .strict()
        .default({ max_rollouts: null, max_usd: null, max_minutes: null })
        .describe("Limits: no rollout starts once one is reached; the run stops as budget_exhausted."),
      limits: z
        .object({
          harness_file_chars: z
            .number()
            .int()
            .min(1_000)
            .max(10_000_000)
            .default(HARNESS_LIMITS.template_chars)
            .describe(
              "Characters of one harness template (system.md, a prompt): the seed and every proposal.",
            ),
          harness_total_chars: z
            .number()
            .int()
            .min(1_000)
            .max(40_000_000)
            .default(HARNESS_LIMITS.total_chars)
            .describe("Characters of all harness files together."),
          model_reply_chars: z
            .number()
            .int()
            .min(1_000)
            .max(100_000_000)
            .default(DEFAULT_MAX_REPLY_CHARS)
            .describe("Characters of one model reply (text and tool calls); a longer one is never stored."),
          model_call_seconds: z
            .number()
            .gt(0)
            .max(3_600)
            .default(DEFAULT_TIMEOUT_MS / 1000)
            .describe(
              "Seconds a model call (every role) may go unanswered; then it is abandoned and retried like a 5xx.",
            ),
        })
        .strict()
        .default({
          harness_file_chars: HARNESS_LIMITS.template_chars,
          harness_total_chars: HARNESS_LIMITS.total_chars,
          model_reply_chars: DEFAULT_MAX_REPLY_CHARS,
          model_call_seconds: DEFAULT_TIMEOUT_MS / 1000,
        })
        .describe(
          "Limits on input a run reads: harness files and model replies, and how long a model call may take.",
        ),
      image_source: z
        .enum(IMAGE_SOURCES)
        .optional()
        .describe(
          "Where a terminal task with a prebuilt image (Harbor's docker_image) gets it: auto (pull it, else build its Dockerfile), prebuilt or dockerfile. Default auto, or HSEARCH_IMAGE_SOURCE.",
        ),
      metrics: z
        .array(
          z
            .object({
              module: z.string().min(1).describe("The module's absolute path."),
              sha256: z.string().regex(/^[0-9a-f]{64}$/, "a sha256 in hex"),
            })
            .strict(),
        )
        .optional()
        .describe(
          "The run's own metric modules (src/search/config/metric-modules.ts), as stored: path and content hash.",
        ),
    })
    .strict();
}

/**
 * The stored config's schema, as of the registered acceptance rules and proposers: its `acceptance` and `meta_model`
 * fields are built from their registries, and rebuilt when one is registered (src/search/extend.ts). Read it where
 * it is used (an ES module binding follows the rebuild), never keep a copy.
 */
export let searchConfigSchema = buildConfigSchema();

export type SearchConfig = z.output<typeof searchConfigSchema>;

/**
 * What a config file may say: the stored (resolved) config's schema, except that `models` may name a models file
 * (the `--models` format of eval and probe), read by load-config.ts, so one block serves several configs.
 */
function buildConfigFileSchema(config: ReturnType<typeof buildConfigSchema>) {
  return config.extend({
    task_model: modelSpec
      .optional()
      .describe("The agent's model; may be left out when models.agent.spec names it (which wins otherwise)."),
    models: z
      .union([
        z.string().min(1).describe("A YAML file of per-role model blocks, relative to this config."),
        roleModelsSchema,
      ])
      .optional()
      .describe(
        "Per-role model settings (agent, proposer, judge, customer; reflector and curator for meta_model convolve): temperature, max_tokens, reasoning_effort, thinking, top_p, seed, prompt_cache, extra; null = not sent. Or the path of a file of such blocks.",
      ),
    metrics: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "Modules of your own metrics, relative to this config: each default-exports a metric (defineMetric from hsearch) or an array of them; status, report and view show them.",
      ),
  });
}

/** The file schema, rebuilt with the stored config's schema. */
export let searchConfigFileSchema = buildConfigFileSchema(searchConfigSchema);

/** Build both schemas again from the registries (after a rule or proposer was registered or removed). */
export function rebuildConfigSchemas(): void {
  searchConfigSchema = buildConfigSchema();
  searchConfigFileSchema = buildConfigFileSchema(searchConfigSchema);
}
