/**
 * Python's number and JSON formatting, so that observations read exactly as τ² prints them (τ² answers with
 * `json.dumps(model.model_dump())`, and every number in the retail schema is a Python float: `100.0`, not `100`).
 */

/** Python `repr(float)`: shortest round-trip digits, like JS, but `.0` on integers and exponents from 1e16 / below 1e-4. */
export function pyFloatRepr(value: number): string {
  if (Number.isNaN(value)) return "nan";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const magnitude = Math.abs(value);
  if (magnitude >= 1e16 || magnitude < 1e-4) {
    // JS "1.5e-7" → Python "1.5e-07": same digits, exponent padded to two places.
    const [mantissa, exponent = "0"] = value.toExponential().split("e");
    const sign = exponent.startsWith("-") ? "-" : "+";
    const digits = exponent.replace(/^[-+]/, "").padStart(2, "0");
    return `${mantissa}e${sign}${digits}`;
  }
  const text = String(value);
  return Number.isInteger(value) ? `${text}.0` : text;
}

/**
 * Python `round(value, 2)` on a float: the exact binary value rounded to cents, exact ties to even. `toFixed` rounds the
 * exact value too but sends ties away from zero; a float is an exact tie only when it is an odd multiple of 1/8.
 */
export function pyRound2(value: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  // From 2^49 the spacing of floats is at least 1/16: the nearest float to the rounded decimal is the value itself.
  if (Math.abs(value) >= 2 ** 49) return value;
  const eighths = value * 8;
  if (Number.isInteger(eighths) && !Number.isInteger(value * 4)) {
    const twiceCents = BigInt(eighths) * 25n; // odd: the value sits exactly half-way between two cents
    const low = (twiceCents - 1n) / 2n;
    const even = low % 2n === 0n ? low : low + 1n;
    return Number.parseFloat(`${even}e-2`);
  }
  const rounded = Number(value.toFixed(2));
  return rounded === 0 ? (value < 0 ? -0 : 0) : rounded;
}

export interface DumpOptions {
  sortKeys?: boolean;
  /** The key order of an object, when it is not the JS order (a Python dict with integer-like keys). */
  keyOrder?: (object: object) => readonly string[] | undefined;
}

/** Python `json.dumps(value)` (default separators `, ` and `: `, ensure_ascii), numbers printed as Python floats. */
export function pyJsonDumps(value: unknown, options: DumpOptions = {}): string {
  return dump(value, options);
}

function dump(value: unknown, options: DumpOptions): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return pyJsonString(value);
  if (typeof value === "number") return pyJsonNumber(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map((item) => dump(item, options)).join(", ")}]`;
  if (typeof value === "object") {
    const keys = options.sortKeys
      ? Object.keys(value).sort()
      : (options.keyOrder?.(value) ?? Object.keys(value));
    const parts: string[] = [];
    for (const key of keys)
      parts.push(`${pyJsonString(key)}: ${dump((value as Record<string, unknown>)[key], options)}`);
    return `{${parts.join(", ")}}`;
  }
  throw new TypeError(`cannot serialise a ${typeof value}`);
}

function pyJsonNumber(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
  return pyFloatRepr(value);
}

const PLAIN_ASCII = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;
const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/g;

/** JSON string with Python's ensure_ascii: everything outside printable ASCII as a lower-case \uXXXX escape. */
export function pyJsonString(text: string): string {
  if (PLAIN_ASCII.test(text)) return `"${text}"`;
  return JSON.stringify(text).replace(
    NOT_PRINTABLE_ASCII,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
