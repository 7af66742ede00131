import { badInput } from "../core";
import type { ChatModel } from "../models/types";
import type { Judge } from "./judge";
import { LlmJudge, type LlmJudgeOptions } from "./llm-judge";
import { rulesJudge } from "./rules-judge";

/** A judge from its config spelling: `rules` or `llm:<model id>` (the model is resolved by the caller). */
export function createJudge(
  spec: string,
  resolveModel: (modelId: string) => ChatModel,
  options: Omit<LlmJudgeOptions, "model"> = {},
): Judge {
  if (spec === "rules") return rulesJudge;
  if (spec.startsWith("llm:") && spec.length > "llm:".length) {
    return new LlmJudge({ ...options, model: resolveModel(spec.slice("llm:".length)) });
  }
  throw badInput(`unknown judge '${spec}': use 'rules' or 'llm:<model>'`, { field: "judge" });
}
