/**
 * The parameter fallback layer (LiteLLM's `drop_params`, learnt from the provider): the model-name rule of
 * settings.ts is the first guess at what a model takes; when the provider still answers a 400 that names a
 * parameter the model does not take (rejected-parameter.ts), the call is sent again once without it (or with its
 * replacement), and the model's memory keeps the rejection, so every later call of that model, in any role, leaves
 * it out from the start. The memory says once what it learnt (`onLearn`); a run stores it (run.db), so a resumed run
 * does not ask again. A 400 that names nothing, or names what the request cannot go without, stays an error.
 */
import type { ChatModelMiddleware } from "./middleware";
import type { ParameterFallbacks } from "./provider";
import { ProviderError } from "./provider-error";
import { type ParameterRejection, withoutRejected } from "./rejected-parameter";
import type { ModelRole } from "./settings";
import type { ChatRequest } from "./types";

/** One learnt rejection: which model refused which parameter, and the role whose call met it first. */
export interface LearntRejection extends ParameterRejection {
  /** The model id (`openai:prod-gpt-5-mini`). */
  model: string;
  role: ModelRole;
}

/** What the layer knows of each model's rejections; one memory is shared by every role of a command. */
export interface RejectionMemory {
  /** The rejections known for `model`, oldest first. */
  known(model: string): readonly ParameterRejection[];
  /** Record a rejection; true when it is new (false when another call of the model learnt it first). */
  learn(rejection: LearntRejection): boolean;
}

/**
 * A memory in this process, starting from `known` (a resumed run's stored rejections); `onLearn` is called once
 * per new (model, parameter), e.g. to print it and store it.
 */
export function createRejectionMemory(
  options: { known?: readonly LearntRejection[]; onLearn?: (rejection: LearntRejection) => void } = {},
): RejectionMemory {
  const byModel = new Map<string, LearntRejection[]>();
  const add = (rejection: LearntRejection): boolean => {
    const list = byModel.get(rejection.model) ?? [];
    if (list.some((known) => known.parameter === rejection.parameter)) return false;
    list.push(rejection);
    byModel.set(rejection.model, list);
    return true;
  };
  for (const rejection of options.known ?? []) add(rejection);
  return {
    known: (model) => byModel.get(model) ?? [],
    learn: (rejection) => {
      const added = add(rejection);
      if (added) options.onLearn?.(rejection);
      return added;
    },
  };
}

/** A request without what the model is known to reject (each rejection that applies to it). */
export function withoutKnown(
  request: ChatRequest,
  known: readonly ParameterRejection[],
  fallbacks: ParameterFallbacks,
): ChatRequest {
  let out = request;
  for (const rejection of known) out = withoutRejected(out, rejection, fallbacks) ?? out;
  return out;
}

/** Parameters one call may drop in turn (a deployment may refuse its temperature, then its max_tokens). */
const MAX_DROPS_PER_CALL = 4;

/**
 * The layer: sits outside the request cache (which then keys on what is really sent) and outside retry (whose
 * final `ProviderError` carries the rejection a 400 named).
 */
export function withParameterFallback(
  memory: RejectionMemory,
  role: ModelRole,
  fallbacks: ParameterFallbacks,
): ChatModelMiddleware {
  return (inner) => ({
    id: inner.id,
    provider: inner.provider,
    async generate(request, options) {
      let current = withoutKnown(request, memory.known(inner.id), fallbacks);
      const dropped = new Set<string>();
      for (;;) {
        try {
          return await inner.generate(current, options);
        } catch (error) {
          const rejection = error instanceof ProviderError ? error.rejection : undefined;
          if (!rejection || dropped.has(rejection.parameter) || dropped.size >= MAX_DROPS_PER_CALL)
            throw error;
          const next = withoutRejected(current, rejection, fallbacks);
          if (next === null) throw error;
          dropped.add(rejection.parameter);
          memory.learn({ ...rejection, model: inner.id, role });
          current = next;
        }
      }
    },
  });
}

/**
 * One line for the user: what the model rejected and what is sent instead. `learnt`: as it happens; `known`: a
 * rejection learnt before (a resumed run at its start, `hsearch status`).
 */
export function describeRejection(rejection: LearntRejection, when: "learnt" | "known"): string {
  const { model, parameter, replacement, role, message } = rejection;
  if (when === "known")
    return replacement === null
      ? `${model}: '${parameter}' is left out of every call (the provider rejected it in the ${role}'s call: ${message})`
      : `${model}: '${replacement}' is sent instead of '${parameter}' (the provider rejected it in the ${role}'s call: ${message})`;
  const change =
    replacement === null
      ? "the call was sent again without it, and every later call of this model leaves it out"
      : `the call was sent again with '${replacement}' instead, as is every later call of this model`;
  return `${model} rejected '${parameter}' in the ${role}'s call (${message}); ${change}`;
}
