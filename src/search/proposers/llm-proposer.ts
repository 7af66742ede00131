import { readFileSync } from "node:fs";
import { z } from "zod";
import { HsearchError } from "../../core";
import type { ChatModel, ChatResponse } from "../../models/types";
import { type ObjectiveName, objectiveOf } from "../../scoring";
import type { Digest, FamilyRow } from "./digest";
import type { Proposal } from "./proposal";
import type { ProposerInput } from "./proposer-input";
import { estimateTokens, trimToTokens } from "./text-budget";

/**
 * The `llm` proposer: a meta-agent prompt (src/search/proposers/prompts/meta-agent.md) rendered from the proposer input
 * (src/search/proposers/proposer-input.ts) within a token budget — what `hsearch digest` prints; its reply is a documented JSON
 * format, validated here. An invalid or empty reply is recorded and retried, never silently dropped. The prompt
 * names candidates by their stable names (`seed`, `r1p0`), never by commit id, so the same run in another directory
 * sends the same request (and a shared request cache answers it).
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

export interface MetaAgentInput extends ProposerInput {
  count: number;
  objective: ObjectiveName;
  /** `proposer.max_prompt_tokens`. */
  maxTokens: number;
}

/**
 * What is left out, in this order, until the prompt fits `maxTokens` (estimated): diffs of all but the 6 latest
 * rejected proposals; the ordinary observations; examples down to 2, then 1 per family × mode; every rejected diff;
 * the moments of each example (its decisive observation stays); all but the 10 latest rejected proposals. The
 * harness files, the tables and the answer format are never cut.
 */
const TRIM_LEVELS = [
  { diffs: Infinity, ordinary: 8, perCell: Infinity, moments: true, rejected: Infinity },
  { diffs: 6, ordinary: 8, perCell: Infinity, moments: true, rejected: Infinity },
  { diffs: 6, ordinary: 0, perCell: Infinity, moments: true, rejected: Infinity },
  { diffs: 6, ordinary: 0, perCell: 2, moments: true, rejected: Infinity },
  { diffs: 6, ordinary: 0, perCell: 1, moments: true, rejected: Infinity },
  { diffs: 0, ordinary: 0, perCell: 1, moments: true, rejected: Infinity },
  { diffs: 0, ordinary: 0, perCell: 1, moments: false, rejected: Infinity },
  { diffs: 0, ordinary: 0, perCell: 1, moments: false, rejected: 10 },
] as const;
type TrimLevel = (typeof TRIM_LEVELS)[number];

export function renderMetaPrompt(input: MetaAgentInput): string {
  let prompt = "";
  for (const level of TRIM_LEVELS) {
    prompt = withCandidateNames(renderAt(input, level), input.names);
    if (estimateTokens(prompt) <= input.maxTokens) return prompt;
  }
  return prompt;
}

/**
 * Commit ids (whole, or cut to 12 characters as stored reasons and rationales cut them) replaced by the candidates'
 * stable names: a commit id holds the run id (a trailer), so a prompt with one would differ in every run.
 */
export function withCandidateNames(text: string, names: Readonly<Record<string, string>>): string {
  let out = text;
  for (const [commit, name] of Object.entries(names))
    out = out.replaceAll(commit, name).replaceAll(commit.slice(0, 12), name);
  return out;
}

function renderAt(input: MetaAgentInput, level: TrimLevel): string {
  const files = Object.entries(input.harness.files)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, content]) => `### ${path}\n\`\`\`\n${content}\n\`\`\``)
    .join("\n\n");
  const objective = objectiveOf(input.objective).description;
  return PROMPT.replaceAll("{{objective}}", objective)
    .replaceAll("{{score}}", input.incumbent.score.toFixed(4))
    .replaceAll("{{harness_files}}", files)
    .replaceAll("{{system_prompts}}", systemPrompts(input))
    .replaceAll("{{families}}", familiesSection(input))
    .replaceAll("{{modes}}", modesSection(input.digest))
    .replaceAll("{{examples}}", examplesSection(input.digest, level))
    .replaceAll("{{lineage}}", lineageSection(input))
    .replaceAll("{{rejected}}", rejectedSection(input, level))
    .replaceAll("{{count}}", String(input.count))
    .replaceAll('{{"{{policy}}"}}', "{{policy}}")
    .replaceAll('{{"{{protocols}}"}}', "{{protocols}}")
    .replaceAll('{{"{{playbook}}"}}', "{{playbook}}");
}

