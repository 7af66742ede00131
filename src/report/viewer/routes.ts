/**
 * The viewer's route table. A page is registered as one entry of a list: its path pattern (literal segments and
 * `:name` parameters, one per path segment, decoded), the kinds of run directory that serve it, and a render
 * function from the request's context to a reply. Adding a page is adding an entry; the server matches, in order,
 * the first entry whose kind and pattern fit.
 */
import type { RunKind } from "../../store/types";
import type { Reply } from "./reply";

export interface Route<Context> {
  /** e.g. `/compare/:before/:after`; `/` is the home page. */
  path: string;
  kinds: readonly RunKind[];
  render(context: Context, params: Readonly<Record<string, string>>): Reply | Promise<Reply>;
}

/** Path segments, decoded, without a trailing slash; null when one does not decode (a malformed escape). */
export function pathSegments(pathname: string): string[] | null {
  try {
    const parts = pathname.split("/").slice(1).map(decodeURIComponent);
    return parts.length > 1 && parts.at(-1) === "" ? parts.slice(0, -1) : parts;
  } catch {
    return null;
  }
}

/** The first route of `kind` whose pattern fits `segments`, with its parameters (never empty). */
export function matchRoute<Context>(
  routes: readonly Route<Context>[],
  kind: RunKind,
  segments: readonly string[],
): { route: Route<Context>; params: Record<string, string> } | null {
  for (const route of routes) {
    if (!route.kinds.includes(kind)) continue;
    const pattern = route.path.split("/").slice(1);
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const fits = pattern.every((part, i) => {
      const segment = segments[i] as string;
      if (!part.startsWith(":")) return part === segment;
      params[part.slice(1)] = segment;
      return segment !== "";
    });
    if (fits) return { route, params };
  }
  return null;
}
