/**
 * Every model a command builds, by role (agent, proposer, judge, customer), each with its own settings and usage
 * meter: cost and tokens add up per role, and `budget.max_usd` can count every role.
 */
import { createRejectionMemory } from "./parameter-fallback";
import { findPrice, type PriceTable } from "./prices";
import type { ProviderDefinition } from "./provider";
import {
  type CreateChatModelOptions,
  createChatModel,
  extraDefinitions,
  parseModelSpec,
  providerOf,
} from "./registry";
import { MODEL_ROLES, type ModelRole, type ModelSettings } from "./settings";
import type { ChatModel } from "./types";
import { addRoleUsage, type RoleUsage, roleUsageOf, UsageMeter } from "./usage";

/** What a command names per role; judge and customer as the CLI and the search config spell them. */
export interface RoleSpecs {
  agent: string;
  /** The proposer's model; absent for the operators. */
  proposer?: string;
  /** `rules` or `llm:<model>`. */
  judge: string;
  /** `auto` (default: the LLM customer with a real task model, scripted with sim/oracle), `scripted`, `llm:<model>`. */
  customer: string;
  /** The convolve proposer's models; absent: its offline reflector and curator. */
  reflector?: string;
  curator?: string;
}

export interface RoleModelOptions extends Omit<CreateChatModelOptions, "meter" | "role" | "settings"> {
  prices: PriceTable;
  settings?: Partial<Record<ModelRole, ModelSettings>>;
  /** Called once per model id that has no price (its cost is then unknown). */
  warn?: (message: string) => void;
  /** The meters to count each role's calls in (a worker's count per rollout); default a fresh one per role. */
  meters?: Record<ModelRole, UsageMeter>;
}

export interface RoleModels {
  agent: ChatModel;
  proposer?: ChatModel;
  /** The LLM judge's model; absent for the rules judge. */
  judge?: ChatModel;
  /** The LLM customer's model; absent for the scripted customer. */
  customer?: ChatModel;
  reflector?: ChatModel;
  curator?: ChatModel;
  /** Usage so far, per role (a role with no model shows zeros). */
  usage(): Record<ModelRole, RoleUsage>;
  /** Usage so far per role and model, for a run's store (roles without calls left out). */
  usageRows(): ModelUsageRow[];
}

/** One role's usage of one model. */
export interface ModelUsageRow extends RoleUsage {
  role: ModelRole;
  model: string;
}

/** Whether a spec's provider is real (paid, remote: its definition says) rather than the offline simulator or oracle. */
export function isRealModelSpec(spec: string, extras: readonly ProviderDefinition[] = []): boolean {
  return providerOf(parseModelSpec(spec).provider, extras)?.real ?? false;
}

/** The customer's model spec, or undefined for the scripted customer (`extras`: providers beyond the registered). */
export function customerModelSpec(
  customer: string,
  agentSpec: string,
  extras: readonly ProviderDefinition[] = [],
): string | undefined {
  if (customer === "scripted") return undefined;
  if (customer === "auto") return isRealModelSpec(agentSpec, extras) ? agentSpec : undefined;
  if (customer.startsWith("llm:") && customer.length > 4) return customer.slice(4);
  return undefined;
}

/** The judge's model spec, or undefined for the rules judge. */
export function judgeModelSpec(judge: string): string | undefined {
  return judge.startsWith("llm:") && judge.length > 4 ? judge.slice(4) : undefined;
}

export function createRoleModels(specs: RoleSpecs, options: RoleModelOptions): RoleModels {
  const {
    prices,
    settings = {},
    warn,
    meters = roleMeters(prices),
    // One memory for every role: what one role's call learnt, the others' calls of that model know.
    rejections = createRejectionMemory(),
    ...modelOptions
  } = options;
  const warned = new Set<string>();
  const build = (role: ModelRole, spec: string | undefined): ChatModel | undefined => {
    if (spec === undefined) return undefined;
    const model = createChatModel(spec, {
      ...modelOptions,
      meter: meters[role],
      rejections,
      role,
      settings: settings[role],
    });
    if (!findPrice(prices, model.id) && !warned.has(model.id)) {
      warned.add(model.id);
      warn?.(`no price for ${model.id} in config/prices.yaml; cost shown as unknown`);
    }
    return model;
  };
  const agent = build("agent", specs.agent) as ChatModel;
  return {
    agent,
    proposer: build("proposer", specs.proposer),
    judge: build("judge", judgeModelSpec(specs.judge)),
    customer: build(
      "customer",
      customerModelSpec(specs.customer, specs.agent, extraDefinitions(modelOptions.extraProviders)),
    ),
    reflector: build("reflector", specs.reflector),
    curator: build("curator", specs.curator),
    usage: () =>
      Object.fromEntries(MODEL_ROLES.map((role) => [role, roleUsageOf(meters[role].totals())])) as Record<
        ModelRole,
        RoleUsage
      >,
    usageRows: () => usageRowsOf(meters),
  };
}

/** A fresh meter per role. */
export function roleMeters(prices: PriceTable): Record<ModelRole, UsageMeter> {
  return Object.fromEntries(MODEL_ROLES.map((role) => [role, new UsageMeter(prices)])) as Record<
    ModelRole,
    UsageMeter
  >;
}

/** What the meters counted, per role and model (roles without calls left out). */
export function usageRowsOf(meters: Record<ModelRole, UsageMeter>): ModelUsageRow[] {
  return MODEL_ROLES.flatMap((role) =>
    meters[role].byModel().map(({ model, usage }) => ({ role, model, ...usage })),
  );
}

/** Rows of the same role and model added together (the run's meters and the workers' reports). */
export function mergeUsageRows(rows: readonly ModelUsageRow[]): ModelUsageRow[] {
  const merged = new Map<string, ModelUsageRow>();
  for (const row of rows) {
    const key = `${row.role}\n${row.model}`;
    const known = merged.get(key);
    merged.set(key, known ? { ...known, ...addRoleUsage([known, row]) } : { ...row });
  }
  return [...merged.values()];
}
