/** The pages of a search run: the report, the candidates, one candidate, comparisons, files and episodes. */

import {
  PURPOSES,
  type Purpose,
  type RolloutRecord,
  type RunReader,
  resolveCandidate,
  runStatus,
  verdictReason,
} from "../../store";
import { shortSha } from "../html/format";
import { renderReport } from "../html/render-report";
import { storedComparisons } from "../model/comparisons";
import { changeSummary, loadReportData } from "../model/report-data";
import { renderComparePage, renderFilesPage, renderSideBySidePage } from "./compare-pages";
import type { ViewerContext } from "./context";
import { LINKS } from "./links";
import { candidateId, viewerNav } from "./nav";
import { type Roles, renderCandidateList, renderCandidatePage, renderTrajectoryPage } from "./pages";
import { notFound, type Reply } from "./reply";
import type { Route } from "./routes";

const ok = (body: string): Reply => ({ status: 200, body });

function roles(store: RunReader): Roles {
  const status = runStatus(store);
  return {
    accepted: new Set(store.listRounds().flatMap((r) => (r.accepted_commit ? [r.accepted_commit] : []))),
    incumbent: status.incumbent?.commit ?? null,
    selected: status.selected?.commit ?? null,
  };
}

/**
 * A candidate by any of its names (seed, incumbent, selected, r4p1, a commit prefix): the resolver every command
 * uses; an unknown or ambiguous name is not_found listing the valid names, served as the 404 page's text.
 */
export function findCandidate(store: RunReader, name: string) {
  return resolveCandidate(store, name, { field: "candidate" });
}

export function isPurpose(value: string): value is Purpose {
  return (PURPOSES as readonly string[]).includes(value);
}

