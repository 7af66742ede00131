/**
 * Playbook matching cost against observation length: catastrophic-backtracking patterns a proposer can write, and an
 * ordinary rule, matched on RE2 (src/harness/playbook-match). Linear means the time ratio for 2× the length is ≈ 2.
 * V8's own engine is shown for the evil pattern at lengths it can still finish (it doubles per extra character).
 * Run: npx tsx bench/playbook-linear.ts   (prints figures; asserts nothing)
 */
import { performance } from "node:perf_hooks";
import { compilePattern } from "../src/harness/playbook-match";

const lengths = [25_000, 50_000, 100_000, 200_000, 400_000, 800_000];
const patterns: Array<{ pattern: string; text: (n: number) => string }> = [
  { pattern: "/(a+)+$/", text: (n) => `${"a".repeat(n)}!` },
  { pattern: "/(x+x+)+y/", text: (n) => "x".repeat(n) },
  { pattern: "/^(\\w+\\s?)*$/", text: (n) => `${"word ".repeat(n / 5)}!` },
  {
    pattern: "/order #W\\d+ belongs to (another|a different) customer/i",
    text: (n) => "lorem ipsum ".repeat(n / 12),
  },
];

/** Median of `runs` timings, in milliseconds. */
function median(runs: number, fn: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(runs / 2)] as number;
}

for (const { pattern, text } of patterns) {
  const match = compilePattern(pattern);
  match(text(1000)); // warm up
  const rows = lengths.map((n) => {
    const input = text(n);
    return { n, ms: median(7, () => match(input)) };
  });
  const ratios = rows.slice(1).map((row, i) => (row.ms / (rows[i] as { ms: number }).ms).toFixed(2));
  console.log(`${pattern}`);
  console.log(`  ${rows.map((r) => `${r.n / 1000}k chars ${(r.ms * 1000).toFixed(1)} µs`).join(", ")}`);
  console.log(`  time ratio per doubling: ${ratios.join(", ")} (linear ≈ 2; exponential would not finish)`);
}

// For contrast: V8's backtracking engine on the first pattern, at lengths it can still finish.
const v8 = /(a+)+$/;
const v8Rows = [18, 20, 22, 24].map((n) => ({ n, ms: median(3, () => v8.test(`${"a".repeat(n)}!`)) }));
console.log(`V8 RegExp /(a+)+$/: ${v8Rows.map((r) => `${r.n} chars ${r.ms.toFixed(1)} ms`).join(", ")}`);
