import { PATTERN_REGEX, type PlaybookRule } from "../config";
import { linearRegex } from "../core";

/**
 * A playbook pattern as a predicate: `/regex/flags`, or a phrase matched case-insensitively. Regexes run on RE2, whose
 * matching time is linear in the text: a proposer-written `/(a+)+$/` cannot hang a run on a long observation (V8's
 * backtracking engine takes exponential time there). Patterns RE2 cannot run are refused when the playbook is
 * validated (see harness-schema).
 */
export function compilePattern(pattern: string): (text: string) => boolean {
  const cached = compiled.get(pattern);
  if (cached) return cached;
  const matcher = compileUncached(pattern);
  // Playbooks are small, but a long search sees many of them: a bounded cache, emptied when full.
  if (compiled.size >= CACHE_SIZE) compiled.clear();
  compiled.set(pattern, matcher);
  return matcher;
}

const CACHE_SIZE = 4096;
const compiled = new Map<string, (text: string) => boolean>();

function compileUncached(pattern: string): (text: string) => boolean {
  const regex = PATTERN_REGEX.exec(pattern);
  if (regex) {
    const engine = linearRegex(regex[1] ?? "", regex[2] ?? "");
    return (text) => engine.test(text);
  }
  const phrase = pattern.toLowerCase();
  return (text) => text.toLowerCase().includes(phrase);
}

/** The rules whose `when.any` matches the text, in playbook order. */
export function matchingRules(rules: readonly PlaybookRule[], text: string): PlaybookRule[] {
  return rules.filter((rule) => rule.when.any.some((pattern) => compilePattern(pattern)(text)));
}
