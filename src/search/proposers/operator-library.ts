import { parseDocument } from "yaml";
import type { PlaybookRule, ProtocolName } from "../../config";
import type { Rng } from "../../core";
import { hashJson } from "../../core";
import type { Family } from "../../domain";
import type { Harness } from "../../harness";
import { compilePattern } from "../../harness";
import { editPlaybook, editYaml } from "../config/yaml-edit";
import type { Digest, FailureExample, FailureMode } from "./digest";
import { REPORT_PROMPTS, SELF_CHECK_PROMPTS, SYSTEM_INTROS } from "./prompt-variants";
import { applyProposal, type Proposal } from "./proposal";

/**
 * The built-in offline proposer (docs/DESIGN.md §7, issue 11.3): GEPA-style reflective mutation without a model. It reads the
 * digest and applies edit operators, each candidate ranked by how many observed failures it addresses:
 * - distil a stopping rule from the *shared structure* of several failing excerpts (a regex over the message
 *   template with the variable parts — ids, numbers, names — as slots, or an alternation of the words that vary),
 *   never from one task's data value; as an `abstain` rule, or a `verify` rule for missed recognitions;
 * - narrow a rule that fires on ordinary observations, soften it to `verify`, merge two rules of a family, remove one;
 * - switch a protocol on when failures call for it, or off when it no longer pays;
 * - rephrase the system prompt's opening, the self-check or the report prompt from a library of variants;
 * - adjust the step budget, the self-check's steps and the playbook's size;
 * - merge (crossover) the edit of another lineage — an evaluated candidate that is not an ancestor — into this one.
 * Pure and deterministic given the rng; proposals whose harness already exists in the run are never made again.
 */
export interface OperatorInput {
  harness: Harness;
  digest: Digest;
  /** Rationales already tried from this incumbent (rejected, invalid or duplicate): not proposed again. */
  tried: ReadonlySet<string>;
  /** hashJson of the files of every candidate of the run: a proposal equal to one of them is not made. */
  known?: ReadonlySet<string>;
  /** Evaluated candidates of other lineages with their parent's files: material for crossover. */
  donors?: readonly Donor[];
  count: number;
  rng: Rng;
  round: number;
}

