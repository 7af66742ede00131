import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HsearchError } from "../../src/core/errors";
import { costOf, findPrice, loadPriceTable, type PriceTable, parsePriceTable } from "../../src/models/prices";

const table: PriceTable = [
  { pattern: "openai:gpt-4o*", input: 2.5, output: 10 },
  { pattern: "openai:gpt-4o-mini*", input: 0.15, output: 0.6 },
  { pattern: "sim:*", input: 0, output: 0 },
];

describe("price lookup", () => {
  it("takes the most specific (longest) matching pattern, whatever the order", () => {
    expect(findPrice(table, "openai:gpt-4o-mini-2024-07-18")?.input).toBe(0.15);
    expect(findPrice(table, "openai:gpt-4o")?.input).toBe(2.5);
  });

  it("matches the whole id, treating regex characters literally", () => {
    expect(findPrice([{ pattern: "openai:gpt-4.1", input: 2, output: 8 }], "openai:gpt-4x1")).toBeUndefined();
    expect(findPrice(table, "xopenai:gpt-4o")).toBeUndefined();
  });

  it("costs tokens per million, and flags an unknown model as unpriced at 0", () => {
    const cost = costOf(table, "openai:gpt-4o", { input_tokens: 1_000_000, output_tokens: 500_000 });
    expect(cost).toEqual({ usd: 7.5, priced: true });
    expect(costOf(table, "sim:default", { input_tokens: 50, output_tokens: 50 })).toEqual({
      usd: 0,
      priced: true,
    });
    expect(costOf(table, "openai:mystery", { input_tokens: 50, output_tokens: 50 })).toEqual({
      usd: 0,
      priced: false,
    });
  });
});

describe("price table files", () => {
  it("loads config/prices.yaml and prices the offline models at 0", () => {
    const prices = loadPriceTable();
    expect(prices.length).toBeGreaterThan(10);
    expect(costOf(prices, "sim:default", { input_tokens: 9, output_tokens: 9 }).priced).toBe(true);
    expect(costOf(prices, "oracle", { input_tokens: 9, output_tokens: 9 }).priced).toBe(true);
    expect(costOf(prices, "openai:gpt-4o-mini", { input_tokens: 1_000_000, output_tokens: 0 }).usd).toBe(
      0.15,
    );
  });

  it("names the file, field and line of a bad entry", () => {
    const text =
      "prices:\n  - pattern: a*\n    input: 1\n    output: 2\n  - pattern: b*\n    input: -1\n    output: 2\n";
    let caught: unknown;
    try {
      parsePriceTable(text, "prices.yaml");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(HsearchError);
    const error = caught as HsearchError;
    expect(error.code).toBe("bad_input");
    expect(error.location).toEqual({ file: "prices.yaml", field: "prices.1.input", line: 6 });
  });

  it("rejects YAML that does not parse, and a file that does not exist", () => {
    const dir = mkdtempSync(join(tmpdir(), "hsearch-prices-"));
    const broken = join(dir, "broken.yaml");
    writeFileSync(broken, "prices: [\n");
    expect(() => loadPriceTable(broken)).toThrow(/not valid YAML/);
    expect(() => loadPriceTable(join(dir, "absent.yaml"))).toThrow(/cannot read price table/);
  });
});
