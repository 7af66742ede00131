/**
 * ATIF (Harbor's RFC 0001, "Agent Trajectory Interchange Format", v1.4) as a JSON schema written from the RFC's
 * field list: the root, agent, step, tool call, observation and final metrics objects with exactly the RFC's
 * fields (no others: `extra` is where a writer's own data goes), their types and required fields. The RFC's rules
 * a schema cannot state — step ids sequential from 1, an observation's `source_call_id` naming a tool call of its
 * step, `model_name` only on agent steps — are `atifProblems`.
 */
import Ajv2020 from "ajv/dist/2020";

const object = { type: "object" } as const;

export const ATIF_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  additionalProperties: false,
  required: ["schema_version", "session_id", "agent", "steps"],
  properties: {
    schema_version: { type: "string", pattern: "^ATIF-v1\\.[0-9]+$" },
    session_id: { type: "string", minLength: 1 },
    agent: {
      type: "object",
      additionalProperties: false,
      required: ["name", "version"],
      properties: {
        name: { type: "string", minLength: 1 },
        version: { type: "string", minLength: 1 },
        model_name: { type: "string" },
        extra: object,
      },
    },
    steps: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["step_id", "source", "message"],
        properties: {
          step_id: { type: "integer", minimum: 1 },
          timestamp: { type: "string" },
          source: { enum: ["system", "user", "agent"] },
          model_name: { type: "string" },
          reasoning_effort: { type: ["string", "number"] },
          message: { type: "string" },
          reasoning_content: { type: "string" },
          tool_calls: {
            type: "array",
            items: {
              type: "object",
              additionalProperties: false,
              required: ["tool_call_id", "function_name", "arguments"],
              properties: {
                tool_call_id: { type: "string", minLength: 1 },
                function_name: { type: "string", minLength: 1 },
                arguments: object,
              },
            },
          },
          observation: {
            type: "object",
            additionalProperties: false,
            required: ["results"],
            properties: {
              results: {
                type: "array",
                items: {
                  type: "object",
                  additionalProperties: false,
                  properties: {
                    source_call_id: { type: "string" },
                    content: { type: "string" },
                    subagent_trajectory_ref: { type: "array" },
                  },
                },
              },
            },
          },
          metrics: object,
          extra: object,
        },
      },
    },
    notes: { type: "string" },
    final_metrics: {
      type: "object",
      additionalProperties: false,
      properties: {
        total_prompt_tokens: { type: "integer", minimum: 0 },
        total_completion_tokens: { type: "integer", minimum: 0 },
        total_cached_tokens: { type: "integer", minimum: 0 },
        total_cost_usd: { type: "number", minimum: 0 },
        total_steps: { type: "integer", minimum: 0 },
        extra: object,
      },
    },
    continued_trajectory_ref: { type: "string" },
    extra: object,
  },
} as const;

const validate = new Ajv2020({ allErrors: true, strict: false }).compile(ATIF_SCHEMA);

interface Step {
  step_id: number;
  source: string;
  model_name?: string;
  tool_calls?: Array<{ tool_call_id: string }>;
  observation?: { results: Array<{ source_call_id?: string }> };
}

/** What is wrong with `value` as an ATIF trajectory (none: valid). */
export function atifProblems(value: unknown): string[] {
  if (!validate(value))
    return (validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message}`);
  const problems: string[] = [];
  const { steps, final_metrics } = value as { steps: Step[]; final_metrics?: { total_steps?: number } };
  steps.forEach((step, index) => {
    if (step.step_id !== index + 1)
      problems.push(`/steps/${index}/step_id is ${step.step_id}, not ${index + 1}`);
    if (step.model_name !== undefined && step.source !== "agent")
      problems.push(`/steps/${index}: model_name on a ${step.source} step`);
    const calls = new Set((step.tool_calls ?? []).map((call) => call.tool_call_id));
    for (const result of step.observation?.results ?? [])
      if (result.source_call_id !== undefined && !calls.has(result.source_call_id))
        problems.push(
          `/steps/${index}: source_call_id ${result.source_call_id} names no tool call of the step`,
        );
  });
  if (final_metrics?.total_steps !== undefined && final_metrics.total_steps !== steps.length)
    problems.push(`/final_metrics/total_steps is ${final_metrics.total_steps}, not ${steps.length}`);
  return problems;
}