export interface Donor {
  commit: string;
  round: number;
  proposal: number;
  /** Its score minus the score of `parentFiles`' candidate. */
  gain: number;
  /** Set when the edits are taken since an ancestor further up than its parent (the lineages' common ancestor). */
  base?: string;
  files: Record<string, string>;
  /** The files its edits are taken against: its parent's, or the common ancestor's (`base`). */
  parentFiles: Record<string, string>;
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

export interface OperatorResult {
  proposals: Proposal[];
  /** True when fewer than `count` new proposals exist: the operator space around this incumbent is used up. */
  exhausted: boolean;
}

export function proposeByOperators(input: OperatorInput): Proposal[] {
  return runOperators(input).proposals;
}

export function runOperators(input: OperatorInput): OperatorResult {
  const candidates = [
    ...distilRules(input),
    ...protocolSwitches(input),
    ...ruleEdits(input),
    ...crossover(input),
    ...budgets(input),
    ...rephrasings(input),
  ].filter((candidate) => !input.tried.has(candidate.rationale));
  // Shuffle first so that ties are broken by the seed, then a stable sort by priority.
  const ranked = input.rng.shuffle(candidates).sort((a, b) => b.priority - a.priority);
  const seen = new Set<string>([hashJson(input.harness.files), ...(input.known ?? [])]);
  const chosen: Proposal[] = [];
  for (const { priority: _priority, ...proposal } of ranked) {
    const key = hashJson(applyProposal(input.harness.files, proposal));
    if (seen.has(key)) continue;
    seen.add(key);
    chosen.push(proposal);
    if (chosen.length === input.count) break;
  }
  return { proposals: chosen, exhausted: chosen.length < input.count };
}

// ---- distil a stopping rule from shared structure --------------------------------------------------------------

function distilRules(input: OperatorInput): Candidate[] {
  const { harness, digest } = input;
  if (harness.playbook.length >= harness.config.playbook.max_rules) return [];
  const contrast = [...digest.ordinary_observations, ...digest.ordinary_requests];
  const out: Candidate[] = [];
  for (const family of familiesWithFailures(digest.failures)) {
    const failing = digest.failures.filter((f) => f.family === family && AIMED_AT_RULES.includes(f.mode));
    const missed = failing.filter((f) => f.mode === "missed_recognition").length;
    for (const template of bestTemplates(failing, contrast)) {
      if (harness.playbook.some((rule) => rule.when.any.includes(template.pattern))) continue;
      for (const then of missed > 0 ? (["abstain", "verify"] as const) : (["abstain"] as const)) {
        const rule: PlaybookRule = {
          id: ruleId(family, template.label, harness.playbook),
          family,
          when: { any: [template.pattern] },
          then,
          note: `Shared by ${template.tasks} failing ${family} tasks, e.g. «${template.example}»; matches ${template.contrast} ordinary observations (round ${input.round}).`,
        };
        const action = then === "abstain" ? "defer" : "verify before any change";
        out.push({
          files: {
            "playbook.yaml": editPlaybook(harness.files["playbook.yaml"] ?? "", [...harness.playbook, rule]),
          },
          rationale: `Add ${then} rule '${rule.id}': ${action} when a message fits ${template.pattern} (${template.tasks} ${family} tasks failed there, ${template.contrast} ordinary observations match).`,
          operator: "distil_rule",
          priority:
            template.tasks * (then === "abstain" ? 2 : 1) -
            template.contrast -
            (template.contrast > 0 ? 1 : 0),
        });
      }
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

export interface Template {
  /** The playbook pattern: always a `/regex/i`. */
  pattern: string;
  /** Words for the rule id. */
  label: string;
  /** Distinct failing tasks whose excerpt it matches (at least two). */
  tasks: number;
  /** Ordinary observations and requests it matches. */
  contrast: number;
  example: string;
}

/**
 * The templates shared by the most failing excerpts of distinct tasks (at least two): the one that matches no
 * ordinary text, and the widest whatever it matches (acceptance judges the trade-off). A template is a run of words
 * common to the excerpts once ids, numbers and capitalised names are slots, or two such runs that differ in one
 * word merged into an alternation; as a regex it can only match what it was made from and texts of the same shape.
 */
export function bestTemplates(
  failing: ReadonlyArray<Pick<FailureExample, "task_id" | "excerpt">>,
  contrast: readonly string[],
): Template[] {
  const byTask = new Map<string, string>();
  for (const f of failing) if (!byTask.has(f.task_id)) byTask.set(f.task_id, f.excerpt);
  const texts = [...byTask.values()];
  const coverage = new Map<string, Set<number>>();
  texts.forEach((text, index) => {
    for (const gram of new Set(templateGrams(text)))
      coverage.set(gram, (coverage.get(gram) ?? new Set()).add(index));
  });
  const shared = [...coverage].filter(([, covered]) => covered.size >= 2);
  // Merge pairs of grams that differ in exactly one word: "i also want" + "i still want" → "i (?:also|still) want".
  const merged = new Map(shared);
  const grams = shared.map(([gram]) => gram).sort();
  for (let i = 0; i < grams.length; i++)
    for (let j = i + 1; j < grams.length; j++) {
      const joined = mergeGrams(grams[i] as string, grams[j] as string);
      if (joined)
        merged.set(
          joined,
          new Set([...(coverage.get(grams[i] as string) ?? []), ...(coverage.get(grams[j] as string) ?? [])]),
        );
    }
  const scored: Template[] = recordTemplates(texts, contrast);
  for (const [gram, covered] of merged) {
    const regex = new RegExp(gramRegex(gram), "i");
    const hits = contrast.filter((text) => regex.test(text)).length;
    const exampleText = texts[[...covered][0] ?? 0] ?? "";
    const match = regex.exec(exampleText)?.[0] ?? gram;
    scored.push({
      pattern: `/${gramRegex(gram)}/i`,
      label: gram.replace(/\(\?:([^|)]+)\|[^)]*\)/g, "$1").replace(/<[a-z]+>/g, ""),
      tasks: covered.size,
      contrast: hits,
      example: match,
    });
  }
  const order = (a: Template, b: Template) =>
    b.tasks - a.tasks || b.pattern.length - a.pattern.length || a.pattern.localeCompare(b.pattern);
  const clean = scored.filter((t) => t.contrast === 0).sort(order)[0];
  const widest = scored.sort(order)[0];
  return [clean, widest && widest.pattern !== clean?.pattern ? widest : undefined].filter(
    (t): t is Template => t !== undefined,
  );
}

/**
 * Templates over the *state* of the records the failing tasks read: a top-level field of a JSON tool record whose value
 * is one or two lower-case words (an order's `"status": "processed"`), shared by the records of at least two tasks, and
 * every value of such a field merged into one alternation. Nested fields (a product's options), ids, numbers and names
 * are one task's data and never make a template. A retail blocker that lives in a record (an order that is not pending)
 * can only be described this way.
 */
function recordTemplates(texts: readonly string[], contrast: readonly string[]): Template[] {
  const byPair = new Map<string, Set<number>>();
  texts.forEach((text, index) => {
    for (const [key, value] of recordState(text)) {
      const pair = JSON.stringify([key, value]);
      byPair.set(pair, (byPair.get(pair) ?? new Set()).add(index));
    }
  });
  const valuesByKey = new Map<string, Map<string, Set<number>>>();
  for (const [pair, covered] of byPair) {
    const [key, value] = JSON.parse(pair) as [string, string];
    valuesByKey.set(key, (valuesByKey.get(key) ?? new Map()).set(value, covered));
  }
  const out: Template[] = [];
  for (const [key, values] of [...valuesByKey].sort(([a], [b]) => a.localeCompare(b))) {
    const choices: Array<[string[], Set<number>]> = [...values]
      .filter(([, covered]) => covered.size >= 2)
      .map(([value, covered]) => [[value], covered]);
    if (values.size > 1)
      choices.push([[...values.keys()].sort(), new Set([...values.values()].flatMap((c) => [...c]))]);
    for (const [words, covered] of choices) {
      if (covered.size < 2) continue;
      const alternatives = words.map((w) => w.split(" ").map(escapeRegex).join("\\s+"));
      const value = alternatives.length === 1 ? alternatives[0] : `(?:${alternatives.join("|")})`;
      const regexText = `"${escapeRegex(key)}":\\s*"${value}"`;
      const regex = new RegExp(regexText, "i");
      out.push({
        pattern: `/${regexText}/i`,
        label: `${key} ${words.join(" or ")}`,
        tasks: covered.size,
        contrast: contrast.filter((text) => regex.test(text)).length,
        example: `"${key}": "${words[0]}"`,
      });
    }
  }
  return out;
}

/** The top-level `"key": "value"` fields of a JSON record whose value is one or two lower-case words. */
export function recordState(text: string): Array<[string, string]> {
  if (!/^\s*\{/.test(text)) return [];
  const out: Array<[string, string]> = [];
  // A scan by depth, not JSON.parse: an excerpt is often a record trimmed at a field boundary.
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      const field = /^"([a-z_]{2,30})":\s*"([a-z]{2,20}(?: [a-z]{2,20})?)"(?=\s*[,}])/.exec(
        text.slice(i, i + 80),
      );
      if (field && depth === 1) {
        out.push([field[1] as string, field[2] as string]);
        i += field[0].length - 1;
        continue;
      }
      // Skip the string, escapes included.
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
    } else if (char === "{" || char === "[") depth++;
    else if (char === "}" || char === "]") depth--;
  }
  return out;
}

