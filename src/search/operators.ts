import type { PlaybookRule } from "../config/harness-schema";
import type { Rng } from "../core/rng";
import type { Family } from "../domain/task";
import type { Harness } from "../harness/load";
import { compilePattern } from "../harness/playbook-match";
import type { Digest, FailureExample, FailureMode } from "./digest";
import type { Proposal } from "./proposal";
import { editPlaybook, editYaml } from "./yaml-edit";

/**
 * The built-in offline proposer (docs/DESIGN.md §7): reads the failure modes of the digest and applies edit operators —
 * distil a playbook rule from the decisive observations of failing episodes (contrastive, CONVOLVE-style: a phrase
 * shared by failing blocked episodes and absent from ordinary feasible observations), switch on a protocol, narrow
 * a rule that fires on ordinary observations, raise the step budget. Pure and deterministic given the rng.
 */
export interface OperatorInput {
  harness: Harness;
  digest: Digest;
  /** Rationales already tried from this incumbent (rejected, invalid or duplicate): not proposed again. */
  tried: ReadonlySet<string>;
  count: number;
  rng: Rng;
  round: number;
}

interface Candidate extends Proposal {
  /** How many observed failures the edit addresses: the ranking key. */
  priority: number;
}

const AIMED_AT_RULES: readonly FailureMode[] = [
  "missed_recognition",
  "recognition_without_action",
  "late_deferral",
];

export function proposeByOperators(input: OperatorInput): Proposal[] {
  const candidates = [
    ...distilRules(input),
    ...protocolSwitches(input),
    ...narrowRules(input),
    ...stepBudget(input),
  ].filter((candidate) => !input.tried.has(candidate.rationale));
  // Shuffle first so that ties are broken by the seed, then a stable sort by priority.
  const ranked = input.rng.shuffle(candidates).sort((a, b) => b.priority - a.priority);
  const seen = new Set<string>();
  const chosen: Proposal[] = [];
  for (const { priority: _priority, ...proposal } of ranked) {
    const key = JSON.stringify(proposal.files);
    if (seen.has(key)) continue;
    seen.add(key);
    chosen.push(proposal);
    if (chosen.length === input.count) break;
  }
  return chosen;
}

// ---- distil a stopping rule ------------------------------------------------------------------------------------

function distilRules(input: OperatorInput): Candidate[] {
  const { harness, digest } = input;
  if (harness.playbook.length >= harness.config.playbook.max_rules) return [];
  const contrast = [...digest.ordinary_observations, ...digest.ordinary_requests];
  const out: Candidate[] = [];
  for (const family of familiesWithFailures(digest.failures)) {
    const excerpts = digest.failures
      .filter((f) => f.family === family && AIMED_AT_RULES.includes(f.mode))
      .map((f) => f.excerpt);
    // A specific rule (never seen in solved feasible episodes) and a general one (the widest coverage, whatever it
    // matches elsewhere): the proposer does not judge the trade-off, acceptance under the objective does.
    const specific = bestPhrase(excerpts, contrast);
    const general = bestPhrase(excerpts, []);
    const phrases = [specific, general?.text !== specific?.text ? general : null].filter(
      (p): p is Phrase => p !== null,
    );
    for (const phrase of phrases) {
      if (harness.playbook.some((rule) => rule.when.any.includes(phrase.text))) continue;
      const seenElsewhere = contrast.filter((text) =>
        text.toLowerCase().includes(phrase.text.toLowerCase()),
      ).length;
      const rule: PlaybookRule = {
        id: ruleId(family, phrase.text, harness.playbook),
        family,
        when: { any: [phrase.text] },
        then: "abstain",
        note: `Distilled in round ${input.round} from ${phrase.coverage} failing ${family} episodes; seen in ${seenElsewhere} ordinary observations.`,
      };
      out.push({
        files: {
          "playbook.yaml": editPlaybook(harness.files["playbook.yaml"] ?? "", [...harness.playbook, rule]),
        },
        rationale: `Add stopping rule '${rule.id}': defer when an observation shows ${JSON.stringify(phrase.text)} (${phrase.coverage} ${family} failures at the decisive step, ${seenElsewhere} ordinary observations).`,
        operator: "distil_rule",
        priority: phrase.coverage * 2 - (seenElsewhere > 0 ? 1 : 0),
      });
    }
  }
  return out;
}

