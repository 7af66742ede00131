/**
 * The price table (config/prices.yaml): USD per million input and output tokens per model-id pattern. Pure lookup
 * and cost arithmetic here; the loader is the only I/O.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import { HsearchError } from "../core";
import type { Usage } from "./types";

export interface PriceEntry {
  /** Glob over `provider:model`; `*` matches any run of characters. */
  pattern: string;
  /** USD per million input tokens. */
  input: number;
  /** USD per million output tokens. */
  output: number;
  /** USD per million prompt tokens read from the provider's prompt cache; default `input`. */
  cache_read?: number;
  /** USD per million prompt tokens written to the provider's prompt cache; default `input`. */
  cache_write?: number;
}

export type PriceTable = readonly PriceEntry[];

export interface CallCost {
  usd: number;
  /** False when no pattern matched: the cost is 0 because the price is unknown, not because the call was free. */
  priced: boolean;
}

const priceFileSchema = z.strictObject({
  prices: z.array(
    z.strictObject({
      pattern: z.string().min(1),
      input: z.number().nonnegative(),
      output: z.number().nonnegative(),
      cache_read: z.number().nonnegative().optional(),
      cache_write: z.number().nonnegative().optional(),
    }),
  ),
});

export const DEFAULT_PRICES_PATH = fileURLToPath(new URL("../../config/prices.yaml", import.meta.url));

export function parsePriceTable(text: string, file: string): PriceTable {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  if (document.errors.length > 0) {
    const first = document.errors[0];
    throw new HsearchError("bad_input", `not valid YAML: ${first?.message ?? "parse error"}`, {
      file,
      line: first?.linePos?.[0]?.line,
    });
  }
  const parsed = priceFileSchema.safeParse(document.toJS());
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = (issue?.path ?? []).filter((part) => typeof part !== "symbol") as Array<string | number>;
    const node = document.getIn(path, true) as { range?: [number, number, number] } | undefined;
    const line = node?.range ? lineCounter.linePos(node.range[0]).line : undefined;
    throw new HsearchError("bad_input", issue?.message ?? "invalid price table", {
      file,
      field: path.join("."),
      line,
    });
  }
  return parsed.data.prices;
}

export function loadPriceTable(path: string = DEFAULT_PRICES_PATH): PriceTable {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new HsearchError("not_found", `cannot read price table: ${(error as Error).message}`, {
      file: path,
    });
  }
  return parsePriceTable(text, path);
}

const compiledPatterns = new Map<string, RegExp>();

/** Compiled once per pattern: the usage meter looks a price up on every call. */
function globToRegExp(pattern: string): RegExp {
  let compiled = compiledPatterns.get(pattern);
  if (!compiled) {
    const escaped = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
    compiled = new RegExp(`^${escaped.join(".*")}$`);
    compiledPatterns.set(pattern, compiled);
  }
  return compiled;
}

/** The most specific (longest) matching entry; the first of equally long ones. */
export function findPrice(table: PriceTable, modelId: string): PriceEntry | undefined {
  let best: PriceEntry | undefined;
  for (const entry of table) {
    if (!globToRegExp(entry.pattern).test(modelId)) continue;
    if (best === undefined || entry.pattern.length > best.pattern.length) best = entry;
  }
  return best;
}

export function costOf(table: PriceTable, modelId: string, usage: Usage): CallCost {
  const price = findPrice(table, modelId);
  if (!price) return { usd: 0, priced: false };
  const read = usage.cache_read_tokens ?? 0;
  const write = usage.cache_write_tokens ?? 0;
  const plainInput = Math.max(0, usage.input_tokens - read - write);
  return {
    usd:
      (plainInput * price.input +
        read * (price.cache_read ?? price.input) +
        write * (price.cache_write ?? price.input) +
        usage.output_tokens * price.output) /
      1_000_000,
    priced: true,
  };
}
