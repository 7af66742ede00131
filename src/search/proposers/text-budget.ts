/**
 * Token budgets for proposer prompts. Tokens are estimated as characters / 4 (the usual figure for English and JSON
 * with the GPT and Claude tokenizers); the estimate only has to be stable, since trimming is deterministic.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** A sentence ends at ". ", "! ", "? " or a line end; in JSON a field ends before `, "`. */
const BOUNDARY = /[.!?](?=\s)|\n|,(?= ?")/g;

/**
 * The text cut to at most `tokens`, never in the middle of a sentence: at the last sentence (or JSON field) boundary
 * that fits, with " […]" to say something was left out. A text without any boundary that fits is left out whole.
 */
export function trimToTokens(text: string, tokens: number): string {
  const max = tokens * 4;
  if (text.length <= max) return text;
  let cut = -1;
  for (const match of text.matchAll(BOUNDARY)) {
    // A sentence keeps its full stop; a JSON field stops before its comma.
    const end = (match.index ?? 0) + (match[0] === "," ? 0 : 1);
    if (end > max - 4) break;
    cut = end;
  }
  return cut <= 0 ? "[…]" : `${text.slice(0, cut).trimEnd()} […]`;
}
