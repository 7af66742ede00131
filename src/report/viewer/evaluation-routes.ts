/** The pages of an evaluation or a probe directory: the summary and its episodes, one episode, the harness's files. */
import { FAMILIES, KINDS } from "../../domain";
import { PROBES, type Probe, type RunKind } from "../../store";
import { type EpisodeFilter, OUTCOMES, renderEvaluationPage } from "../html/eval-page";
import { loadStoredProbe, renderProbeEpisodePage, renderProbePage } from "../html/probe-page";
import { loadStoredEvaluation } from "../model/eval-data";
import type { ViewerContext } from "./context";
import { EVALUATION_LINKS, PROBE_LINKS } from "./links";
import { viewerNav } from "./nav";
import { notFound, type Reply } from "./reply";
import type { Route } from "./routes";
import { filesPage, rolloutPage } from "./search-routes";

const EVALUATIONS: readonly RunKind[] = ["eval", "probe_beliefs", "probe_challenge"];
const PROBE_KINDS: readonly RunKind[] = ["probe_beliefs", "probe_challenge"];

/** `?kind=…&family=…&outcome=…` as a filter; a value that is none of its choices is a 404 naming it. */
function episodeFilter(context: ViewerContext): EpisodeFilter | Reply {
  const filter: EpisodeFilter = {};
  const choices = { kind: KINDS, family: FAMILIES, outcome: OUTCOMES } as const;
  for (const [key, values] of Object.entries(choices) as Array<[keyof EpisodeFilter, readonly string[]]>) {
    const value = context.url.searchParams.get(key);
    if (value === null || value === "" || value === "all") continue;
    if (!values.includes(value))
      return notFound(`no ${key} '${value}' (one of ${values.join(", ")})`, context.run);
    (filter as Record<string, string>)[key] = value;
  }
  return filter;
}

/** The evaluated harness: an evaluation's one candidate (the seed commit). */
function harnessFiles(context: ViewerContext, path: string | null): Promise<Reply> | Reply {
  const seed = context.model.listCandidates()[0]?.commit;
  return seed ? filesPage(context, seed, path) : notFound("no harness recorded yet", context.run);
}

export const EVALUATION_ROUTES: Route<ViewerContext>[] = [
  {
    path: "/",
    kinds: ["eval"],
    render: (context) => {
      const filter = episodeFilter(context);
      if ("status" in filter) return filter;
      const { model, run } = context;
      const stored = loadStoredEvaluation(model);
      return {
        status: 200,
        body: renderEvaluationPage(stored, {
          links: EVALUATION_LINKS,
          filter,
          nav: viewerNav(run),
          live: run.state === "running",
          events: model.listEvents(),
          usage: stored.usage,
        }),
      };
    },
  },
  {
    path: "/",
    kinds: PROBE_KINDS,
    render: ({ store, model, run }) => ({
      status: 200,
      body: renderProbePage(loadStoredProbe(store), {
        links: PROBE_LINKS,
        nav: viewerNav(run),
        live: run.state === "running",
        events: model.listEvents(),
      }),
    }),
  },
  { path: "/harness", kinds: EVALUATIONS, render: (context) => harnessFiles(context, null) },
  {
    path: "/harness/:path",
    kinds: EVALUATIONS,
    render: (context, { path = "" }) => harnessFiles(context, path),
  },
  {
    path: "/candidates/:commit",
    kinds: EVALUATIONS,
    render: (context, { commit = "" }) => filesPage(context, commit, null),
  },
  {
    path: "/candidates/:commit/files",
    kinds: EVALUATIONS,
    render: (context, { commit = "" }) => filesPage(context, commit, null),
  },
  {
    path: "/candidates/:commit/files/:path",
    kinds: EVALUATIONS,
    render: (context, { commit = "", path = "" }) => filesPage(context, commit, path),
  },
  {
    path: "/rollouts/:purpose/:key",
    kinds: ["eval"],
    render: (context, { purpose = "", key = "" }) => rolloutPage(context, purpose, key),
  },
  {
    path: "/probe-episodes/:probe/:key",
    kinds: PROBE_KINDS,
    render: ({ store, run }, { probe = "", key = "" }) => {
      if (!(PROBES as readonly string[]).includes(probe)) return notFound(`no probe ${probe}`, run);
      const episode = store.getProbeEpisode(probe as Probe, key);
      if (!episode) return notFound(`no ${probe} episode ${key}`, run);
      return {
        status: 200,
        body: renderProbeEpisodePage(run, episode, store.readProbeTrajectory(episode), {
          links: PROBE_LINKS,
          nav: viewerNav(run),
        }),
      };
    },
  },
];
