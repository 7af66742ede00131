import type { PlaybookRule } from "../../config";
import type { Family } from "../../domain";
import { compilePattern } from "../../harness";
import { bestTemplates } from "../proposers/operator-library";
import { inView } from "./counters";
import type { ConvolveEpisode } from "./episodes";
import type { Lesson } from "./lessons";
import type { PlaybookDelta } from "./playbook-delta";

/**
 * The reflector and curator without a model (for `sim` and tests): deterministic functions of the episodes'
 * observations and the playbook's counters, never of a task's protected fields.
 *
 * Reflector: per family, the message template shared by the excerpts of at least two drawn blocked episodes that
 * failed or deferred late (operators' `bestTemplates`, preferring one no ordinary observation matches), visible at
 * the earliest of their decisive steps; per drawn false abstention, every entry that was in view.
 */
export function offlineReflect(
  drawn: readonly ConvolveEpisode[],
  playbook: readonly PlaybookRule[],
  contrast: readonly string[],
): Lesson[] {
  const lessons: Lesson[] = [];
  const families = [
    ...new Set(drawn.flatMap((e) => (e.kind === "blocked" && e.family ? [e.family] : []))),
  ].sort();
  for (const family of families) {
    const failing = drawn.filter((e) => e.kind === "blocked" && e.family === family);
    const template = bestTemplates(failing, contrast)[0];
    if (!template || playbook.some((rule) => rule.when.any.includes(template.pattern))) continue;
    const fires = compilePattern(template.pattern);
    const fits = failing.filter((e) => fires(e.excerpt));
    if (fits.length === 0) continue;
    const step = Math.min(...fits.map((e) => e.decisive_step ?? 0));
    const missed = fits.filter((e) => e.outcome === "missed").length;
    lessons.push({
      kind: "signal",
      signal: template.pattern,
      family,
      then: "abstain",
      step,
      evidence: fits.map((e) => e.key),
      lesson: `${family}: a message like «${template.example}» meant the task could not be done (visible from step ${step}); ${missed} of ${fits.length} episodes never deferred, the rest deferred late.`,
    });
  }
  for (const episode of drawn.filter((e) => e.outcome === "false_abstention"))
    for (const rule of playbook)
      if (inView(rule, episode))
        lessons.push({
          kind: "false_alarm",
          entry: rule.id,
          step: episode.deferral_step ?? 0,
          evidence: [episode.key],
          lesson: `'${rule.id}' was in view when a feasible task was abandoned at step ${episode.deferral_step ?? 0}.`,
        });
  return lessons;
}

/**
 * Curator: lessons into deltas. A signal lesson adds an entry while the playbook has room, else sharpens the
 * family's entry with the best record by adding the signal to it. False alarms on an entry whose harmful count
 * exceeds its helpful one retire it; otherwise an abstaining entry is sharpened to `verify`. Whatever the lessons, an
 * entry never helpful and harmful at least twice is retired, and a full playbook merges two entries of one family
 * and action to make room.
 */
export function offlineCurate(
  lessons: readonly Lesson[],
  playbook: readonly PlaybookRule[],
  maxRules: number,
): PlaybookDelta[] {
  const deltas: PlaybookDelta[] = [];
  const gone = new Set<string>();
  const retire = (rule: PlaybookRule) => {
    if (gone.has(rule.id)) return;
    gone.add(rule.id);
    deltas.push({ op: "retire", id: rule.id });
  };
  for (const rule of playbook) if ((rule.helpful ?? 0) === 0 && (rule.harmful ?? 0) >= 2) retire(rule);
  const alarms = new Map<string, number>();
  for (const lesson of lessons)
    if (lesson.kind === "false_alarm") alarms.set(lesson.entry, (alarms.get(lesson.entry) ?? 0) + 1);
  for (const [entry] of [...alarms].sort(([a], [b]) => a.localeCompare(b))) {
    const rule = playbook.find((r) => r.id === entry);
    if (!rule || gone.has(rule.id)) continue;
    if ((rule.harmful ?? 0) > (rule.helpful ?? 0)) retire(rule);
    else if (rule.then === "abstain") deltas.push({ op: "sharpen", id: rule.id, then: "verify" });
  }
  let size = playbook.length - gone.size;
  const ids = new Set(playbook.map((r) => r.id));
  const sharpened = new Map<string, string[]>();
  for (const lesson of lessons) {
    if (lesson.kind !== "signal") continue;
    if (size >= maxRules) {
      const merge = mergeable(playbook, gone);
      if (merge) {
        deltas.push({ op: "merge", id: merge.from.id, into: merge.into.id });
        gone.add(merge.from.id);
        size--;
      }
    }
    if (size < maxRules) {
      const id = entryId(lesson.family, lesson.signal, ids);
      ids.add(id);
      deltas.push({
        op: "add",
        id,
        family: lesson.family,
        signals: [lesson.signal],
        then: lesson.then,
        lesson: lesson.lesson,
      });
      size++;
      continue;
    }
    const best = playbook
      .filter((r) => r.family === lesson.family && !gone.has(r.id))
      .sort((a, b) => (b.helpful ?? 0) - (b.harmful ?? 0) - ((a.helpful ?? 0) - (a.harmful ?? 0)))[0];
    if (!best) continue;
    const signals = sharpened.get(best.id) ?? [...best.when.any];
    if (!signals.includes(lesson.signal)) signals.push(lesson.signal);
    sharpened.set(best.id, signals);
  }
  for (const [id, signals] of sharpened) deltas.push({ op: "sharpen", id, signals });
  return deltas;
}

function mergeable(
  playbook: readonly PlaybookRule[],
  gone: ReadonlySet<string>,
): { from: PlaybookRule; into: PlaybookRule } | null {
  const live = playbook.filter((r) => !gone.has(r.id));
  for (let i = 0; i < live.length; i++)
    for (let j = i + 1; j < live.length; j++) {
      const [into, from] = [live[i] as PlaybookRule, live[j] as PlaybookRule];
      if (into.family === from.family && into.then === from.then) return { from, into };
    }
  return null;
}

/** `family-` and the signal's first words, unique in the playbook. */
function entryId(family: Family, signal: string, taken: ReadonlySet<string>): string {
  const words = signal
    .replace(/^\/(.+)\/[a-z]*$/s, "$1")
    .toLowerCase()
    .replace(/\(\?:([^|)]+)\|[^)]*\)/g, "$1")
    .replace(/<[a-z]+>|\\[a-z]/g, " ")
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  let slug = "";
  for (const word of words) if (`${slug}-${word}`.length <= 25) slug = slug ? `${slug}-${word}` : word;
  const base = `${family}-${slug || "signal"}`;
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return id;
}
