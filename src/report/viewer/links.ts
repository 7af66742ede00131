/** The viewer's URLs: every link a page renders is made here, so routes and links agree. */
import type { EvaluationLinks } from "../html/eval-page";
import type { ProbeLinks } from "../html/probe-page";
import { sideBySideLink, type ViewerLinks } from "./compare-pages";

export const LINKS: ViewerLinks = {
  candidate: (commit) => `/candidates/${commit}`,
  rollout: (purpose, key) => `/rollouts/${purpose}/${encodeURIComponent(key)}`,
  compare: (before, after) => `/compare/${before}/${after}`,
  sideBySide: (flip, comparison) => sideBySideLink(comparison.purpose, flip.beforeKey, flip.afterKey),
  pair: sideBySideLink,
  files: (commit, path) =>
    path === undefined
      ? `/candidates/${commit}/files`
      : `/candidates/${commit}/files/${encodeURIComponent(path)}`,
};

/** The links of an evaluation's pages: its episodes, its harness's files, the home page with a filter. */
export const EVALUATION_LINKS: EvaluationLinks = {
  rollout: LINKS.rollout,
  harness: () => "/harness",
  filtered: (filter) => {
    const query = new URLSearchParams(
      Object.entries(filter).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ).toString();
    return query ? `/?${query}` : "/";
  },
};

export const PROBE_LINKS: ProbeLinks = {
  episode: (probe, key) => `/probe-episodes/${probe}/${encodeURIComponent(key)}`,
  harness: (commit) => `/candidates/${commit}/files`,
};
