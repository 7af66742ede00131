import { type AcceptanceRule, addAcceptanceRule } from "./acceptance";
import type { RuleSchema } from "./acceptance/rule";
import { rebuildConfigSchemas } from "./config/config-schema";
import { addProposer, type Proposer } from "./proposers";

/**
 * Registering a rule or proposer at run time (an embedding program, a test), beside the registry lists in source
 * (acceptance/index.ts, proposers/index.ts): the config schemas are rebuilt, so a config naming it parses, plans and
 * runs like one naming a listed one. Each returns what removes it again (and rebuilds the schemas).
 */
export function registerAcceptanceRule<S extends RuleSchema>(rule: AcceptanceRule<S>): () => void {
  return rebuilding(addAcceptanceRule(rule as unknown as AcceptanceRule));
}

export function registerProposer(proposer: Proposer): () => void {
  return rebuilding(addProposer(proposer));
}

function rebuilding(remove: () => void): () => void {
  rebuildConfigSchemas();
  return () => {
    remove();
    rebuildConfigSchemas();
  };
}
