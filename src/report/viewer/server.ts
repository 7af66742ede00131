/**
 * `hsearch view`: a small local web server over one run directory (docs/DESIGN.md §8, §9). Pages are rendered from the run
 * database on every request, so they follow a running search. It never maps a URL to a file: every page is a store
 * lookup (candidates by commit, rollouts by key), so no request can reach anything outside the run.
 */
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { badInput, HsearchError, isHsearchError } from "../../core/errors";
import { FAMILIES, KINDS } from "../../domain/task";
import { readTree } from "../../git";
import {
  openRunStore,
  PROBES,
  type Probe,
  PURPOSES,
  type Purpose,
  type RolloutRecord,
  type RunRecord,
  type RunStore,
  resolveCandidate,
  runPaths,
} from "../../store";
import { runStatus, verdictReason } from "../../store/run-status";
import { suiteOfTask } from "../compare";
import { storedComparisons } from "../comparisons";
import { loadStoredEvaluation } from "../eval-data";
import { type EpisodeFilter, type EvaluationLinks, OUTCOMES, renderEvaluationPage } from "../eval-page";
import { shortSha } from "../format";
import { html } from "../html";
import { page, VIEWER_SCRIPT_PATH } from "../page";
import { loadStoredProbe, type ProbeLinks, renderProbeEpisodePage, renderProbePage } from "../probe-page";
import { renderReport } from "../render-report";
import { cachedDiffs, changeSummary, type DiffSource, gitDiffs, loadReportData } from "../report-data";
import { authorize, cookieHeader, isLoopbackHost, newToken } from "./access";
import {
  renderComparePage,
  renderFilesPage,
  renderSideBySidePage,
  sideBySideLink,
  type ViewerLinks,
} from "./compare-pages";
import { COMPARE_RUNS_PATH, type CompareRunsOptions, compareRunsReply } from "./compare-runs-route";
import { candidateId, viewerNav } from "./nav";
import { type Roles, renderCandidateList, renderCandidatePage, renderTrajectoryPage } from "./pages";
import { viewerScript } from "./viewer-script";

export interface ViewerOptions {
  runDir: string;
  /** Default 127.0.0.1. Any other non-loopback address needs `allowRemote`. */
  host?: string;
  /** Default 0: a free port chosen by the system. */
  port?: number;
  allowRemote?: boolean;
  /** How often the pages of a running run update themselves (default 5 s). */
  refreshSeconds?: number;
  /** `hsearch compare A B --view`: this run beside another directory, at /compare-runs. */
  compare?: CompareRunsOptions;
}

export interface StartedViewer {
  /** The URL to open, with the token. */
  url: string;
  host: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  // The viewer's own script file may run and fetch pages from this server; nothing inline, nothing elsewhere.
  "Content-Security-Policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'none'",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

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

interface Reply {
  status: number;
  body: string;
  type?: string;
}

const notFound = (what = "no such page"): Reply => ({ status: 404, body: `${what}\n`, type: "text/plain" });

/** Before the run has written its database: a page that keeps checking and becomes the report when it can. */
function waiting(runDir: string): Reply {
  const body = html`<h1>Waiting for the run to start</h1><p class="muted">No run has been recorded in <code>${runDir}</code> yet. This page updates itself once <code>hsearch run</code> has created it.</p>`;
  return {
    status: 200,
    body: page(
      {
        title: "hsearch view · waiting",
        nav: html`<nav class="top"><strong>hsearch view</strong></nav>`,
        live: true,
      },
      body,
    ),
  };
}

export async function startViewer(options: ViewerOptions): Promise<StartedViewer> {
  const host = options.host ?? "127.0.0.1";
  if (!isLoopbackHost(host) && !options.allowRemote) {
    throw badInput(
      `refusing to serve on ${host}: the viewer binds to loopback (127.0.0.1) only; pass --allow-remote to expose the run to other machines`,
      { field: "host" },
    );
  }
  // The run may not have started yet (`hsearch view` right after `hsearch run`): open its database once it exists.
  let store: RunStore | null = null;
  const openStore = (): RunStore | null => {
    if (store === null && existsSync(runPaths(options.runDir).db))
      store = openRunStore(options.runDir, { readonly: true, live: true });
    return store;
  };
  openStore();
  const repo = runPaths(options.runDir).harness;
  const token = newToken();
  const diffs = cachedDiffs(gitDiffs(repo));
  const script = viewerScript((options.refreshSeconds ?? 5) * 1000);
  let port = 0;

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const reply = await respond(request, response);
    response.writeHead(reply.status, {
      ...SECURITY_HEADERS,
      "Content-Type": `${reply.type ?? "text/html"}; charset=utf-8`,
    });
    response.end(request.method === "HEAD" ? undefined : reply.body);
  };

