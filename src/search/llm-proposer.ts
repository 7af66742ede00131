import { readFileSync } from "node:fs";
import { z } from "zod";
import { HsearchError } from "../core/errors";
import type { ChatModel } from "../models/types";
import { type ObjectiveName, objectiveOf } from "../scoring/objective";
import type { RejectedProposal } from "../store";
import type { Digest } from "./digest";
import type { Proposal } from "./proposal";

/**
 * The `llm` proposer: a meta-agent prompt (src/search/prompts/meta-agent.md) with the incumbent's files, the
 * digest and the memory of rejected proposals; its reply is a documented JSON format, validated here. An invalid or
 * empty reply is recorded and retried, never silently dropped.
 */
const PROMPT = readFileSync(new URL("./prompts/meta-agent.md", import.meta.url), "utf8");

export const metaReplySchema = z
  .object({
    proposals: z
      .array(
        z
          .object({
            rationale: z.string().min(1).max(2000),
            edits: z
              .array(z.object({ path: z.string().min(1), content: z.string().nullable() }).strict())
              .min(1),
          })
          .strict(),
      )
      .min(1),
  })
  .strict();

export interface MetaAgentInput {
  files: Record<string, string>;
  digest: Digest;
  rejected: readonly RejectedProposal[];
  count: number;
  objective: ObjectiveName;
}

export function renderMetaPrompt(input: MetaAgentInput): string {
  const files = Object.entries(input.files)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, content]) => `### ${path}\n\`\`\`\n${content}\n\`\`\``)
    .join("\n\n");
  const rejected =
    input.rejected.length === 0
      ? "(none yet)"
      : input.rejected
          .map(
            (r) =>
              `- round ${r.round} p${r.proposal} (${r.outcome}${r.reason ? `: ${r.reason}` : ""}): ${r.rationale}`,
          )
          .join("\n");
  const objective = objectiveOf(input.objective).description;
  return PROMPT.replaceAll("{{objective}}", objective)
    .replaceAll("{{harness_files}}", files)
    .replaceAll("{{digest}}", `\`\`\`json\n${JSON.stringify(input.digest, null, 2)}\n\`\`\``)
    .replaceAll("{{rejected}}", rejected)
    .replaceAll("{{count}}", String(input.count))
    .replaceAll('{{"{{policy}}"}}', "{{policy}}")
    .replaceAll('{{"{{protocols}}"}}', "{{protocols}}")
    .replaceAll('{{"{{playbook}}"}}', "{{playbook}}");
}

/** Parse a meta-agent reply: the JSON object (optionally in a ```json fence), validated. */
export function parseMetaReply(content: string | null): Proposal[] {
  const text = (content ?? "").trim();
  if (text === "") throw new HsearchError("model_reply", "the meta-agent's reply is empty");
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = fenced?.[1] ?? text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    throw new HsearchError("model_reply", `the meta-agent's reply is not JSON: ${(error as Error).message}`);
  }
  const parsed = metaReplySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HsearchError(
      "model_reply",
      `the meta-agent's reply does not follow the format: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`,
    );
  }
  return parsed.data.proposals.map((p) => ({
    rationale: p.rationale,
    operator: "llm",
    files: Object.fromEntries(p.edits.map((edit) => [edit.path, edit.content])),
  }));
}

export interface LlmProposalResult {
  proposals: Proposal[];
  /** Replies that failed validation, in order, with the reason: recorded by the caller. */
  failures: string[];
}

/** Ask the meta-agent up to `attempts` times until it gives a valid reply. */
export async function proposeByLlm(
  model: ChatModel,
  input: MetaAgentInput,
  options: {
    seed: number;
    attempts?: number;
    onCall?: (usage: { input_tokens: number; output_tokens: number }) => void;
  },
): Promise<LlmProposalResult> {
  const prompt = renderMetaPrompt(input);
  const failures: string[] = [];
  const attempts = options.attempts ?? 3;
  for (let attempt = 0; attempt < attempts; attempt++) {
    let content: string | null;
    try {
      const response = await model.generate({
        messages: [{ role: "user", content: prompt }],
        tools: [],
        temperature: 0.7,
        seed: options.seed,
        repeat: attempt,
      });
      options.onCall?.(response.usage);
      content = response.content;
    } catch (error) {
      if (error instanceof HsearchError && error.code === "model_reply") {
        failures.push(error.message);
        continue;
      }
      throw error;
    }
    try {
      return { proposals: parseMetaReply(content).slice(0, input.count), failures };
    } catch (error) {
      if (!(error instanceof HsearchError)) throw error;
      failures.push(error.message);
    }
  }
  return { proposals: [], failures };
}
