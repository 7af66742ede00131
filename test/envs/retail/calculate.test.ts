import { describe, expect, it } from "vitest";
import { CalculateError, calculate } from "../../../src/envs/retail/calculate";

/** Expected answers are Python 3.11's `str(round(float(eval(e, {"__builtins__": None}, {})), 2))`. */
const PYTHON: Array<[string, string]> = [
  ["2+2", "4.0"],
  ["(1 + 2) * 3.5 / 7", "1.5"],
  ["100/3", "33.33"],
  ["2**-1", "0.5"],
  ["-2**2", "-4.0"],
  ["2**3**2", "512.0"],
  ["1//0.1", "9.0"],
  ["-7//2", "-4.0"],
  ["7.5//-2", "-4.0"],
  ["3//2", "1.0"],
  ["2.675", "2.67"],
  ["1.005", "1.0"],
  ["0.125", "0.12"],
  ["0.375", "0.38"],
  ["-0.125", "-0.12"],
  ["0.1+0.2", "0.3"],
  ["123456789012345678*10", "1.2345678901234568e+18"],
  ["10**16", "1e+16"],
  ["0.00001", "0.0"],
  ["-0.0", "-0.0"],
  ["-0", "0.0"],
  ["1/3*3", "1.0"],
  ["99999999999999999999.555", "1e+20"],
  ["2**0.5", "1.41"],
  ["00", "0.0"],
  ["1.", "1.0"],
  [".5", "0.5"],
  ["((2))", "2.0"],
  ["-(-(-3))", "-3.0"],
  ["--3", "3.0"],
  ["+-+3", "-3.0"],
  ["  1 +  1", "2.0"],
];

const PYTHON_ERRORS: Array<[string, string]> = [
  ["1/0", "division by zero"],
  ["1.0/0", "float division by zero"],
  ["1//0", "integer division or modulo by zero"],
  ["1.0//0", "float floor division by zero"],
  ["0**-1", "0.0 cannot be raised to a negative power"],
  ["(-8)**(1/3)", "float() argument must be a string or a real number, not 'complex'"],
  ["10.0**400", "(34, 'Numerical result out of range')"],
  [
    "01",
    "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
  ],
  ["()", "float() argument must be a string or a real number, not 'tuple'"],
  ["() 1", "invalid syntax (<string>, line 1)"],
  ["1 2", "invalid syntax (<string>, line 1)"],
  ["5 .5", "invalid syntax (<string>, line 1)"],
  ["1.2.3", "invalid syntax (<string>, line 1)"],
  ["2***3", "invalid syntax (<string>, line 1)"],
  ["(1", "'(' was never closed (<string>, line 1)"],
  ["1+(2*3", "'(' was never closed (<string>, line 1)"],
  ["1)", "unmatched ')' (<string>, line 1)"],
  ["1 2)", "unmatched ')' (<string>, line 1)"],
  ["(1 2", "'(' was never closed (<string>, line 1)"],
  [
    "01 (",
    "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
  ],
  ["", "invalid syntax (<string>, line 0)"],
  ["1e3", "Invalid characters in expression"],
  ["abs(-1)", "Invalid characters in expression"],
  ["1,5", "Invalid characters in expression"],
];

describe("calculate", () => {
  it.each(PYTHON)("%s → %s", (expression, expected) => {
    expect(calculate(expression)).toBe(expected);
  });

  it.each(PYTHON_ERRORS)("%s raises %s", (expression, message) => {
    expect(() => calculate(expression)).toThrow(new CalculateError(message));
  });

  it("survives pathological input without exhausting the stack (Python itself fails on the long ones)", () => {
    expect(calculate(`${"(".repeat(200)}1${")".repeat(200)}`)).toBe("1.0");
    expect(() => calculate(`${"(".repeat(201)}1${")".repeat(201)}`)).toThrow(
      new CalculateError("too many nested parentheses (<string>, line 1)"),
    );
    expect(calculate(Array(300).fill("1").join("**"))).toBe("1.0");
    expect(calculate(`${"-".repeat(100_001)}1`)).toBe("-1.0");
    expect(calculate(Array(100_000).fill("1").join("+"))).toBe("100000.0");
    expect(() => calculate("9**999999")).toThrow("exponent too large");
  });
});
