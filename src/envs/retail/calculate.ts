/**
 * τ²'s `calculate` tool: `str(round(float(eval(expression)), 2))` on an expression of digits, `+ - * / ( ) .` and
 * spaces. The whitelist still admits Python's `**` and `//`, its int/float distinction and its error messages, so this is
 * a small Python arithmetic evaluator: it parses first (syntax errors win, as in Python's compile step), then evaluates
 * left to right with Python's precedence. Ints are exact (BigInt). Known approximations, all far from a calculator's use:
 * true division of ints beyond 2^53 rounds twice; powers beyond 100,000 bits and chains of over 1,000 `**` are refused;
 * an empty tuple `()` always fails with float()'s message (Python's message depends on what surrounds it); very long
 * sums or sign runs, where Python's compiler gives up, are evaluated.
 */
import { pyFloatRepr, pyRound2 } from "./py-format";

export class CalculateError extends Error {}

const ALLOWED = /^[0-9+\-*/(). ]*$/;
const MAX_NESTING = 200; // Python's tokenizer limit on open parentheses
const MAX_POWER_CHAIN = 1000; // nested `a ** b ** …`: keeps the recursive parser well inside the JS stack
const MAX_POWER_BITS = 100_000;

type Value = { kind: "int"; value: bigint } | { kind: "float"; value: number };
type Node =
  | { type: "number"; value: Value }
  /** `()`, an empty tuple: Python fails on any arithmetic with it, and on float() of it. */
  | { type: "tuple" }
  | { type: "negate"; operand: Node }
  /** A left-associative run `first op node op node …`, kept flat so a long sum needs no deep recursion. */
  | { type: "chain"; first: Node; rest: Array<{ op: BinaryOp; node: Node }> }
  | { type: "power"; base: Node; exponent: Node };
type BinaryOp = "+" | "-" | "*" | "/" | "//" | "**";

/** The tool's answer text; throws CalculateError with Python's message when Python would raise. */
export function calculate(expression: string): string {
  if (!ALLOWED.test(expression)) throw new CalculateError("Invalid characters in expression");
  const tree = new Parser(expression).parse();
  return pyFloatRepr(pyRound2(toFloat(evaluate(tree))));
}

function syntaxError(line = 1): CalculateError {
  return new CalculateError(`invalid syntax (<string>, line ${line})`);
}

type Token = { kind: "number"; text: string } | { kind: "op"; text: string };

/**
 * Python's tokenizer errors come before any syntax error, in the order met: a literal with leading zeros, a ')' with
 * nothing open; then, at the end, a '(' never closed.
 */
function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let open = 0;
  const number = /\d+\.?\d*|\.\d+/y;
  let index = 0;
  while (index < source.length) {
    const char = source[index] as string;
    if (char === " ") {
      index++;
      continue;
    }
    number.lastIndex = index;
    const match = number.exec(source);
    if (match) {
      if (/^0+[1-9]/.test(match[0]) && !match[0].includes(".")) throw leadingZeros();
      tokens.push({ kind: "number", text: match[0] });
      index = number.lastIndex;
      continue;
    }
    const pair = source.slice(index, index + 2);
    const text = pair === "**" || pair === "//" ? pair : char;
    if (text === ".") throw syntaxError();
    if (text === "(" && ++open > MAX_NESTING)
      throw new CalculateError("too many nested parentheses (<string>, line 1)");
    if (text === ")" && --open < 0) throw new CalculateError("unmatched ')' (<string>, line 1)");
    tokens.push({ kind: "op", text });
    index += text.length;
  }
  if (open > 0) throw new CalculateError("'(' was never closed (<string>, line 1)");
  return tokens;
}

function leadingZeros(): CalculateError {
  return new CalculateError(
    "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
  );
}

function parseNumber(text: string): Value {
  if (text.includes("."))
    return { kind: "float", value: Number.parseFloat(text.startsWith(".") ? `0${text}` : text) };
  if (/^0+[1-9]/.test(text)) {
    throw new CalculateError(
      "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
    );
  }
  return { kind: "int", value: BigInt(text) };
}

class Parser {
  private readonly tokens: Token[];
  private index = 0;
  private depth = 0;

  constructor(source: string) {
    this.tokens = tokenize(source);
    if (this.tokens.length === 0) throw syntaxError(0);
  }

  parse(): Node {
    const tree = this.expression();
    if (this.peek() !== undefined) throw syntaxError();
    return tree;
  }

  private peek(): Token | undefined {
    return this.tokens[this.index];
  }

  private takeOp(...ops: string[]): string | undefined {
    const token = this.peek();
    if (token?.kind === "op" && ops.includes(token.text)) {
      this.index++;
      return token.text;
    }
    return undefined;
  }

  private expression(): Node {
    return this.chain(["+", "-"], () => this.term());
  }

  private term(): Node {
    return this.chain(["*", "/", "//"], () => this.factor());
  }

  private chain(ops: string[], operand: () => Node): Node {
    const first = operand();
    const rest: Array<{ op: BinaryOp; node: Node }> = [];
    for (let op = this.takeOp(...ops); op; op = this.takeOp(...ops))
      rest.push({ op: op as BinaryOp, node: operand() });
    return rest.length === 0 ? first : { type: "chain", first, rest };
  }

