import { z } from "zod";
import { type PlaybookRule, playbookRuleSchema } from "../../config";
import { HsearchError } from "../../core";
import { FAMILIES } from "../../domain";

/**
 * A curator's change to the playbook: one entry added, sharpened (its signal, action or lesson replaced), merged into
 * another, or retired. Never a rewrite of the whole playbook: ACE's finding is that rewriting collapses what the
 * entries had accumulated, so every other entry — and its counters — stays as it was.
 */
const id = playbookRuleSchema.shape.id;
const signals = playbookRuleSchema.shape.when.shape.any;
const then = playbookRuleSchema.shape.then;

export const playbookDeltaSchema = z.discriminatedUnion("op", [
  z
    .object({
      op: z.literal("add"),
      id,
      family: z.enum(FAMILIES),
      signals,
      then,
      lesson: z.string().min(1).max(1000),
    })
    .strict(),
  z
    .object({
      op: z.literal("sharpen"),
      id,
      signals: signals.optional(),
      then: then.optional(),
      lesson: z.string().min(1).max(1000).optional(),
    })
    .strict(),
  z.object({ op: z.literal("merge"), id, into: id }).strict(),
  z.object({ op: z.literal("retire"), id }).strict(),
]);

export type PlaybookDelta = z.output<typeof playbookDeltaSchema>;

/**
 * The playbook with the deltas applied in order. Pure. A delta that names a missing entry, or adds an id that exists,
 * is bad input (the curator's reply is then invalid and retried). A sharpened entry keeps its counters unless its
 * signal changed (then it is a new rule whose record starts again); a merge sums the two records.
 */
export function applyDeltas(
  playbook: readonly PlaybookRule[],
  deltas: readonly PlaybookDelta[],
): PlaybookRule[] {
  let rules = [...playbook];
  const find = (entry: string, at: number, field = "id") => {
    const rule = rules.find((r) => r.id === entry);
    if (!rule) throw deltaError(at, field, `no playbook entry '${entry}'`);
    return rule;
  };
  deltas.forEach((delta, at) => {
    switch (delta.op) {
      case "add":
        if (rules.some((r) => r.id === delta.id))
          throw deltaError(at, "id", `entry '${delta.id}' already exists`);
        rules.push({
          id: delta.id,
          family: delta.family,
          when: { any: [...delta.signals] },
          then: delta.then,
          note: delta.lesson,
          helpful: 0,
          harmful: 0,
        });
        return;
      case "sharpen": {
        const old = find(delta.id, at);
        const resignalled = delta.signals !== undefined && !sameSignals(delta.signals, old.when.any);
        const next: PlaybookRule = {
          ...old,
          ...(delta.signals ? { when: { any: [...delta.signals] } } : {}),
          ...(delta.then ? { then: delta.then } : {}),
          ...(delta.lesson ? { note: delta.lesson } : {}),
          ...(resignalled ? { helpful: 0, harmful: 0 } : {}),
        };
        rules = rules.map((r) => (r.id === delta.id ? next : r));
        return;
      }
      case "merge": {
        if (delta.id === delta.into)
          throw deltaError(at, "into", `entry '${delta.id}' cannot merge into itself`);
        const from = find(delta.id, at);
        const into = find(delta.into, at, "into");
        const merged: PlaybookRule = {
          ...into,
          when: { any: [...new Set([...into.when.any, ...from.when.any])] },
          note: [into.note, from.note].filter(Boolean).join(" "),
          helpful: (into.helpful ?? 0) + (from.helpful ?? 0),
          harmful: (into.harmful ?? 0) + (from.harmful ?? 0),
        };
        rules = rules.filter((r) => r.id !== from.id).map((r) => (r.id === into.id ? merged : r));
        return;
      }
      case "retire":
        find(delta.id, at);
        rules = rules.filter((r) => r.id !== delta.id);
        return;
    }
  });
  return rules;
}

/** One line per delta, for a commit message and the report. */
export function describeDelta(delta: PlaybookDelta, before: readonly PlaybookRule[]): string {
  const record = (entry: string) => {
    const rule = before.find((r) => r.id === entry);
    return rule ? ` (helpful ${rule.helpful ?? 0}, harmful ${rule.harmful ?? 0})` : "";
  };
  switch (delta.op) {
    case "add":
      return `add '${delta.id}' [${delta.family}] ${delta.then} on ${delta.signals.join(" | ")}`;
    case "sharpen": {
      const parts = [
        delta.signals ? `signals ${delta.signals.join(" | ")}` : "",
        delta.then ? `then ${delta.then}` : "",
        delta.lesson ? "lesson" : "",
      ].filter(Boolean);
      return `sharpen '${delta.id}'${record(delta.id)}: ${parts.join(", ")}`;
    }
    case "merge":
      return `merge '${delta.id}'${record(delta.id)} into '${delta.into}'${record(delta.into)}`;
    case "retire":
      return `retire '${delta.id}'${record(delta.id)}`;
  }
}

function sameSignals(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

function deltaError(at: number, field: string, message: string): HsearchError {
  return new HsearchError("bad_input", `playbook delta ${at + 1}: ${message}`, {
    field: `deltas[${at}].${field}`,
  });
}
