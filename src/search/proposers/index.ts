import { z } from "zod";
import { addToRegistry } from "../../core";
import type { SearchConfig } from "../config/config-schema";
import type { SearchDeps } from "../loop/search-deps";
import { convolveProposer } from "./convolve";
import { llmProposer } from "./llm";
import { operatorsProposer } from "./operators";
import { pluginProposer } from "./plugin";
import type { Proposer, ProposerRole } from "./proposer";

/**
 * The proposers (docs/DESIGN.md §7), one module each; a new one is one module and one line of this list. A proposer
 * with no `form` is chosen by its name (`meta_model: operators`); the config's `meta_model` union, run setup (does
 * it need a model?), the round's call and the commit trailers all go through it.
 */
export const PROPOSERS: Proposer[] = [operatorsProposer, llmProposer, convolveProposer, pluginProposer];

let built: z.ZodType<string> | null = null;

/**
 * Add a proposer from outside this list; returns what removes it again. The config schemas are built from the list:
 * register through src/search/extend.ts, which rebuilds them.
 */
export function addProposer(proposer: Proposer): () => void {
  return addToRegistry(PROPOSERS, proposer, {
    what: "a proposer",
    nameOf: (known) => known.name,
    changed: () => {
      built = null;
    },
  });
}

/** The names `meta_model` takes as they are (the built-ins without a form); a plug-in may not take one. */
export function builtInProposerNames(): string[] {
  return PROPOSERS.filter((proposer) => !proposer.form).map((proposer) => proposer.name);
}

/** The config's `meta_model` field: a built-in's name, or a value of one proposer's form. */
export function metaModelSchema(): z.ZodType<string> {
  if (built) return built;
  const phrases = (of: (proposer: Proposer) => string) => {
    const all = PROPOSERS.map(of);
    return all.length > 1 ? `${all.slice(0, -1).join(", ")}, or ${all.at(-1)}` : (all[0] ?? "");
  };
  const rule = phrases((proposer) => proposer.form?.rule ?? proposer.name);
  const members = PROPOSERS.map((proposer) => proposer.form?.schema(rule) ?? z.literal(proposer.name));
  built = z
    .union(members as unknown as [z.ZodType<string>, ...z.ZodType<string>[]], { error: rule })
    .describe(
      `The proposer: ${phrases((proposer) => proposer.form?.describe ?? `${proposer.name} (built in)`)}.`,
    );
  return built;
}

/** The proposer spec a config names: the proposer role's model when `models.proposer.spec` gives one, else `meta_model`. */
function proposerSpec(config: Pick<SearchConfig, "meta_model" | "models">): string {
  return config.models?.proposer?.spec ?? config.meta_model;
}

/** The proposer of a config (its `meta_model` was checked against the registered ones). */
export function proposerOf(config: Pick<SearchConfig, "meta_model" | "models">): Proposer {
  const spec = proposerSpec(config);
  const proposer = PROPOSERS.find((known) =>
    known.form ? known.form.schema("").safeParse(spec).success : known.name === spec,
  );
  if (!proposer) throw new Error(`no proposer serves meta_model ${spec}`);
  return proposer;
}

/** The model spec the proposer role needs, when the config's proposer calls one. */
export function proposerModelSpec(config: Pick<SearchConfig, "meta_model" | "models">): string | undefined {
  return proposerOf(config).usesModel ? proposerSpec(config) : undefined;
}

/** The model spec of each of the proposer's own roles that the config names (`models.<role>.spec`). */
export function proposerRoleSpecs(
  config: Pick<SearchConfig, "meta_model" | "models">,
): Partial<Record<ProposerRole, string>> {
  const out: Partial<Record<ProposerRole, string>> = {};
  for (const role of proposerOf(config).roles ?? []) {
    const spec = config.models?.[role]?.spec;
    if (spec !== undefined) out[role] = spec;
  }
  return out;
}

/** Who proposed a run's candidates, as commit trailers and status name it. */
export function proposerLabel(deps: SearchDeps): string {
  const proposer = proposerOf(deps.config);
  return proposer.label?.(deps) ?? proposer.name;
}

export {
  type BuiltInProposerContext,
  defineBuiltInProposer,
  type Proposer,
  type ProposerEdit,
  type ProposerForm,
  type ProposerRole,
  type ProposerRun,
  type RolePilotInput,
  type RolePilotResult,
} from "./proposer";
