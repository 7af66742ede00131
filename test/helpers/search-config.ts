import { writeFileSync } from "node:fs";
import { stringify } from "yaml";
import type { z } from "zod";
import type { searchConfigFileSchema } from "../../src/search/config/config-schema";

/** What a search config file may say, as `hsearch run` reads it (typed by the real file schema). */
export type SearchConfigFile = z.input<typeof searchConfigFileSchema>;

/**
 * A small search on the simulator: the shipped retail suite (or `tasks`), the bare seed harness, one round of one
 * proposal. A test names what its subject depends on in `overrides`.
 */
export function searchConfig(overrides: Partial<SearchConfigFile> = {}): SearchConfigFile {
  return {
    name: "test",
    suites: ["retail"],
    objective: "joint",
    seed_harness: "harnesses/bare",
    rounds: 1,
    proposals_per_round: 1,
    task_model: "sim:default",
    ...overrides,
  };
}

/** The models of each role on one provider, as a search config names them. */
export function rolesOn(
  provider: string,
  models: { agent: string; proposer: string; judge: string; customer: string },
): Pick<SearchConfigFile, "task_model" | "meta_model" | "judge" | "customer"> {
  return {
    task_model: `${provider}:${models.agent}`,
    meta_model: `${provider}:${models.proposer}`,
    judge: `llm:${provider}:${models.judge}`,
    customer: `llm:${provider}:${models.customer}`,
  };
}

/**
 * Write `config` to `file`: JSON when the name ends in .json, YAML otherwise. Not validated, so that a test may write
 * a config the loader must refuse (give such a value with a cast, where the type would not allow it).
 */
export function writeSearchConfig(file: string, config: SearchConfigFile): string {
  writeFileSync(file, file.endsWith(".json") ? `${JSON.stringify(config, null, 2)}\n` : stringify(config));
  return file;
}
