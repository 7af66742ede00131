/**
 * `hsearch view`: a small local web server over one run directory (docs/DESIGN.md §8, §9). The HTTP layer only:
 * access, headers, and dispatch through the route tables (search-routes.ts, evaluation-routes.ts). Pages render
 * from the run's in-memory model (run-model.ts), synced once per request from what the run committed since; a page
 * already rendered from the same snapshot is served again as it was. It never maps a URL to a file: every page is
 * a lookup in the model (candidates by commit, rollouts by key), so no request can reach anything outside the run.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { badInput, HsearchError, isHsearchError } from "../../core";
import { readTree } from "../../git";
import { openRunStore, type RunStore, runDirState, runPaths } from "../../store";
import { VIEWER_SCRIPT_PATH } from "../html/page";
import { rememberPromises } from "../model/memo";
import { cachedDiffs, gitDiffs } from "../model/report-data";
import { authorize, cookieHeader, isLoopbackHost, newToken } from "./access";
import { COMPARE_RUNS_PATH, type CompareRunsOptions, compareRunsReply } from "./compare-runs-route";
import type { ViewerContext } from "./context";
import { EVALUATION_ROUTES } from "./evaluation-routes";
import { LINKS } from "./links";
import { notFound, type Reply, text, waiting } from "./reply";
import { matchRoute, pathSegments, type Route } from "./routes";
import { type ModelStats, RunModel } from "./run-model";
import { SEARCH_ROUTES } from "./search-routes";
import { viewerScript } from "./viewer-script";

export { LINKS };

export interface ViewerOptions {
  runDir: string;
  /** Default 127.0.0.1. Any other non-loopback address needs `allowRemote`. */
  host?: string;
  /** Default 0: a free port chosen by the system. */
  port?: number;
  allowRemote?: boolean;
  /** How often the pages of a running run update themselves (default 5 s). */
  refreshSeconds?: number;
  /** Serve a page rendered from the same snapshot again (default true); the benchmark turns it off to time renders. */
  pageCache?: boolean;
  /** `hsearch compare A B --view`: this run beside another directory, at /compare-runs. */
  compare?: CompareRunsOptions;
}

export interface StartedViewer {
  /** The URL to open, with the token. */
  url: string;
  host: string;
  port: number;
  token: string;
  /** What the run's model has read and done so far (null before the run has a database). */
  stats(): ModelStats | null;
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

/** Every page of the viewer, in match order. */
const ROUTES: readonly Route<ViewerContext>[] = [...SEARCH_ROUTES, ...EVALUATION_ROUTES];

/** Pages kept per snapshot: enough for the pages one reader polls. */
const PAGE_CACHE_SIZE = 64;

export async function startViewer(options: ViewerOptions): Promise<StartedViewer> {
  const host = options.host ?? "127.0.0.1";
  if (!isLoopbackHost(host) && !options.allowRemote) {
    throw badInput(
      `refusing to serve on ${host}: the viewer binds to loopback (127.0.0.1) only; pass --allow-remote to expose the run to other machines`,
      { field: "host" },
    );
  }
  const paths = runPaths(options.runDir);
  // Waiting is for a run to come (`hsearch view` right after `hsearch run`); a directory of other things never
  // becomes one, so it is bad input as for `hsearch status`.
  if (runDirState(options.runDir) === "other")
    throw new HsearchError(
      "not_found",
      `${options.runDir} is not a run or evaluation directory and no run is being created in it (looked for ${paths.db})`,
      { file: options.runDir },
    );
  // The run may not have started yet: open its database once it exists.
  let store: RunStore | null = null;
  let model: RunModel | null = null;
  const openModel = (): { store: RunStore; model: RunModel } | null => {
    if (store === null && runDirState(options.runDir) === "run") {
      store = openRunStore(options.runDir, { readonly: true, live: true });
      model = new RunModel(store);
    }
    return store && model ? { store, model } : null;
  };
  openModel();
  const repo = paths.harness;
  const token = newToken();
  const diffs = cachedDiffs(gitDiffs(repo));
  const tree = rememberPromises(
    (commit: string) => commit,
    (commit: string) => readTree(repo, commit),
  );
  const pages = new Map<string, Reply>();
  let pagesOf = -1;
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
    if (request.method !== "GET" && request.method !== "HEAD") return text(405, "only GET");
    const url = new URL(request.url ?? "/", "http://viewer.invalid");
    const access = authorize(request, url, port, token);
    if (access === null)
      return text(403, "forbidden: open the URL that `hsearch view` printed (it carries the access token)");
    if (access === "query") response.setHeader("Set-Cookie", cookieHeader(port, token));
    if (url.pathname === VIEWER_SCRIPT_PATH) return { status: 200, body: script, type: "text/javascript" };
    // One page at a time: a page that awaits git must not see the model change under it (its banner and its
    // tables are one snapshot), so the next request syncs only once this one is rendered.
    const done = rendering.then(() => render(url));
    rendering = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
  };

  let rendering: Promise<void> = Promise.resolve();
  const render = async (url: URL): Promise<Reply> => {
    let run: ViewerContext["run"] | undefined;
    try {
      const opened = openModel();
      if (opened === null) return waiting(options.runDir);
      opened.model.sync();
      run = opened.model.getRun();
      if (options.compare && url.pathname === COMPARE_RUNS_PATH)
        return await compareRunsReply(options.runDir, run, options.compare, LINKS);
      if (run === undefined) return waiting(options.runDir);
      // A page of this snapshot already rendered is the same page (the token is no part of it).
      url.searchParams.delete("token");
      const key = `${url.pathname}?${url.searchParams.toString()}`;
      if (pagesOf !== opened.model.generation) {
        pages.clear();
        pagesOf = opened.model.generation;
      }
      const cached = options.pageCache === false ? undefined : pages.get(key);
      if (cached) return cached;
      const segments = pathSegments(url.pathname);
      const match = segments === null ? null : matchRoute(ROUTES, run.kind, segments);
      if (match === null) return notFound("no such page", run);
      const context: ViewerContext = { ...opened, run, url, repo, diffs, tree };
      const reply = await match.route.render(context, match.params);
      if (reply.status === 200) {
        if (pages.size >= PAGE_CACHE_SIZE) pages.clear();
        pages.set(key, reply);
      }
      return reply;
    } catch (error) {
      if (isHsearchError(error, "not_found")) return notFound(error.message, run);
      const message = error instanceof Error ? error.message : String(error);
      return text(500, `hsearch view: ${message}`);
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
  // Read the run into memory and render the home page now, while the user opens the URL: the first request of a
  // large run (thousands of rollouts, the paired bootstraps) then finds it ready.
  rendering = rendering
    .then(() => render(new URL("/", "http://viewer.invalid")))
    .then(
      () => undefined,
      () => undefined,
    );
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/?token=${token}`,
    host,
    port,
    token,
    stats: () => (model as RunModel | null)?.stats ?? null,
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