  /**
   * factor := ('+'|'-') factor | power. A run of signs is counted rather than nested: unary plus is the identity on
   * numbers and two minuses cancel (also on -0.0), so only the parity of minuses matters.
   */
  private factor(): Node {
    let minuses = 0;
    for (let op = this.takeOp("+", "-"); op; op = this.takeOp("+", "-")) if (op === "-") minuses++;
    const node = this.power();
    return minuses % 2 === 1 ? { type: "negate", operand: node } : node;
  }

  /** power := atom ['**' factor]: right-associative, and binds tighter than a sign on its left (-2**2 = -4). */
  private power(): Node {
    const base = this.atom();
    if (!this.takeOp("**")) return base;
    if (++this.depth > MAX_POWER_CHAIN)
      throw new CalculateError("too many nested expressions (<string>, line 1)");
    const exponent = this.factor();
    this.depth--;
    return { type: "power", base, exponent };
  }

  private atom(): Node {
    const token = this.peek();
    if (token === undefined) throw syntaxError();
    this.index++;
    if (token.kind === "number") return { type: "number", value: parseNumber(token.text) };
    if (token.text !== "(") throw syntaxError();
    if (this.takeOp(")")) return { type: "tuple" };
    // The tokenizer bounds parenthesis nesting, hence this recursion.
    const inner = this.expression();
    if (!this.takeOp(")")) throw syntaxError();
    return inner;
  }
}

function evaluate(node: Node): Value {
  switch (node.type) {
    case "number":
      return node.value;
    case "tuple":
      throw new CalculateError("float() argument must be a string or a real number, not 'tuple'");
    case "negate": {
      const value = evaluate(node.operand);
      return value.kind === "int"
        ? { kind: "int", value: -value.value }
        : { kind: "float", value: -value.value };
    }
    case "chain": {
      let value = evaluate(node.first);
      for (const { op, node: operand } of node.rest) value = apply(op, value, evaluate(operand));
      return value;
    }
    case "power":
      return apply("**", evaluate(node.base), evaluate(node.exponent));
  }
}

function toFloat(value: Value): number {
  if (value.kind === "float") return value.value;
  const converted = Number(value.value);
  if (!Number.isFinite(converted)) throw new CalculateError("int too large to convert to float");
  return converted;
}

function apply(op: BinaryOp, left: Value, right: Value): Value {
  if (left.kind === "int" && right.kind === "int") return applyInt(op, left.value, right.value);
  return applyFloat(op, toFloat(left), toFloat(right));
}

function applyInt(op: BinaryOp, a: bigint, b: bigint): Value {
  switch (op) {
    case "+":
      return { kind: "int", value: a + b };
    case "-":
      return { kind: "int", value: a - b };
    case "*":
      return { kind: "int", value: a * b };
    case "/":
      if (b === 0n) throw new CalculateError("division by zero");
      return {
        kind: "float",
        value: toFloat({ kind: "int", value: a }) / toFloat({ kind: "int", value: b }),
      };
    case "//": {
      if (b === 0n) throw new CalculateError("integer division or modulo by zero");
      const quotient = a / b;
      const floored = a % b !== 0n && a < 0n !== b < 0n ? quotient - 1n : quotient;
      return { kind: "int", value: floored };
    }
    case "**": {
      if (b < 0n) return applyFloat("**", toFloat({ kind: "int", value: a }), Number(b));
      const magnitude = a < 0n ? -a : a;
      if (magnitude > 1n && BigInt(magnitude.toString(2).length) * b > BigInt(MAX_POWER_BITS)) {
        throw new CalculateError("exponent too large");
      }
      return { kind: "int", value: a ** b };
    }
  }
}

/** Float arithmetic: every operator gives a float, so each is its number alone. */
const FLOAT_OPS: Record<BinaryOp, (a: number, b: number) => number> = {
  "+": (a, b) => a + b,
  "-": (a, b) => a - b,
  "*": (a, b) => a * b,
  "/": (a, b) => {
    if (b === 0) throw new CalculateError("float division by zero");
    return a / b;
  },
  "//": (a, b) => {
    if (b === 0) throw new CalculateError("float floor division by zero");
    return pyFloorDivide(a, b);
  },
  "**": pyPow,
};

function applyFloat(op: BinaryOp, a: number, b: number): Value {
  return { kind: "float", value: FLOAT_OPS[op](a, b) };
}

/** CPython's float floor division (via fmod), which differs from Math.floor(a / b): 1 // 0.1 is 9.0. */
function pyFloorDivide(a: number, b: number): number {
  let mod = a % b;
  let div = (a - mod) / b;
  if (mod !== 0) {
    if (b < 0 !== mod < 0) {
      mod += b;
      div -= 1;
    }
  }
  if (div === 0) return a / b < 0 || Object.is(a / b, -0) ? -0 : 0;
  let floored = Math.floor(div);
  if (div - floored > 0.5) floored += 1;
  return floored;
}

/** CPython's float power: its special cases, a complex result refused, an overflow from finite operands raised. */
function pyPow(a: number, b: number): number {
  if (b === 0 || a === 1) return 1;
  if (a === 0 && b < 0) throw new CalculateError("0.0 cannot be raised to a negative power");
  if (a === -1 && !Number.isFinite(b) && !Number.isNaN(b)) return 1;
  if (a < 0 && Number.isFinite(a) && Number.isFinite(b) && !Number.isInteger(b)) {
    throw new CalculateError("float() argument must be a string or a real number, not 'complex'");
  }
  const result = a ** b;
  if (!Number.isFinite(result) && Number.isFinite(a) && Number.isFinite(b) && !Number.isNaN(result)) {
    throw new CalculateError("(34, 'Numerical result out of range')");
  }
  return result;
}
