/**
 * Word-ish text matching for the rules judge: lower-cased Unicode word tokens (apostrophes kept inside words, so
 * "can't" is one token), phrases matched as contiguous token runs. Pure and deterministic.
 */

export function tokenize(text: string): string[] {
  const normalised = text.toLowerCase().replace(/[\u2018\u2019]/g, "'");
  return normalised.match(/[\p{L}\p{N}]+(?:'[\p{L}\p{N}]+)*/gu) ?? [];
}

/** A light plural fold ("items" → "item", "orders" → "order") so keywords survive number agreement. */
function fold(token: string): string {
  return token.length > 3 && token.endsWith("s") ? token.slice(0, -1) : token;
}

/**
 * Keyword match: every token of the keyword, plural-folded, equals the text's tokens at some position. Exact
 * otherwise, so an id like "w123" never matches "w1234".
 */
export function containsKeyword(textTokens: readonly string[], keyword: string): boolean {
  const wanted = tokenize(keyword).map(fold);
  if (wanted.length === 0) return false;
  const folded = textTokens.map(fold);
  return findRun(folded, wanted, (have, want) => have === want);
}

/**
 * Cue match: cues are stems, so the last token of the cue may be a prefix of the text's token ("contradict"
 * matches "contradictory", "conflict" matches "conflicting"); earlier tokens must be equal.
 */
export function containsCue(textTokens: readonly string[], cue: string): boolean {
  const wanted = tokenize(cue);
  if (wanted.length === 0) return false;
  const last = wanted.length - 1;
  return findRun(textTokens, wanted, (have, want, index) =>
    index === last ? have.startsWith(want) : have === want,
  );
}

function findRun(
  haystack: readonly string[],
  needle: readonly string[],
  same: (have: string, want: string, index: number) => boolean,
): boolean {
  for (let start = 0; start + needle.length <= haystack.length; start++) {
    let all = true;
    for (let i = 0; i < needle.length; i++) {
      if (!same(haystack[start + i] as string, needle[i] as string, i)) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}
