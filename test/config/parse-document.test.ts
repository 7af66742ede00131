import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DOCUMENT_LIMITS, parsePositioned, validateDocument } from "../../src/config/parse-document";
import { HsearchError } from "../../src/core/errors";

const schema = z.object({ a: z.object({ b: z.array(z.number()) }), c: z.enum(["x", "y"]) }).strict();

function errorOf(text: string, file = "f.yaml"): HsearchError {
  try {
    validateDocument(schema, parsePositioned(text, file));
  } catch (error) {
    if (error instanceof HsearchError) return error;
    throw error;
  }
  throw new Error("expected an error");
}

describe("positioned validation", () => {
  it("accepts a valid document", () => {
    expect(validateDocument(schema, parsePositioned("a: {b: [1]}\nc: x\n", "f.yaml"))).toEqual({
      a: { b: [1] },
      c: "x",
    });
  });

  it("names the field and line of a wrong value", () => {
    const error = errorOf("a:\n  b: [1, 2, 'q']\nc: x\n");
    expect(error.code).toBe("bad_input");
    expect(error.location).toEqual({ file: "f.yaml", field: "a.b.2", line: 2 });
    expect(error.describe()).toMatch(/^f\.yaml:2: field 'a\.b\.2': /);
  });

  it("points at an unknown key itself", () => {
    expect(errorOf("a:\n  b: [1]\nc: x\nextra: 3\n").location).toMatchObject({ field: "extra", line: 4 });
  });

  it("points at the parent when a required field is missing", () => {
    expect(errorOf("c: x\n").location).toMatchObject({ field: "a" });
  });

  it("reports malformed YAML and JSON with a line", () => {
    expect(errorOf("a: [\n").message).toMatch(/malformed YAML/);
    const json = errorOf('{\n  "a": {"b": [1]},\n  "c": "x",,\n}', "t.json");
    expect(json.message).toMatch(/malformed JSON/);
    expect(json.location.line).toBe(3);
  });

  it("rejects duplicate keys", () => {
    expect(errorOf("a: {b: [1]}\nc: x\nc: y\n").message).toMatch(/malformed YAML/);
    // In JSON too (JSON.parse alone would keep the last), at any depth and however the key is escaped.
    const json = errorOf('{\n  "a": {"b": [1], "\\u0062": [2]},\n  "c": "x"\n}', "t.json");
    expect(json.message).toMatch(/malformed JSON: Map keys must be unique/);
    expect(json.location.line).toBe(2);
    // The same key in two objects, or as a string value, is no duplicate.
    const fine = '{"a": {"b": [1]}, "c": "x", "x": [{"c": "b"}, {"c": "a"}]}';
    expect(validateDocument(schema.extend({ x: z.unknown() }), parsePositioned(fine, "t.json")).c).toBe("x");
  });

  it("reads a JSON document to what the YAML parser reads, and still names lines in it", () => {
    const text =
      '{\n\t"a": {"b": [1, 2.50, -0, 1e3]},\n\t"c": "x",\n\t"d": ["\\u00e9\\"\\\\", null, true, {}]\n}';
    const json = parsePositioned(text, "t.json");
    const yaml = parsePositioned(text, "t.yaml");
    expect(json.value).toEqual(yaml.value);
    expect(Object.is((json.value as { a: { b: number[] } }).a.b[2], -0)).toBe(true);
    expect(json.lineOf(["d", 1])).toBe(4);
    const error = errorOf('{\n  "a": {"b": [1]},\n  "c": "z"\n}', "t.json");
    expect(error.location).toEqual({ file: "t.json", field: "c", line: 3 });
  });

  describe("resource limits: a hostile document is bad input naming its file, never a crash", () => {
    it("an alias bomb (billion laughs)", () => {
      const levels = ["a: &a [x, x, x, x, x, x, x, x, x]"];
      for (const [i, name] of ["b", "c", "d", "e", "f", "g"].entries()) {
        const prev = String.fromCharCode("a".charCodeAt(0) + i);
        levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(", ")}]`);
      }
      const error = errorOf(`${levels.join("\n")}\n`, "bomb.yaml");
      expect(error.code).toBe("bad_input");
      expect(error.location.file).toBe("bomb.yaml");
      expect(error.message).toMatch(/aliases expand past the limit/);
    });

    it("a few aliases stay fine", () => {
      const doc = parsePositioned("x: &x {b: [1]}\na: *x\nc: x\n", "ok.yaml");
      expect(validateDocument(schema.extend({ x: z.unknown() }), doc).a).toEqual({ b: [1] });
    });

    it("nesting deeper than the limit, as flow collections (a parser stack overflow) and as block maps", () => {
      const flow = errorOf(`a: ${"[".repeat(20_000)}${"]".repeat(20_000)}\n`, "deep.yaml");
      expect(flow.message).toMatch(/nested deeper than the limit of 64 levels/);
      expect(flow.location.file).toBe("deep.yaml");
      // JSON in a flow collection is refused before the YAML parser sees it (it ran out of memory on it in a
      // vitest worker), with the line where the limit is passed; one level shallower parses.
      const json = errorOf(`{"a":\n ${"[".repeat(20_000)}${"]".repeat(20_000)}}`, "deep.json");
      expect(json.message).toMatch(/nested deeper than the limit of 64 levels/);
      expect(json.location).toMatchObject({ file: "deep.json", line: 2 });
      const nested = (levels: number) => `{"a": ${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;
      expect(() => parsePositioned(nested(DOCUMENT_LIMITS.maxDepth), "ok.json")).not.toThrow();
      expect(() => parsePositioned(nested(DOCUMENT_LIMITS.maxDepth), "ok.yaml")).not.toThrow();
      expect(errorOf(nested(DOCUMENT_LIMITS.maxDepth + 1), "deep.json").message).toMatch(/nested deeper/);
      expect(errorOf(nested(DOCUMENT_LIMITS.maxDepth + 1), "deep.yaml").message).toMatch(/nested deeper/);
      const depth = DOCUMENT_LIMITS.maxDepth + 1;
      const block = Array.from({ length: depth }, (_, i) => `${" ".repeat(i)}k:`).join("\n");
      const error = errorOf(`${block} 1\n`, "deep-map.yaml");
      expect(error.message).toMatch(/nested deeper than the limit/);
      expect(error.location.line).toBe(depth);
      // One level shallower parses.
      const within = Array.from({ length: depth - 1 }, (_, i) => `${" ".repeat(i)}k:`).join("\n");
      expect(() => parsePositioned(`${within} 1\n`, "ok.yaml")).not.toThrow();
    });

    it("a document over the size limit", () => {
      const error = errorOf(`c: "${"x".repeat(DOCUMENT_LIMITS.maxBytes)}"\n`, "big.json");
      expect(error.message).toMatch(/JSON document of \d+ bytes is over the limit/);
      expect(error.location.file).toBe("big.json");
    });
  });
});