function familiesWithFailures(failures: readonly FailureExample[]): Family[] {
  const families = new Set<Family>();
  for (const failure of failures)
    if (failure.family && AIMED_AT_RULES.includes(failure.mode)) families.add(failure.family);
  return [...families].sort();
}

interface Phrase {
  text: string;
  coverage: number;
}

/**
 * The phrase that occurs in the most failing excerpts (at least two) and in no contrast text. Candidates are JSON
 * key/value pairs, error messages and word n-grams of each excerpt. Ties go to the longer, then the smaller, phrase.
 */
export function bestPhrase(excerpts: readonly string[], contrast: readonly string[]): Phrase | null {
  const coverage = new Map<string, number>();
  for (const excerpt of excerpts)
    for (const phrase of new Set(candidatePhrases(excerpt)))
      coverage.set(phrase, (coverage.get(phrase) ?? 0) + 1);
  const lowerContrast = contrast.map((text) => text.toLowerCase());
  let best: Phrase | null = null;
  for (const [text, count] of coverage) {
    if (count < 2) continue;
    if (
      best &&
      (count < best.coverage ||
        (count === best.coverage &&
          (text.length < best.text.length || (text.length === best.text.length && text > best.text))))
    )
      continue;
    const lower = text.toLowerCase();
    if (lowerContrast.some((other) => other.includes(lower))) continue;
    best = { text, coverage: count };
  }
  return best;
}

const STOP_WORDS = new Set([
  "the",
  "a",
  "an",
  "and",
  "or",
  "to",
  "of",
  "in",
  "on",
  "for",
  "is",
  "it",
  "i",
  "my",
  "me",
  "you",
  "your",
  "with",
  "that",
  "this",
  "be",
  "at",
  "as",
  "but",
]);

/**
 * Phrases a rule could match: key/value pairs of JSON observations, error messages, and word n-grams (2–4 words)
 * of prose, each a literal substring of the text so that the rule, matched case-insensitively, fires on it.
 */