function systemPrompts(input: MetaAgentInput): string {
  const protocols = input.protocols
    .map((p) => `- \`${p.name}\` (${p.enabled ? "on" : "off"}): ${p.description}`)
    .join("\n");
  const suites = input.suites
    .map(
      (s) =>
        `### ${s.suite}\nTools: ${s.tools.map((t) => `\`${t}\``).join(", ")}\n\n\`\`\`\n${s.system_prompt}\n\`\`\``,
    )
    .join("\n\n");
  return `Protocols (harness.yaml \`protocols\`):\n${protocols}\n\n${suites}`;
}

const pct = (x: number | undefined | null) => (x === undefined || x === null ? "–" : x.toFixed(2));

function familyLines(rows: readonly FamilyRow[]): string[] {
  return rows.map((r) => {
    const b = r.blocked;
    const f = r.feasible;
    return `| ${r.family} | ${b?.n ?? 0} | ${pct(b?.m0)} | ${pct(b?.m1)} | ${pct(b?.m2)} | ${pct(b?.m3)} | ${pct(b?.strict_sa)} | ${pct(b?.absrec1)} | ${f?.n ?? 0} | ${pct(f?.false_abstention)} | ${pct(f?.solve)} |`;
  });
}

function familiesSection(input: MetaAgentInput): string {
  const head =
    "| family | blocked n | M0 | M1 | M2 | M3 | strict SA | AbsRec@1 | feasible n | false abstention | solve |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |";
  const incumbent = `Incumbent (${input.incumbent.name}, score ${input.incumbent.score.toFixed(4)}):\n\n${head}\n${familyLines(input.digest.families).join("\n")}`;
  if (!input.parent) return `${incumbent}\n\n(The incumbent is the seed: it has no parent.)`;
  const parent = `Its parent (${input.parent.name}, score ${pct(input.parent.score)}):\n\n${head}\n${familyLines(input.parent.families).join("\n")}`;
  return `${incumbent}\n\n${parent}`;
}

function modesSection(digest: Digest): string {
  const entries = Object.entries(digest.modes);
  if (entries.length === 0) return "(none)";
  const lines = entries.map(([mode, n]) => `- ${mode}: ${n}`);
  if (digest.rules_in_false_abstentions.length > 0)
    lines.push(
      `- playbook rules cited in false abstentions: ${digest.rules_in_false_abstentions.join(", ")}`,
    );
  return lines.join("\n");
}

function examplesSection(digest: Digest, level: TrimLevel): string {
  const taken = new Map<string, number>();
  const blocks: string[] = [];
  for (const example of digest.failures) {
    const cell = `${example.family ?? "feasible"} × ${example.mode}`;
    const count = taken.get(cell) ?? 0;
    if (count >= level.perCell) continue;
    taken.set(cell, count + 1);
    const lines = [`### ${cell}: task ${example.task_id}, step ${example.step}`];
    lines.push(`What the agent saw before acting: ${quote(example.excerpt)}`);
    if (level.moments)
      for (const m of example.moments)
        lines.push(`- step ${m.step}, ${m.who}: ${m.text.replaceAll("\n", " ")}`);
    lines.push(`Next: ${example.next_action}.`);
    if (example.deferral_reason !== null)
      lines.push(`The agent's stated reason: ${quote(example.deferral_reason)}`);
    blocks.push(lines.join("\n"));
  }
  const ordinary = digest.ordinary_observations.slice(0, level.ordinary);
  if (ordinary.length > 0)
    blocks.push(
      `### Observations from solved feasible tasks (a stopping rule that matches these stops good work)\n${ordinary.map((o) => `- ${quote(trimToTokens(o, 60))}`).join("\n")}`,
    );
  return blocks.length === 0 ? "(no failures)" : blocks.join("\n\n");
}

