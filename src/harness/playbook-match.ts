import { PATTERN_REGEX, type PlaybookRule } from "../config/harness-schema";

/** A playbook pattern as a predicate: `/regex/flags`, or a phrase matched case-insensitively. */
export function compilePattern(pattern: string): (text: string) => boolean {
  const regex = PATTERN_REGEX.exec(pattern);
  if (regex) {
    const compiled = new RegExp(regex[1] ?? "", (regex[2] ?? "").replace("g", ""));
    return (text) => compiled.test(text);
  }
  const phrase = pattern.toLowerCase();
  return (text) => text.toLowerCase().includes(phrase);
}

/** The rules whose `when.any` matches the text, in playbook order. */
export function matchingRules(rules: readonly PlaybookRule[], text: string): PlaybookRule[] {
  return rules.filter((rule) => rule.when.any.some((pattern) => compilePattern(pattern)(text)));
}