export function candidatePhrases(text: string): string[] {
  const phrases: string[] = [];
  for (const match of text.matchAll(/"([a-z_]+)": "([^"#\d][^"]{0,30})"/g))
    phrases.push(`"${match[1]}": "${match[2]}"`);
  for (const match of text.matchAll(/Error: ([^.\n]{4,60})/g)) phrases.push(`Error: ${match[1]}`);
  if (/^\s*[{[]/.test(text)) return phrases;
  for (const clause of text.split(/[.,;:!?()"{}[\]\n]+/)) {
    const words = clause.split(/\s+/).filter((word) => word.length > 0);
    for (let size = 2; size <= 4; size++) {
      for (let i = 0; i + size <= words.length; i++) {
        const gram = words.slice(i, i + size);
        if (gram.some((word) => /\d|#/.test(word))) continue;
        // A word repeated across the gram is a column of a listing ("sandbox sandbox" in `ls -l`), not a phrase.
        if (new Set(gram.map((word) => word.toLowerCase())).size < gram.length) continue;
        if (
          STOP_WORDS.has((gram[0] as string).toLowerCase()) ||
          STOP_WORDS.has((gram[size - 1] as string).toLowerCase())
        )
          continue;
        phrases.push(gram.join(" ").toLowerCase());
      }
    }
  }
  return phrases;
}

function ruleId(family: Family, phrase: string, existing: readonly PlaybookRule[]): string {
  const slug =
    phrase
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 24) || "rule";
  const base = `${family}-${slug}`;
  let id = base;
  for (let n = 2; existing.some((rule) => rule.id === id); n++) id = `${base}-${n}`;
  return id;
}

// ---- switch protocols -----------------------------------------------------------------------------------------

function protocolSwitches(input: OperatorInput): Candidate[] {
  const { harness, digest } = input;
  const { protocols } = harness.config;
  const count = (...modes: FailureMode[]) => modes.reduce((sum, mode) => sum + (digest.modes[mode] ?? 0), 0);
  const out: Candidate[] = [];
  const recognisedIdle = count("recognition_without_action");
  if (!protocols.abandon.enabled && recognisedIdle + count("missed_recognition") > 0)
    out.push(
      switchProtocol(
        harness,
        "abandon",
        `Tell the agent the certified deferral and when to use it (${recognisedIdle} episodes recognised a blocker without deferring).`,
        recognisedIdle + 1,
      ),
    );
  const unsafe = count("post_hoc", "fabrication");
  if (!protocols.effect_gate.enabled && unsafe > 0)
    out.push(
      switchProtocol(
        harness,
        "effect_gate",
        `Gate effects once a blocker is stated (${unsafe} episodes made a forbidden change or claimed success).`,
        unsafe,
      ),
    );
  if (!protocols.self_check.enabled && recognisedIdle > 0)
    out.push(
      switchProtocol(
        harness,
        "self_check",
        `Ask the agent to check its work once before it ends (${recognisedIdle} episodes stopped without the deferral they had reasons for).`,
        Math.ceil(recognisedIdle / 2),
      ),
    );
  return out;
}

function switchProtocol(
  harness: Harness,
  name: "abandon" | "effect_gate" | "self_check",
  why: string,
  priority: number,
): Candidate {
  return {
    files: {
      "harness.yaml": editYaml(harness.files["harness.yaml"] ?? "", ["protocols", name, "enabled"], true),
    },
    rationale: `Enable the ${name} protocol. ${why}`,
    operator: "switch_protocol",
    priority,
  };
}

// ---- narrow over-broad rules ----------------------------------------------------------------------------------

function narrowRules(input: OperatorInput): Candidate[] {
  const { harness, digest } = input;
  const falseAbstentions = digest.modes.false_abstention ?? 0;
  if (falseAbstentions === 0) return [];
  const contrast = [...digest.ordinary_observations, ...digest.ordinary_requests];
  const failingExcerpts = digest.failures.filter((f) => f.mode === "false_abstention").map((f) => f.excerpt);
  const out: Candidate[] = [];
  for (const rule of harness.playbook) {
    if (rule.then !== "abstain") continue;
    const fires = (text: string) => rule.when.any.some((pattern) => compilePattern(pattern)(text));
    const hits = contrast.filter(fires).length + failingExcerpts.filter(fires).length;
    if (hits === 0) continue;
    const kept = rule.when.any.filter((pattern) => !contrast.some((text) => compilePattern(pattern)(text)));
    const next =
      kept.length > 0
        ? harness.playbook.map((r) => (r.id === rule.id ? { ...r, when: { any: kept } } : r))
        : harness.playbook.filter((r) => r.id !== rule.id);
    out.push({
      files: { "playbook.yaml": editPlaybook(harness.files["playbook.yaml"] ?? "", next) },
      rationale:
        kept.length > 0
          ? `Narrow rule '${rule.id}': drop the patterns that match ordinary feasible observations (${hits} hits, ${falseAbstentions} false abstentions).`
          : `Remove rule '${rule.id}': it matches ordinary feasible observations (${hits} hits, ${falseAbstentions} false abstentions).`,
      operator: "narrow_rule",
      priority: falseAbstentions + hits,
    });
  }
  return out;
}

// ---- step budget ----------------------------------------------------------------------------------------------

function stepBudget(input: OperatorInput): Candidate[] {
  const limited = input.digest.modes.step_limit ?? 0;
  const current = input.harness.config.agent.max_steps;
  if (limited === 0 || current >= 200) return [];
  const next = Math.min(200, current + 10);
  return [
    {
      files: {
        "harness.yaml": editYaml(input.harness.files["harness.yaml"] ?? "", ["agent", "max_steps"], next),
      },
      rationale: `Raise the step budget from ${current} to ${next} (${limited} episodes hit the limit).`,
      operator: "step_budget",
      priority: limited,
    },
  ];
}