  const respond = async (request: IncomingMessage, response: ServerResponse): Promise<Reply> => {
    if (request.method !== "GET" && request.method !== "HEAD")
      return { status: 405, body: "only GET\n", type: "text/plain" };
    const url = new URL(request.url ?? "/", "http://viewer.invalid");
    const access = authorize(request, url, port, token);
    if (access === null)
      return {
        status: 403,
        body: "forbidden: open the URL that `hsearch view` printed (it carries the access token)\n",
        type: "text/plain",
      };
    if (access === "query") response.setHeader("Set-Cookie", cookieHeader(port, token));
    if (url.pathname === VIEWER_SCRIPT_PATH) return { status: 200, body: script, type: "text/javascript" };
    try {
      if (options.compare && url.pathname === COMPARE_RUNS_PATH)
        return await compareRunsReply(options.runDir, openStore()?.getRun(), options.compare, LINKS);
      const opened = openStore();
      if (opened === null || opened.getRun() === undefined) return waiting(options.runDir);
      const kind = opened.getRun()?.kind;
      if (kind === "eval") return await routeEvaluation(opened, url, repo);
      if (kind === "probe_beliefs" || kind === "probe_challenge") return await routeProbe(opened, url, repo);
      return await route(opened, url.pathname, diffs, repo, url.searchParams);
    } catch (error) {
      if (isHsearchError(error, "not_found")) return notFound(error.message);
      const message = error instanceof Error ? error.message : String(error);
      return { status: 500, body: `hsearch view: ${message}\n`, type: "text/plain" };
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error) => {
      if (!response.headersSent) response.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
      response.end(`hsearch view: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  try {
    port = await listen(server, host, options.port ?? 0);
  } catch (error) {
    (store as RunStore | null)?.close();
    throw error;
  }
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/?token=${token}`,
    host,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          (store as RunStore | null)?.close();
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const why = error.code === "EADDRINUSE" ? `port ${port} is in use` : error.message;
      reject(new HsearchError("conflict", `cannot serve on ${host}:${port}: ${why}`, { cause: error }));
    };
    server.once("error", onError);
    server.listen({ host, port }, () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Path segments, decoded; null when one does not decode (a malformed escape). */
function segments(pathname: string): string[] | null {
  try {
    return pathname.split("/").slice(1).map(decodeURIComponent);
  } catch {
    return null;
  }
}

function readDiff(
  diffs: DiffSource,
  commit: string,
  parent: string | null,
): Promise<{ text: string } | { error: string }> {
  return diffs(commit, parent).then(
    (text) => ({ text }),
    (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
  );
}

function roles(store: RunStore): Roles {
  const status = runStatus(store);
  return {
    accepted: new Set(store.listRounds().flatMap((r) => (r.accepted_commit ? [r.accepted_commit] : []))),
    incumbent: status.incumbent?.commit ?? null,
    selected: status.selected?.commit ?? null,
  };
}

/** The system prompt each suite's agent saw: the first system message of one trajectory per suite. */
function systemPrompts(
  store: RunStore,
  rollouts: readonly RolloutRecord[],
): Array<{ suite: string; text: string }> {
  const prompts: Array<{ suite: string; text: string }> = [];
  const seen = new Set<string>();
  for (const rollout of rollouts) {
    const suite = suiteOfTask(rollout.task_id);
    if (seen.has(suite) || rollout.scores.kind === "infra_error") continue;
    seen.add(suite);
    const first = store
      .readTrajectory(rollout)
      .events.find((e) => e.type === "message" && e.author === "system");
    if (first?.type === "message") prompts.push({ suite, text: first.text });
  }
  return prompts;
}

async function route(
  store: RunStore,
  pathname: string,
  diffs: DiffSource,
  repo: string,
  params: URLSearchParams,
): Promise<Reply> {
  const parts = segments(pathname);
  if (parts === null) return notFound();
  const run = store.getRun();
  if (!run) return notFound("no run recorded in this run directory yet");
  const [first = "", second, third, ...rest] = parts;

  if (parts.length === 1 && first === "") {
    const data = await loadReportData(store, { diffs });
    return {
      status: 200,
      body: renderReport(data, { links: LINKS, nav: viewerNav(run), live: run.state === "running" }),
    };
  }
  if (first === "candidates" && parts.length === 1) {
    const from = params.get("from");
    const picked = from ? findCandidate(store, from) : null;
    return {
      status: 200,
      body: renderCandidateList(run, store.listCandidates(), roles(store), LINKS, picked),
    };
  }
  if (first === "candidates" && second !== undefined) {
    const candidate = findCandidate(store, second);
    if (!candidate) return notFound(`no candidate ${second}`);
    if (third === "files") {
      if (rest.length > 1) return notFound();
      const files = await readTree(repo, candidate.commit);
      const path = rest[0] ?? null;
      // A file is a key of the commit's tree, never a filesystem path.
      if (path !== null && !Object.hasOwn(files, path))
        return notFound(`no file ${path} in ${candidate.commit}`);
      return { status: 200, body: renderFilesPage(run, store.paths.dir, candidate, files, path, LINKS) };
    }
    if (third !== undefined) return notFound();
    const rollouts = store.listRollouts(candidate.commit);
    return {
      status: 200,
      body: renderCandidatePage(
        {
          run,
          runDir: store.paths.dir,
          candidate,
          accepted: store.listRounds().some((r) => r.accepted_commit === candidate.commit),
          verdictReason: verdictReason(candidate, store.getRound(candidate.round)),
          roles: roles(store),
          diff: await readDiff(diffs, candidate.commit, candidate.parent),
          summary: candidate.parent ? await changeSummary(repo, candidate.commit, candidate.parent) : [],
          comparisons: candidate.parent ? storedComparisons(store, candidate.parent, candidate.commit) : [],
          systemPrompts: systemPrompts(store, rollouts),
          evaluations: store.listEvaluations().filter((e) => e.candidate === candidate.commit),
          rollouts,
        },
        LINKS,
      ),
    };
  }
  if (first === "compare" && second !== undefined && third !== undefined && rest.length === 0) {
    const before = findCandidate(store, second);
    const after = findCandidate(store, third);
    if (!before || !after) return notFound(`no candidate ${before ? third : second}`);
    return {
      status: 200,
      body: renderComparePage(
        run,
        before,
        after,
        storedComparisons(store, before.commit, after.commit),
        await readDiff(diffs, after.commit, before.commit),
        LINKS,
      ),
    };
  }
  if (first === "side-by-side" && second !== undefined && third !== undefined && rest.length === 1) {
    if (!(PURPOSES as readonly string[]).includes(second)) return notFound();
    const purpose = second as Purpose;
    const pair = [third, rest[0] as string].map((key) => store.getRollout(purpose, key));
    if (pair.some((r) => r === undefined)) return notFound("no such rollout");
    const labelOf = (commit: string) => {
      const c = store.getCandidate(commit);
      return c ? candidateId(c) : shortSha(commit);
    };
    const episodes = (pair as RolloutRecord[]).map((rollout) => ({
      rollout,
      trajectory: store.readTrajectory(rollout),
      label: labelOf(rollout.candidate),
    }));
    return { status: 200, body: renderSideBySidePage(run, episodes, LINKS) };
  }
  if (first === "rollouts" && second !== undefined && third !== undefined && rest.length === 0) {
    if (!(PURPOSES as readonly string[]).includes(second)) return notFound();
    const rollout = store.getRollout(second as Purpose, third);
    if (!rollout) return notFound(`no ${second} rollout ${third}`);
    return { status: 200, body: renderTrajectoryPage(run, rollout, store.readTrajectory(rollout), LINKS) };
  }
  return notFound();
}

/** The links of an evaluation's pages: its episodes, its harness's files, the home page with a filter. */
const EVALUATION_LINKS: EvaluationLinks = {
  rollout: LINKS.rollout,
  harness: () => "/harness",
  filtered: (filter) => {
    const query = new URLSearchParams(
      Object.entries(filter).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ).toString();
    return query ? `/?${query}` : "/";
  },
};

/** `?kind=…&family=…&outcome=…` as a filter; a value that is none of its choices is a 404 naming it. */
function episodeFilter(params: URLSearchParams): EpisodeFilter | Reply {
  const filter: EpisodeFilter = {};
  const choices = { kind: KINDS, family: FAMILIES, outcome: OUTCOMES } as const;
  for (const [key, values] of Object.entries(choices) as Array<[keyof EpisodeFilter, readonly string[]]>) {
    const value = params.get(key);
    if (value === null || value === "" || value === "all") continue;
    if (!values.includes(value)) return notFound(`no ${key} '${value}' (one of ${values.join(", ")})`);
    (filter as Record<string, string>)[key] = value;
  }
  return filter;
}

/** The harness's files (`/harness`, `/candidates/<sha>[/files[/<path>]]`): an evaluation has no other candidate page. */
async function harnessFiles(
  store: RunStore,
  repo: string,
  commit: string,
  path: string | null,
): Promise<Reply> {
  const run = store.getRun() as RunRecord;
  const candidate = findCandidate(store, commit);
  if (!candidate) return notFound(`no harness ${commit}`);
  const files = await readTree(repo, candidate.commit);
  if (path !== null && !Object.hasOwn(files, path)) return notFound(`no file ${path} in ${candidate.commit}`);
  return { status: 200, body: renderFilesPage(run, store.paths.dir, candidate, files, path, LINKS) };
}

/** The pages of an evaluation directory: its summary and episodes, each episode, the harness's files. */
async function routeEvaluation(store: RunStore, url: URL, repo: string): Promise<Reply> {
  const parts = segments(url.pathname);
  if (parts === null) return notFound();
  const run = store.getRun() as RunRecord;
  const [first = "", second, third, ...rest] = parts;
  if (parts.length === 1 && first === "") {
    const filter = episodeFilter(url.searchParams);
    if ("status" in filter) return filter;
    const stored = loadStoredEvaluation(store);
    return {
      status: 200,
      body: renderEvaluationPage(stored, {
        links: EVALUATION_LINKS,
        filter,
        nav: viewerNav(run),
        live: run.state === "running",
        events: store.listEvents(),
        usage: stored.usage,
      }),
    };
  }
  const seed = store.listCandidates()[0]?.commit;
  if (first === "harness" && parts.length <= 2 && seed)
    return harnessFiles(store, repo, seed, second === undefined || second === "" ? null : second);
  if (
    first === "candidates" &&
    second !== undefined &&
    (third === undefined || third === "files") &&
    rest.length <= 1
  )
    return harnessFiles(store, repo, second, rest[0] ?? null);
  if (first === "rollouts" && second !== undefined && third !== undefined && rest.length === 0) {
    if (!(PURPOSES as readonly string[]).includes(second)) return notFound();
    const rollout = store.getRollout(second as Purpose, third);
    if (!rollout) return notFound(`no episode ${third}`);
    return { status: 200, body: renderTrajectoryPage(run, rollout, store.readTrajectory(rollout), LINKS) };
  }
  return notFound();
}

const PROBE_LINKS: ProbeLinks = {
  episode: (probe, key) => `/probe-episodes/${probe}/${encodeURIComponent(key)}`,
  harness: (commit) => `/candidates/${commit}/files`,
};

/** The pages of a probe's directory: its report and episodes, each episode, the harnesses' files. */
async function routeProbe(store: RunStore, url: URL, repo: string): Promise<Reply> {
  const parts = segments(url.pathname);
  if (parts === null) return notFound();
  const run = store.getRun() as RunRecord;
  const [first = "", second, third, ...rest] = parts;
  if (parts.length === 1 && first === "")
    return {
      status: 200,
      body: renderProbePage(loadStoredProbe(store), {
        links: PROBE_LINKS,
        nav: viewerNav(run),
        live: run.state === "running",
        events: store.listEvents(),
      }),
    };
  const seed = store.listCandidates()[0]?.commit;
  if (first === "harness" && parts.length <= 2 && seed)
    return harnessFiles(store, repo, seed, second === undefined || second === "" ? null : second);
  if (
    first === "candidates" &&
    second !== undefined &&
    (third === undefined || third === "files") &&
    rest.length <= 1
  )
    return harnessFiles(store, repo, second, rest[0] ?? null);
  if (first === "probe-episodes" && second !== undefined && third !== undefined && rest.length === 0) {
    if (!(PROBES as readonly string[]).includes(second)) return notFound();
    const episode = store.getProbeEpisode(second as Probe, third);
    if (!episode) return notFound(`no ${second} episode ${third}`);
    return {
      status: 200,
      body: renderProbeEpisodePage(run, episode, store.readProbeTrajectory(episode), {
        links: PROBE_LINKS,
        nav: viewerNav(run),
      }),
    };
  }
  return notFound();
}

/**
 * A candidate by any of its names (seed, incumbent, selected, r4p1, a commit prefix): the resolver every command
 * uses; an unknown or ambiguous name is not_found listing the valid names, served as the 404 page's text.
 */
function findCandidate(store: RunStore, name: string) {
  return resolveCandidate(store, name, { field: "candidate" });
}
