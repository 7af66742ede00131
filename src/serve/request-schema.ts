/**
 * The one schema of a Chat Completions request as `hsearch serve` takes it: every field it reads is typed here, and
 * a body that does not match is a 400 naming the first wrong field (`param`, as OpenAI names it: `messages[0].content`).
 * Fields it passes on or ignores are typed loosely: the backing model or OpenAI's own platform judges them.
 */
import { z } from "zod";

/** Deeper JSON than this is refused before anything walks it (hashing and copying recurse). */
export const MAX_JSON_DEPTH = 64;

const textPart = z.looseObject({ type: z.literal("text"), text: z.string() });
const content = z.union([z.string(), z.array(textPart)]).nullish();

const toolCall = z.looseObject({
  id: z.string(),
  type: z.literal("function").optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string().nullish() }),
});

const message = z.discriminatedUnion(
  "role",
  [
    z.looseObject({ role: z.enum(["system", "developer"]), content }),
    z.looseObject({ role: z.literal("user"), content }),
    z.looseObject({ role: z.literal("assistant"), content, tool_calls: z.array(toolCall).nullish() }),
    z.looseObject({ role: z.literal("tool"), content, tool_call_id: z.string() }),
  ],
  {
    error: (issue) =>
      `Invalid value: '${String(issue.input)}'. Supported values are: 'system', 'developer', 'user', 'assistant' and 'tool'.`,
  },
);

const tool = z.looseObject({
  type: z.literal("function"),
  function: z.looseObject({
    name: z.string(),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
  }),
});

const positiveInteger = z.number().int().min(1).nullish();
const unknownField = z.unknown().optional();

export const chatRequestSchema = z.strictObject({
  model: z.string().min(1),
  messages: z.array(message).min(1),
  tools: z.array(tool).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  max_tokens: positiveInteger,
  max_completion_tokens: positiveInteger,
  reasoning_effort: z.enum(["minimal", "low", "medium", "high"]).nullish(),
  n: z.number().int().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  presence_penalty: z.number().nullish(),
  frequency_penalty: z.number().nullish(),
  logit_bias: z.record(z.string(), z.number()).nullish(),
  response_format: unknownField,
  tool_choice: unknownField,
  parallel_tool_calls: z.boolean().nullish(),
  seed: z.number().int().nullish(),
  user: unknownField,
  metadata: unknownField,
  store: unknownField,
  service_tier: unknownField,
  logprobs: unknownField,
  top_logprobs: unknownField,
  modalities: unknownField,
});

export type ChatRequestBody = z.infer<typeof chatRequestSchema>;

/** OpenAI's name of a field: `messages[0].tool_calls[1].function`. */
export function paramOf(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) => (typeof key === "number" ? `[${key}]` : `${index === 0 ? "" : "."}${String(key)}`))
    .join("");
}

/** Whether JSON nests deeper than `limit`, found without recursion (a body can be nested 100,000 deep). */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [at, depth] = next;
    if (at === null || typeof at !== "object") continue;
    if (depth > limit) return true;
    for (const child of Object.values(at)) stack.push([child, depth + 1]);
  }
  return false;
}