const SLOT = { id: "<id>", name: "<name>" } as const;

/**
 * Word n-grams (3–6 words) of an excerpt's clauses, in lower case, with ids and numbers as `<id>` and capitalised
 * words inside a clause (product and person names) as `<name>`. JSON observations give their error messages only:
 * their key/value pairs are one task's data, which is what a rule must not be made of.
 */
export function templateGrams(text: string): string[] {
  const grams: string[] = [];
  const prose = /^\s*[{[]/.test(text)
    ? [...text.matchAll(/Error: ([^"\n]{4,120})/g)].map((m) => `Error: ${m[1]}`)
    : text.split(/(?<=[.!?])\s+|\n+/);
  for (const sentence of prose) {
    for (const clause of sentence.split(/[,;:()"{}[\]]+/)) {
      const words = clause
        .split(/\s+/)
        .filter((word) => word.length > 0)
        .map((word, index) => slot(word.replace(/[.!?]+$/, ""), index));
      for (let size = 3; size <= 6; size++)
        for (let i = 0; i + size <= words.length; i++) {
          const gram = words.slice(i, i + size);
          const literal = gram.filter((w) => !w.startsWith("<"));
          if (literal.length < 2) continue;
          if (STOP_WORDS.has(gram[size - 1] as string)) continue;
          if (new Set(gram).size < gram.length) continue;
          grams.push(gram.join(" "));
        }
    }
  }
  return grams;
}

function slot(word: string, index: number): string {
  if (/\d|#/.test(word)) return SLOT.id;
  if (index > 0 && /^[A-Z][a-zA-Z-]+$/.test(word) && word !== "I") return SLOT.name;
  return word.toLowerCase();
}

function mergeGrams(a: string, b: string): string | null {
  const x = a.split(" ");
  const y = b.split(" ");
  if (x.length !== y.length) return null;
  const differing = x.map((word, i) => (word === y[i] ? -1 : i)).filter((i) => i >= 0);
  if (differing.length !== 1) return null;
  const at = differing[0] as number;
  const [p, q] = [x[at] as string, y[at] as string];
  if (p.startsWith("<") || q.startsWith("<") || p.includes("(") || q.includes("(")) return null;
  // Only well-anchored grams generalise by alternation: three literal words each, so "in order <id>" and
  // "cancel order <id>" do not become a template of any sentence that names an order.
  if ([x, y].some((words) => words.filter((w) => !w.startsWith("<")).length < 3)) return null;
  const words = [...x];
  words[at] = `(?:${[p, q].sort().join("|")})`;
  return words.join(" ");
}

/** The regex of a gram: words escaped, slots as one non-space run, words separated by whitespace. */
function gramRegex(gram: string): string {
  const parts = gram.split(" ").map((word) => {
    if (word === SLOT.id || word === SLOT.name) return "\\S+";
    if (word.startsWith("(?:")) return `(?:${word.slice(3, -1).split("|").map(escapeRegex).join("|")})`;
    return escapeRegex(word);
  });
  return `\\b${parts.join("\\s+")}`;
}

function escapeRegex(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
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

function ruleId(family: Family, label: string, existing: readonly PlaybookRule[]): string {
  // Whole words up to 24 characters: an id reads as the words of its template.
  const words = label
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  let slug = "";
  for (const word of words) if (`${slug}-${word}`.length <= 25) slug = slug ? `${slug}-${word}` : word;
  slug ||= (words[0] ?? "rule").slice(0, 24);
  const base = `${family}-${slug}`;
  let id = base;
  for (let n = 2; existing.some((rule) => rule.id === id); n++) id = `${base}-${n}`;
  return id;
}

// ---- protocols ---------------------------------------------------------------------------------------------------

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
        true,
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
        true,
        `Gate effects once a blocker is stated (${unsafe} episodes made a forbidden change or claimed success).`,
        unsafe,
      ),
    );
  if (!protocols.self_check.enabled && recognisedIdle > 0)
    out.push(
      switchProtocol(
        harness,
        "self_check",
        true,
        `Ask the agent to check its work once before it ends (${recognisedIdle} episodes stopped without the deferral they had reasons for).`,
        Math.ceil(recognisedIdle / 2),
      ),
    );
  // Switching a protocol off: worth a try when the failures it is for are gone, or it costs feasible work.
  const falseAbstentions = count("false_abstention");
  for (const [name, reason] of [
    [
      "self_check",
      recognisedIdle === 0 ? "no episode recognises a blocker without deferring any more" : null,
    ],
    ["effect_gate", unsafe === 0 ? "no episode makes a forbidden change or claims success any more" : null],
    ["abandon", falseAbstentions > 0 ? `${falseAbstentions} feasible episodes deferred` : null],
    ["report", "a report is not a deferral and costs a turn"],
  ] as Array<[ProtocolName, string | null]>)
    if (protocols[name].enabled && reason)
      out.push(switchProtocol(harness, name, false, `It may no longer pay: ${reason}.`, 0.5));
  return out;
}

function switchProtocol(
  harness: Harness,
  name: ProtocolName,
  on: boolean,
  why: string,
  priority: number,
): Candidate {
  return {
    files: {
      "harness.yaml": editYaml(harness.files["harness.yaml"] ?? "", ["protocols", name, "enabled"], on),
    },
    rationale: `${on ? "Enable" : "Disable"} the ${name} protocol. ${why}`,
    operator: on ? "switch_protocol" : "remove_protocol",
    priority,
  };
}

// ---- narrow, soften, merge and remove rules -----------------------------------------------------------------------

function ruleEdits(input: OperatorInput): Candidate[] {
  const { harness, digest } = input;
  const playbook = (rules: PlaybookRule[]) => ({
    "playbook.yaml": editPlaybook(harness.files["playbook.yaml"] ?? "", rules),
  });
  const falseAbstentions = digest.modes.false_abstention ?? 0;
  const contrast = [...digest.ordinary_observations, ...digest.ordinary_requests];
  const falseExcerpts = digest.failures.filter((f) => f.mode === "false_abstention").map((f) => f.excerpt);
  const out: Candidate[] = [];
  for (const rule of harness.playbook) {
    const fires = (text: string) => rule.when.any.some((pattern) => compilePattern(pattern)(text));
    const hits = contrast.filter(fires).length + falseExcerpts.filter(fires).length;
    const cited = digest.rules_in_false_abstentions.includes(rule.id);
    const others = harness.playbook.filter((r) => r.id !== rule.id);
    if (rule.then === "abstain" && hits > 0) {
      const kept = rule.when.any.filter((pattern) => !contrast.some((text) => compilePattern(pattern)(text)));
      if (kept.length > 0 && kept.length < rule.when.any.length)
        out.push({
          files: playbook(
            harness.playbook.map((r) => (r.id === rule.id ? { ...r, when: { any: kept } } : r)),
          ),
          rationale: `Narrow rule '${rule.id}': drop the patterns that match ordinary feasible observations (${hits} hits, ${falseAbstentions} false abstentions).`,
          operator: "narrow_rule",
          priority: falseAbstentions + hits,
        });
      out.push({
        files: playbook(
          harness.playbook.map((r) => (r.id === rule.id ? { ...r, then: "verify" as const } : r)),
        ),
        rationale: `Soften rule '${rule.id}' from abstain to verify: it fires on ${hits} ordinary observations, so check before stopping.`,
        operator: "narrow_rule",
        priority: (falseAbstentions + hits) / 2,
      });
    }
    out.push({
      files: playbook(others),
      rationale:
        hits > 0 || cited
          ? `Remove rule '${rule.id}': it matches ordinary feasible observations (${hits} hits${cited ? ", cited in false abstentions" : ""}).`
          : `Remove rule '${rule.id}': see whether it still pays.`,
      operator: "remove_rule",
      priority: hits > 0 || cited ? falseAbstentions + hits : 0.25,
    });
  }
  // Merge two rules of the same family and action into one: frees a slot of max_rules, same behaviour.
  for (let i = 0; i < harness.playbook.length; i++)
    for (let j = i + 1; j < harness.playbook.length; j++) {
      const [a, b] = [harness.playbook[i] as PlaybookRule, harness.playbook[j] as PlaybookRule];
      if (a.family !== b.family || a.then !== b.then) continue;
      const merged: PlaybookRule = {
        ...a,
        when: { any: [...new Set([...a.when.any, ...b.when.any])] },
        note: [a.note, b.note].filter(Boolean).join(" "),
      };
      out.push({
        files: playbook(
          harness.playbook.filter((r) => r.id !== b.id).map((r) => (r.id === a.id ? merged : r)),
        ),
        rationale: `Merge rule '${b.id}' into '${a.id}' (same family and action): one rule, a free slot.`,
        operator: "merge_rules",
        priority: harness.playbook.length >= harness.config.playbook.max_rules ? 1 : 0.2,
      });
    }
  return out;
}

// ---- crossover ---------------------------------------------------------------------------------------------------

/**
 * Merge another lineage's edit into the incumbent: the harness.yaml values it changed, the playbook rules it added,
 * and the prose files it changed where the incumbent still has its parent's text.
 */
function crossover(input: OperatorInput): Candidate[] {
  const out: Candidate[] = [];
  for (const donor of input.donors ?? []) {
    const files = mergeEdit(input.harness, donor);
    if (!files) continue;
    out.push({
      files,
      rationale: donor.base
        ? `Merge the edits of the lineage of round ${donor.round} p${donor.proposal} (${donor.commit.slice(0, 12)}, ${donor.gain >= 0 ? "+" : ""}${donor.gain.toFixed(4)} since the common ancestor ${donor.base.slice(0, 12)}) into the incumbent.`
        : `Merge the edit of round ${donor.round} p${donor.proposal} (${donor.commit.slice(0, 12)}, ${donor.gain >= 0 ? "+" : ""}${donor.gain.toFixed(4)} on its parent) into the incumbent.`,
      operator: "crossover",
      priority: 1 + Math.max(0, donor.gain) * 20,
    });
  }
  return out;
}

export function mergeEdit(harness: Harness, donor: Donor): Record<string, string> | null {
  const out: Record<string, string> = {};
  const mine = harness.files;
  const yamlBefore = parseDocument(donor.parentFiles["harness.yaml"] ?? "").toJS() as unknown;
  const yamlAfter = parseDocument(donor.files["harness.yaml"] ?? "").toJS() as unknown;
  let yamlText = mine["harness.yaml"] ?? "";
  for (const [path, value] of changedLeaves(yamlBefore, yamlAfter, [])) {
    if (path[0] === "name" || path[0] === "description") continue;
    yamlText = editYaml(yamlText, path, value);
  }
  if (yamlText !== mine["harness.yaml"]) out["harness.yaml"] = yamlText;
  const parse = (text: string | undefined) =>
    ((text ? parseDocument(text).toJS() : []) ?? []) as PlaybookRule[];
  const before = new Set(parse(donor.parentFiles["playbook.yaml"]).map((r) => r.id));
  const added = parse(donor.files["playbook.yaml"]).filter(
    (r) => !before.has(r.id) && !harness.playbook.some((m) => m.id === r.id),
  );
  if (added.length > 0 && harness.playbook.length + added.length <= harness.config.playbook.max_rules)
    out["playbook.yaml"] = editPlaybook(mine["playbook.yaml"] ?? "", [
      ...harness.playbook,
      ...added.map((r) => ({ ...r, note: r.note ?? "" })),
    ]);
  for (const path of Object.keys(donor.files)) {
    if (!path.endsWith(".md")) continue;
    const changed = donor.files[path] !== donor.parentFiles[path];
    if (changed && mine[path] === donor.parentFiles[path] && donor.files[path] !== undefined)
      out[path] = donor.files[path] as string;
  }
  return Object.keys(out).length > 0 ? out : null;
}

function changedLeaves(before: unknown, after: unknown, path: string[]): Array<[string[], unknown]> {
  if (after !== null && typeof after === "object" && !Array.isArray(after)) {
    const b = (before !== null && typeof before === "object" ? before : {}) as Record<string, unknown>;
    return Object.entries(after as Record<string, unknown>).flatMap(([key, value]) =>
      changedLeaves(b[key], value, [...path, key]),
    );
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [[path, after]];
}

// ---- budgets and parameters ---------------------------------------------------------------------------------------

function budgets(input: OperatorInput): Candidate[] {
  const { harness, digest } = input;
  const text = harness.files["harness.yaml"] ?? "";
  const out: Candidate[] = [];
  const limited = digest.modes.step_limit ?? 0;
  const steps = harness.config.agent.max_steps;
  if (limited > 0 && steps < 200) {
    const next = Math.min(200, steps + 10);
    out.push({
      files: { "harness.yaml": editYaml(text, ["agent", "max_steps"], next) },
      rationale: `Raise the step budget from ${steps} to ${next} (${limited} episodes hit the limit).`,
      operator: "step_budget",
      priority: limited,
    });
  } else if (limited === 0 && steps > 10) {
    const next = Math.max(10, steps - 5);
    out.push({
      files: { "harness.yaml": editYaml(text, ["agent", "max_steps"], next) },
      rationale: `Lower the step budget from ${steps} to ${next}: no episode hit the limit, and a shorter leash costs less.`,
      operator: "step_budget",
      priority: 0.1,
    });
  }
  const selfCheck = harness.config.protocols.self_check;
  if (selfCheck.enabled) {
    const idle = digest.modes.recognition_without_action ?? 0;
    const next = idle > 0 ? Math.min(50, selfCheck.max_steps + 3) : Math.max(1, selfCheck.max_steps - 2);
    if (next !== selfCheck.max_steps)
      out.push({
        files: { "harness.yaml": editYaml(text, ["protocols", "self_check", "max_steps"], next) },
        rationale: `Give the self-check ${next} steps instead of ${selfCheck.max_steps} (${idle} episodes still recognised a blocker without deferring).`,
        operator: "protocol_parameter",
        priority: idle > 0 ? idle / 3 : 0.1,
      });
  }
  const { max_rules } = harness.config.playbook;
  if (harness.playbook.length >= max_rules && max_rules < 200)
    out.push({
      files: { "harness.yaml": editYaml(text, ["playbook", "max_rules"], Math.min(200, max_rules + 4)) },
      rationale: `Make room for more stopping rules: playbook.max_rules ${max_rules} → ${Math.min(200, max_rules + 4)}.`,
      operator: "protocol_parameter",
      priority: 0.5,
    });
  return out;
}

// ---- rephrase prose from the library ------------------------------------------------------------------------------

function rephrasings(input: OperatorInput): Candidate[] {
  const { harness } = input;
  const out: Candidate[] = [];
  const system = harness.files["system.md"] ?? "";
  const intro = system.split("\n")[0] ?? "";
  SYSTEM_INTROS.forEach((variant, index) => {
    if (variant === intro || intro.startsWith("#") || intro.includes("{{")) return;
    out.push({
      files: { "system.md": [variant, ...system.split("\n").slice(1)].join("\n") },
      rationale: `Rephrase the opening of system.md (variant ${index + 1} of ${SYSTEM_INTROS.length}).`,
      operator: "rephrase",
      priority: 0.05,
    });
  });
  const prose: Array<[string, readonly string[], boolean]> = [
    ["prompts/self-check.md", SELF_CHECK_PROMPTS, harness.config.protocols.self_check.enabled],
    ["prompts/report.md", REPORT_PROMPTS, harness.config.protocols.report.enabled],
  ];
  for (const [path, variants, enabled] of prose) {
    if (!enabled) continue;
    variants.forEach((variant, index) => {
      if (harness.files[path] === variant) return;
      out.push({
        files: { [path]: variant },
        rationale: `Rephrase ${path} (variant ${index + 1} of ${variants.length}).`,
        operator: "rephrase",
        priority: 0.05,
      });
    });
  }
  return out;
}
