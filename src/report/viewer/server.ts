/**
 * `hsearch view`: a small local web server over one run directory (DESIGN §8, §9). Pages are rendered from the run
 * database on every request, so they follow a running search. It never maps a URL to a file: every page is a store
 * lookup (candidates by commit, rollouts by key), so no request can reach anything outside the run.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { badInput, HsearchError, isHsearchError } from "../../core/errors";
import { openRunStore, PURPOSES, type Purpose, type RunStore } from "../../store";
import type { Links } from "../page";
import { renderReport } from "../render-report";
import { cachedDiffs, type DiffSource, gitDiffs, loadReportData } from "../report-data";
import { authorize, cookieHeader, isLoopbackHost, newToken } from "./access";
import { renderCandidateList, renderCandidatePage, renderTrajectoryPage, viewerNav } from "./pages";

export interface ViewerOptions {
  runDir: string;
  /** Default 127.0.0.1. Any other non-loopback address needs `allowRemote`. */
  host?: string;
  /** Default 0: a free port chosen by the system. */
  port?: number;
  allowRemote?: boolean;
  /** How often the report page of a running run reloads itself. */
  refreshSeconds?: number;
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
  "Content-Security-Policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; form-action 'none'",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

export const LINKS: Links = {
  candidate: (commit) => `/candidates/${commit}`,
  rollout: (purpose, key) => `/rollouts/${purpose}/${encodeURIComponent(key)}`,
};

interface Reply {
  status: number;
  body: string;
  type?: string;
}

const notFound = (what = "no such page"): Reply => ({ status: 404, body: `${what}\n`, type: "text/plain" });

export async function startViewer(options: ViewerOptions): Promise<StartedViewer> {
  const host = options.host ?? "127.0.0.1";
  if (!isLoopbackHost(host) && !options.allowRemote) {
    throw badInput(
      `refusing to serve on ${host}: the viewer binds to loopback (127.0.0.1) only; pass --allow-remote to expose the run to other machines`,
      { field: "host" },
    );
  }
  const store = openRunStore(options.runDir, { readonly: true });
  const token = newToken();
  const diffs = cachedDiffs(gitDiffs(store.paths.harness));
  const refreshSeconds = options.refreshSeconds ?? 10;
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
    try {
      return await route(store, url.pathname, diffs, refreshSeconds);
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
    store.close();
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
          store.close();
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

async function route(
  store: RunStore,
  pathname: string,
  diffs: DiffSource,
  refreshSeconds: number,
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
      body: renderReport(data, {
        links: LINKS,
        nav: viewerNav(run),
        refreshSeconds: run.state === "running" ? refreshSeconds : undefined,
      }),
    };
  }
  if (first === "candidates" && parts.length === 1) {
    const candidates = store.listCandidates();
    const accepted = new Set(
      store.listRounds().flatMap((r) => (r.accepted_commit ? [r.accepted_commit] : [])),
    );
    return { status: 200, body: renderCandidateList(run, candidates, accepted, LINKS) };
  }
  if (first === "candidates" && second !== undefined && third === undefined) {
    const candidate = findCandidate(store, second);
    if (!candidate) return notFound(`no candidate ${second}`);
    let diff: { text: string } | { error: string };
    try {
      diff = { text: await diffs(candidate.commit, candidate.parent) };
    } catch (error) {
      diff = { error: error instanceof Error ? error.message : String(error) };
    }
    const accepted = store.listRounds().some((r) => r.accepted_commit === candidate.commit);
    const evaluations = store.listEvaluations().filter((e) => e.candidate === candidate.commit);
    const rollouts = store.listRollouts(candidate.commit);
    return {
      status: 200,
      body: renderCandidatePage({ run, candidate, accepted, diff, evaluations, rollouts }, LINKS),
    };
  }
  if (first === "rollouts" && second !== undefined && third !== undefined && rest.length === 0) {
    if (!(PURPOSES as readonly string[]).includes(second)) return notFound();
    const rollout = store.getRollout(second as Purpose, third);
    if (!rollout) return notFound(`no ${second} rollout ${third}`);
    return { status: 200, body: renderTrajectoryPage(run, rollout, store.readTrajectory(rollout), LINKS) };
  }
  return notFound();
}

/** A candidate by its full commit or a unique prefix of at least 7 hex digits. */
function findCandidate(store: RunStore, commit: string) {
  if (!/^[0-9a-f]{7,64}$/.test(commit)) return undefined;
  const exact = store.getCandidate(commit);
  if (exact) return exact;
  const matches = store.listCandidates().filter((c) => c.commit.startsWith(commit));
  return matches.length === 1 ? matches[0] : undefined;
}
