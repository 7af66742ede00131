import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parsePositioned, validateDocument } from "../../src/config/parse-document";
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
  });
});