function quote(text: string): string {
  return `«${text.replaceAll("\n", " ")}»`;
}

function lineageSection(input: MetaAgentInput): string {
  if (input.lineage.length === 0) return "(none yet: the incumbent is the seed)";
  return input.lineage
    .map(
      (step) =>
        `- round ${step.round} ${step.name}: score ${pct(step.score)} (Δ ${step.delta === null ? "–" : `${step.delta >= 0 ? "+" : ""}${step.delta.toFixed(4)}`}): ${step.rationale}`,
    )
    .join("\n");
}

function rejectedSection(input: MetaAgentInput, level: TrimLevel): string {
  if (input.rejected.length === 0) return "(none yet)";
  const shown = input.rejected.slice(-level.rejected);
  const withDiff = new Set(shown.slice(Math.max(0, shown.length - level.diffs)));
  const lines = shown.map((r) => {
    const head = `- round ${r.round} p${r.proposal} (${r.outcome}${r.score !== null ? `, score ${r.score.toFixed(4)}` : ""}${r.reason ? `: ${r.reason}` : ""}): ${r.rationale}`;
    return withDiff.has(r) && r.diff ? `${head}\n\`\`\`diff\n${r.diff.trimEnd()}\n\`\`\`` : head;
  });
  const left = input.rejected.length - shown.length;
  return `${left > 0 ? `(${left} earlier ones left out)\n` : ""}${lines.join("\n")}`;
}

/** Parse a meta-agent reply: the JSON object (optionally in a ```json fence), validated. */
export function parseMetaReply(content: string | null): Proposal[] {
  return parseJsonReply(content, metaReplySchema, "the meta-agent's reply").proposals.map((p) => ({
    rationale: p.rationale,
    operator: "llm",
    files: Object.fromEntries(p.edits.map((edit) => [edit.path, edit.content])),
  }));
}

/**
 * A model's JSON reply (bare, or in a ```json fence) validated by `schema`; a `model_reply` error says why not, naming
 * the first offending field. `who` begins the message ("the meta-agent's reply").
 */
export function parseJsonReply<T extends z.ZodType>(
  content: string | null,
  schema: T,
  who: string,
): z.output<T> {
  const text = (content ?? "").trim();
  if (text === "") throw new HsearchError("model_reply", `${who} is empty`);
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = fenced?.[1] ?? text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1);
  if (body.trim() === "")
    throw new HsearchError(
      "model_reply",
      `${who} holds no JSON object: ${JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text)}`,
    );
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    throw new HsearchError("model_reply", `${who} is not JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HsearchError(
      "model_reply",
      `${who} does not follow the format: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`,
    );
  }
  return parsed.data;
}

export interface LlmProposalResult {
  proposals: Proposal[];
  /** Replies that failed validation, in order, with the reason: recorded by the caller. */
  failures: string[];
}

/** Replies the meta-agent may give per call by default (the call plan's bound, plan-calls.ts). */
export const PROPOSER_ATTEMPTS = 3;

/**
 * One try of a model the proposer side asks (the meta-agent, CONVOLVE's roles): the prompt as the only message, no
 * tools, a sampling temperature so a retry can differ, and the attempt as the seeded request's repeat.
 */
export function askOnce(
  model: ChatModel,
  prompt: string,
  seed: number,
  attempt: number,
): Promise<ChatResponse> {
  return model.generate({
    messages: [{ role: "user", content: prompt }],
    tools: [],
    temperature: 0.7,
    seed,
    repeat: attempt,
  });
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
  const attempts = options.attempts ?? PROPOSER_ATTEMPTS;
  for (let attempt = 0; attempt < attempts; attempt++) {
    let content: string | null;
    try {
      const response = await askOnce(model, prompt, options.seed, attempt);
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
