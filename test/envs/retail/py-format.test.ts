import { describe, expect, it } from "vitest";
import { pyFloatRepr, pyJsonDumps, pyRound2 } from "../../../src/envs/retail/py-format";

/** Expected values are Python 3.11's repr(), round(x, 2) and json.dumps(). */
describe("Python formatting", () => {
  it("prints floats as repr() does", () => {
    expect(pyFloatRepr(100)).toBe("100.0");
    expect(pyFloatRepr(47.84)).toBe("47.84");
    expect(pyFloatRepr(1e16)).toBe("1e+16");
    expect(pyFloatRepr(12345678901234568)).toBe("1.2345678901234568e+16");
    expect(pyFloatRepr(1e22)).toBe("1e+22");
    expect(pyFloatRepr(1.5e-5)).toBe("1.5e-05");
    expect(pyFloatRepr(1e-4)).toBe("0.0001");
    expect(pyFloatRepr(0.1 + 0.2)).toBe("0.30000000000000004");
    expect(pyFloatRepr(-0)).toBe("-0.0");
    expect(pyFloatRepr(Number.POSITIVE_INFINITY)).toBe("inf");
    expect(pyFloatRepr(Number.NaN)).toBe("nan");
  });

  it("rounds to cents as round(x, 2) does: exact binary value, exact ties to even", () => {
    expect(pyRound2(0.125)).toBe(0.12);
    expect(pyRound2(0.375)).toBe(0.38);
    expect(pyRound2(-0.125)).toBe(-0.12);
    expect(pyRound2(2.675)).toBe(2.67);
    expect(pyRound2(1.005)).toBe(1);
    expect(pyRound2(0.015)).toBe(0.01);
    expect(pyRound2(0.025)).toBe(0.03);
    expect(pyRound2(1234.565)).toBe(1234.57);
    expect(pyRound2(68 + 1412.7)).toBe(1480.7);
    expect(Object.is(pyRound2(-0.0025), -0)).toBe(true);
    expect(pyRound2(2 ** 50 + 0.125)).toBe(2 ** 50 + 0.125);
  });

  it("dumps JSON as json.dumps does: spaced separators, ensure_ascii, floats", () => {
    expect(pyJsonDumps({ a: 'é\u007f\n"x', b: [1, null, true] })).toBe(
      '{"a": "\\u00e9\\u007f\\n\\"x", "b": [1.0, null, true]}',
    );
    expect(pyJsonDumps({ b: 1, a: 2 }, { sortKeys: true })).toBe('{"a": 2.0, "b": 1.0}');
    const object = { "2": "two", "10": "ten" };
    expect(pyJsonDumps(object, { keyOrder: () => ["10", "2"] })).toBe('{"10": "ten", "2": "two"}');
  });
});