async function readDiff(
  context: ViewerContext,
  commit: string,
  parent: string | null,
): Promise<{ text: string } | { error: string }> {
  return context.diffs(commit, parent).then(
    (text) => ({ text }),
    (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
  );
}

/** The system prompt each suite's agent saw: the first system message of one trajectory per suite. */
function systemPrompts(
  store: RunReader,
  rollouts: readonly RolloutRecord[],
): Array<{ suite: string; text: string }> {
  const prompts: Array<{ suite: string; text: string }> = [];
  const seen = new Set<string>();
  for (const rollout of rollouts) {
    const suite = rollout.suite;
    if (seen.has(suite) || rollout.scores.kind === "infra_error") continue;
    seen.add(suite);
    const first = store
      .readTrajectory(rollout)
      .events.find((e) => e.type === "message" && e.author === "system");
    if (first?.type === "message") prompts.push({ suite, text: first.text });
  }
  return prompts;
}

/** A candidate's files page (`/candidates/<sha>/files[/<path>]`): a file is a key of the commit's tree, never a path. */
export async function filesPage(context: ViewerContext, commit: string, path: string | null): Promise<Reply> {
  const { model, run } = context;
  const candidate = findCandidate(model, commit);
  if (!candidate) return notFound(`no candidate ${commit}`, run);
  const files = await context.tree(candidate.commit);
  if (path !== null && !Object.hasOwn(files, path))
    return notFound(`no file ${path} in ${candidate.commit}`, run);
  return ok(renderFilesPage(run, model.paths.dir, candidate, files, path, LINKS));
}

/** One episode's trajectory (`/rollouts/<purpose>/<key>`), in a search run or an evaluation. */
export function rolloutPage(context: ViewerContext, purpose: string, key: string): Reply {
  const { model, run } = context;
  if (!isPurpose(purpose)) return notFound(`no purpose ${purpose}`, run);
  const rollout = model.getRollout(purpose, key);
  if (!rollout) return notFound(`no ${run.kind === "search" ? `${purpose} rollout` : "episode"} ${key}`, run);
  return ok(renderTrajectoryPage(run, rollout, model.readTrajectory(rollout), LINKS));
}

export const SEARCH_ROUTES: Route<ViewerContext>[] = [
  {
    path: "/",
    kinds: ["search"],
    render: async ({ model, run, diffs }) =>
      ok(
        renderReport(await loadReportData(model, { diffs, memo: model.memo }), {
          links: LINKS,
          nav: viewerNav(run),
          live: run.state === "running",
        }),
      ),
  },
  {
    path: "/candidates",
    kinds: ["search"],
    render: ({ model, run, url }) => {
      const from = url.searchParams.get("from");
      const picked = from ? findCandidate(model, from) : null;
      return ok(renderCandidateList(run, model.listCandidates(), roles(model), LINKS, picked));
    },
  },
  {
    path: "/candidates/:commit",
    kinds: ["search"],
    render: async (context, { commit = "" }) => {
      const { model, run } = context;
      const candidate = findCandidate(model, commit);
      if (!candidate) return notFound(`no candidate ${commit}`, run);
      const rollouts = model.listRollouts(candidate.commit);
      const parent = candidate.parent;
      return ok(
        renderCandidatePage(
          {
            run,
            runDir: model.paths.dir,
            candidate,
            accepted: model.listRounds().some((r) => r.accepted_commit === candidate.commit),
            verdictReason: verdictReason(candidate, model.getRound(candidate.round)),
            roles: roles(model),
            diff: await readDiff(context, candidate.commit, parent),
            summary: parent
              ? await model.memo(`change-summary:${candidate.commit}:${parent}`, [], () =>
                  changeSummary(context.repo, candidate.commit, parent),
                )
              : [],
            comparisons: parent
              ? model.memo("comparisons", [parent, candidate.commit], () =>
                  storedComparisons(model, parent, candidate.commit),
                )
              : [],
            systemPrompts: systemPrompts(model, rollouts),
            evaluations: model.listEvaluations().filter((e) => e.candidate === candidate.commit),
            rollouts,
          },
          LINKS,
        ),
      );
    },
  },
  {
    path: "/candidates/:commit/files",
    kinds: ["search"],
    render: (context, { commit = "" }) => filesPage(context, commit, null),
  },
  {
    path: "/candidates/:commit/files/:path",
    kinds: ["search"],
    render: (context, { commit = "", path = "" }) => filesPage(context, commit, path),
  },
  {
    path: "/compare/:before/:after",
    kinds: ["search"],
    render: async (context, params) => {
      const { model, run } = context;
      const before = findCandidate(model, params.before ?? "");
      const after = findCandidate(model, params.after ?? "");
      if (!before || !after) return notFound(`no candidate ${before ? params.after : params.before}`, run);
      return ok(
        renderComparePage(
          run,
          before,
          after,
          model.memo("comparisons", [before.commit, after.commit], () =>
            storedComparisons(model, before.commit, after.commit),
          ),
          await readDiff(context, after.commit, before.commit),
          LINKS,
        ),
      );
    },
  },
  {
    path: "/side-by-side/:purpose/:before/:after",
    kinds: ["search"],
    render: ({ model, run }, params) => {
      const purpose = params.purpose ?? "";
      if (!isPurpose(purpose)) return notFound(`no purpose ${purpose}`, run);
      const pair = [params.before ?? "", params.after ?? ""].map((key) => model.getRollout(purpose, key));
      if (pair.some((r) => r === undefined)) return notFound("no such rollout", run);
      const labelOf = (commit: string) => {
        const c = model.getCandidate(commit);
        return c ? candidateId(c) : shortSha(commit);
      };
      const episodes = (pair as RolloutRecord[]).map((rollout) => ({
        rollout,
        trajectory: model.readTrajectory(rollout),
        label: labelOf(rollout.candidate),
      }));
      return ok(renderSideBySidePage(run, episodes, LINKS));
    },
  },
  {
    path: "/rollouts/:purpose/:key",
    kinds: ["search"],
    render: (context, { purpose = "", key = "" }) => rolloutPage(context, purpose, key),
  },
];
