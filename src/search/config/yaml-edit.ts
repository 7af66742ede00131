import { type Document, isMap, isSeq, parseDocument, YAMLSeq } from "yaml";
import type { PlaybookRule } from "../../config";
import { canonicalJson } from "../../core";

/**
 * Edits of harness YAML that keep the parent's formatting (issue 13.5): the file is edited in place through the
 * `yaml` Document API, so comments, key order, quoting and flow style survive, and switching on one protocol is a
 * one-line diff. Output options follow what the parent text does (`{a: 1}` stays unpadded, `{ a: 1 }` padded) and
 * never re-fold long lines.
 */
export function editYaml(text: string, path: Array<string | number>, value: unknown): string {
  const doc = parseDocument(text);
  doc.setIn(path, value);
  return render(doc, text);
}

/** Remove one key (or sequence item) in place. */
export function deleteYaml(text: string, path: Array<string | number>): string {
  const doc = parseDocument(text);
  doc.deleteIn(path);
  return render(doc, text);
}

const PLAYBOOK_HEADER =
  "# Stopping rules distilled from trajectories: [{id, family?, when: {any: [phrase or /regex/]}, then: abstain|verify|continue, note}]\n";

/**
 * The playbook file with `rules`, reusing the node of every rule that did not change (so its formatting and
 * comments stay) and writing new or changed rules in block style. The file's leading comment is kept.
 */
export function editPlaybook(text: string, rules: readonly PlaybookRule[]): string {
  const source = text.trim() === "" ? PLAYBOOK_HEADER : text;
  // The leading comment block is kept as text: the parser attaches it to whichever node comes first.
  const header = source.match(/^(?:#[^\n]*\n)+/)?.[0] ?? "";
  const doc: Document = parseDocument(source.slice(header.length));
  const old = isSeq(doc.contents) ? doc.contents : null;
  const byKey = new Map<string, unknown>();
  for (const item of old?.items ?? []) {
    const json: unknown = isMap(item) ? item.toJSON() : null;
    if (json) byKey.set(canonicalJson(normalise(json as PlaybookRule)), item);
  }
  const seq = new YAMLSeq();
  for (const rule of rules) {
    const kept = byKey.get(canonicalJson(normalise(rule)));
    seq.items.push(kept ?? doc.createNode(plainRule(rule)));
  }
  if (rules.length === 0) seq.flow = true;
  doc.contents = seq;
  return `${header}${render(doc, source)}`;
}

/** A rule as written: no empty note. */
function plainRule(rule: PlaybookRule): Record<string, unknown> {
  const { note, ...rest } = rule;
  return note ? { ...rest, note } : rest;
}

function normalise(rule: PlaybookRule): Record<string, unknown> {
  return plainRule({ ...rule, note: rule.note ?? "" });
}

function render(doc: Document, parentText: string): string {
  return doc.toString({ lineWidth: 0, flowCollectionPadding: usesFlowPadding(parentText) });
}

/** Whether the parent writes flow collections with inner spaces (`{ a: 1 }`); the yaml default is to pad. */
function usesFlowPadding(text: string): boolean {
  const padded = (text.match(/[{[] [^\s\]}]/g) ?? []).length;
  const tight = (text.match(/[{[][^\s\]}]/g) ?? []).length;
  return padded > 0 ? padded >= tight : tight === 0;
}
