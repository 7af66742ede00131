import type { SearchView } from "../../store";

/** A candidate and all its ancestors up to the seed. */
export function lineageOf(view: SearchView, commit: string): Set<string> {
  const out = new Set<string>();
  for (let at = view.candidate(commit); at; at = at.parent ? view.candidate(at.parent) : undefined)
    out.add(at.commit);
  return out;
}

/** The first of `from` and its ancestors that is in `lineage` (two lineages' common ancestor), if any. */
export function nearestIn(view: SearchView, from: string, lineage: ReadonlySet<string>): string | undefined {
  for (let at = view.candidate(from); at; at = at.parent ? view.candidate(at.parent) : undefined)
    if (lineage.has(at.commit)) return at.commit;
  return undefined;
}
