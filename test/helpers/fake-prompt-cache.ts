/**
 * Anthropic's prompt cache as its documentation describes it, for the fake server: a request is a prefix in the
 * order tools → system → messages; a block carrying `cache_control` is a breakpoint (at most 4 per request, else the
 * API answers 400); the longest breakpoint prefix already cached is read (`cache_read_input_tokens`, billed at 0.1×
 * the input price), the prefix up to the last breakpoint is written when it is not cached yet
 * (`cache_creation_input_tokens`, 1.25×), and the rest is `input_tokens`. A prefix shorter than the model's minimum
 * (1,024 tokens for Sonnet 4.5) is never cached. Tokens are estimated as characters / 4 of each block's JSON, the
 * same estimate on every arm of a comparison. Entries never expire (a benchmark runs well inside the 5-minute TTL).
 *
 * `accountOpenAI` models OpenAI's automatic prompt caching instead: no markers; a prompt of at least 1,024 tokens is
 * cached at every boundary between its parts (tools, then messages), and a later prompt with the same prefix reports
 * the longest cached one, rounded down to 1,024 + a multiple of 128 tokens, as `prompt_tokens_details.cached_tokens`.
 */
import { createHash } from "node:crypto";

export interface PromptCacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export const MAX_BREAKPOINTS = 4;
const OPENAI_MINIMUM_TOKENS = 1024;

interface Block {
  tokens: number;
  /** Canonical text of the block without its cache marker: what the prefix hash covers. */
  text: string;
  breakpoint: boolean;
}

const estimateTokens = (text: string) => Math.ceil(text.length / 4);

function blockOf(value: unknown): Block {
  const { cache_control, ...rest } = (value ?? {}) as Record<string, unknown>;
  const text = JSON.stringify(rest);
  return { tokens: estimateTokens(text), text, breakpoint: cache_control !== undefined };
}

/** An OpenAI chat.completions request's parts in prefix order: each tool, then each message. */
function openAIBlocksOf(body: Record<string, unknown>): Block[] {
  const tools = ((body.tools as unknown[] | undefined) ?? []).map(blockOf);
  const messages = ((body.messages as unknown[] | undefined) ?? []).map(blockOf);
  return [...tools, ...messages];
}

/** The request's blocks in Anthropic's prefix order: each tool, each system block, then each message's blocks. */
function blocksOf(body: Record<string, unknown>): Block[] {
  const blocks: Block[] = [];
  for (const tool of (body.tools as unknown[] | undefined) ?? []) blocks.push(blockOf(tool));
  const system = body.system;
  if (typeof system === "string") blocks.push(blockOf({ type: "text", text: system }));
  else for (const part of (system as unknown[] | undefined) ?? []) blocks.push(blockOf(part));
  for (const message of (body.messages as Array<{ role: string; content: unknown }> | undefined) ?? []) {
    const content =
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : (message.content as unknown[]);
    // The role is part of what a block means: the same text from the user and the assistant are different prefixes.
    for (const part of content) {
      const block = blockOf(part);
      blocks.push({ ...block, text: `${message.role}:${block.text}` });
    }
  }
  return blocks;
}

export class FakePromptCache {
  private readonly entries = new Set<string>();
  readonly totals: PromptCacheUsage & { requests: number } = {
    requests: 0,
    input_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };

  constructor(private readonly minimumTokens = 1024) {}

  /** The usage of one request (and the cache updated), or an error message as the API would send it. */
  account(body: Record<string, unknown>): PromptCacheUsage | { error: string } {
    const blocks = blocksOf(body);
    const breakpoints = blocks.flatMap((block, index) => (block.breakpoint ? [index] : []));
    if (breakpoints.length > MAX_BREAKPOINTS)
      return {
        error: `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints.length}.`,
      };
    const hash = createHash("sha256");
    const prefixes: Array<{ key: string; tokens: number; breakpoint: boolean }> = [];
    let tokens = 0;
    for (const block of blocks) {
      hash.update(block.text).update("\0");
      tokens += block.tokens;
      prefixes.push({ key: hash.copy().digest("hex"), tokens, breakpoint: block.breakpoint });
    }
    const total = tokens;
    const cacheable = prefixes.filter((prefix) => prefix.breakpoint && prefix.tokens >= this.minimumTokens);
    const hit = cacheable.filter((prefix) => this.entries.has(prefix.key)).at(-1);
    const read = hit?.tokens ?? 0;
    const last = cacheable.at(-1);
    const written = last && !this.entries.has(last.key) ? last.tokens - read : 0;
    for (const prefix of cacheable) this.entries.add(prefix.key);
    const usage = {
      input_tokens: total - read - written,
      cache_creation_input_tokens: written,
      cache_read_input_tokens: read,
    };
    this.count(usage);
    return usage;
  }

  /** OpenAI's automatic caching: `prompt_tokens` (cached ones included) and `cached_tokens`. */
  accountOpenAI(body: Record<string, unknown>): { prompt_tokens: number; cached_tokens: number } {
    const hash = createHash("sha256");
    let tokens = 0;
    let cached = 0;
    for (const block of openAIBlocksOf(body)) {
      hash.update(block.text).update("\0");
      tokens += block.tokens;
      const key = hash.copy().digest("hex");
      if (tokens < OPENAI_MINIMUM_TOKENS) continue;
      if (this.entries.has(key)) cached = tokens;
      this.entries.add(key);
    }
    const reported = cached === 0 ? 0 : cached - ((cached - OPENAI_MINIMUM_TOKENS) % 128);
    this.count({
      input_tokens: tokens - reported,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: reported,
    });
    return { prompt_tokens: tokens, cached_tokens: reported };
  }

  private count(usage: PromptCacheUsage): void {
    this.totals.requests += 1;
    this.totals.input_tokens += usage.input_tokens;
    this.totals.cache_creation_input_tokens += usage.cache_creation_input_tokens;
    this.totals.cache_read_input_tokens += usage.cache_read_input_tokens;
  }
}

/** A scripted reply (either fake's) with its usage replaced by the prompt cache's. */
export function withUsage<R>(reply: R, usage: Record<string, unknown>): R {
  (reply as { json: { usage: unknown } }).json.usage = usage;
  return reply;
}

/** OpenAI's usage object for a call the cache accounted, `completion` output tokens. */
export function openAIUsage(cached: { prompt_tokens: number; cached_tokens: number }, completion: number) {
  return {
    prompt_tokens: cached.prompt_tokens,
    completion_tokens: completion,
    total_tokens: cached.prompt_tokens + completion,
    prompt_tokens_details: { cached_tokens: cached.cached_tokens },
  };
}
