/**
 * The request cache: a SQLite table of answered requests, keyed by the canonical request (model id, endpoint,
 * messages, tools, temperature, max_tokens) plus seed and repeat index. The simulator context is not part of the key
 * and is never stored; neither is anything from the client (API keys live only in request headers). Only validated
 * responses are stored, so a failure is never replayed.
 */
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import Database from "better-sqlite3";
import {
  canonicalJson,
  canonicalJsonOfMembers,
  HsearchError,
  rememberedCanonicalJson,
  retryWhileBusy,
  sha256,
} from "../core";
import type { ChatModelMiddleware } from "./middleware";
import type { ChatRequest, ChatResponse, ToolSpec } from "./types";
import { validateChatResponse } from "./validate-reply";

const CACHE_KEY_VERSION = 1;

/** The request cache's file name inside its directory. */
export const CACHE_FILE = "cache.db";

/**
 * Where the request cache lives (`cache.dir` of a search config, `--cache` of eval and probe): `run` (the run
 * directory), `user` (one cache for every run of this user, as promptfoo's: `$XDG_CACHE_HOME/hsearch`, else
 * `~/.cache/hsearch`), or a directory.
 */
export type CacheDirSetting = "run" | "user" | (string & {});

/** The cache file for a `cache.dir` setting; a relative directory is taken relative to `base`. */
export function requestCacheFile(
  setting: CacheDirSetting,
  where: { runDir?: string; base: string; env: NodeJS.ProcessEnv },
): string {
  if (setting === "run") {
    if (where.runDir === undefined)
      throw new HsearchError("internal", "cache dir 'run' needs a run directory", { field: "cache.dir" });
    return join(where.runDir, CACHE_FILE);
  }
  if (setting === "user") return join(userCacheDir(where.env), CACHE_FILE);
  return join(resolve(where.base, setting), CACHE_FILE);
}

/** `$XDG_CACHE_HOME/hsearch` when that is an absolute path (the XDG spec ignores a relative one), else ~/.cache/hsearch. */
export function userCacheDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, "hsearch");
  return join(env.HOME || homedir(), ".cache", "hsearch");
}

/**
 * `endpoint` tells apart two servers that answer to the same model name (a vLLM and an Ollama both serving
 * `llama3`); pass the base URL, which `endpointOf` strips of credentials.
 */
export function requestCacheKey(modelId: string, endpoint: string, request: ChatRequest): string {
  const key = {
    v: CACHE_KEY_VERSION,
    model: modelId,
    endpoint,
    messages: request.messages,
    temperature: request.temperature,
    max_tokens: request.max_tokens,
    top_p: request.top_p,
    reasoning_effort: request.reasoning_effort,
    thinking_budget: request.thinking_budget,
    send_seed: request.send_seed,
    prompt_cache: request.prompt_cache,
    extra: request.extra,
    seed: request.seed,
    repeat: request.repeat ?? 0,
  };
  const members: Record<string, string | undefined> = { tools: canonicalTools(request.tools) };
  for (const [name, value] of Object.entries(key)) members[name] = canonicalJson(value);
  // The same text as hashJson({...key, tools}): keys stored by earlier versions still match.
  return sha256(canonicalJsonOfMembers(members));
}

/**
 * The tools' canonical JSON: every request of an episode offers the same tools, and canonicalising their schemas was
 * most of the key's cost, so the specs an environment offers are `frozenJson`, canonicalised once per process.
 */
function canonicalTools(tools: readonly ToolSpec[] | undefined): string | undefined {
  if (tools === undefined) return undefined;
  return `[${tools.map((tool) => (tool === undefined ? "null" : rememberedCanonicalJson(tool))).join(",")}]`;
}

/** A base URL without user, password, query or fragment: safe to hash and to show. */
export function endpointOf(baseURL: string): string {
  const url = new URL(baseURL);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
}

export class RequestCache {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly selectStatement: Database.Statement<[string], { response: string }>;
  private readonly insertStatement: Database.Statement<[string, string, string, string]>;

  constructor(path: string) {
    this.path = resolve(path);
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      this.db = new Database(this.path);
      // Several processes (two runs sharing a user cache, worker processes) may open one cache file at once: wait
      // for a lock rather than fail, and set that before switching to WAL, which itself takes a lock. Two processes
      // switching a new file at once get SQLITE_BUSY without the busy wait: that step is retried.
      this.db.pragma("busy_timeout = 10000");
      retryWhileBusy(() => this.db.pragma("journal_mode = WAL"));
    } catch (error) {
      throw new HsearchError(
        "bad_input",
        `cannot open the request cache ${this.path}: ${(error as Error).message}`,
        { file: this.path, cause: error },
      );
    }
    // A cache can lose its last writes on power loss without harm; a fsync per insert would stall the event loop.
    this.db.pragma("synchronous = NORMAL");
    retryWhileBusy(() =>
      this.db.exec(
        `CREATE TABLE IF NOT EXISTS responses (
         key TEXT PRIMARY KEY,
         model TEXT NOT NULL,
         response TEXT NOT NULL,
         created_at TEXT NOT NULL
       )`,
      ),
    );
    this.selectStatement = this.db.prepare("SELECT response FROM responses WHERE key = ?");
    this.insertStatement = this.db.prepare(
      "INSERT OR REPLACE INTO responses (key, model, response, created_at) VALUES (?, ?, ?, ?)",
    );
  }

  get(key: string): ChatResponse | undefined {
    const row = this.selectStatement.get(key);
    if (!row) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(row.response);
    } catch (error) {
      throw new HsearchError(
        "internal",
        `request cache row ${key} is not JSON: ${(error as Error).message}`,
        {
          file: this.path,
        },
      );
    }
    const response = validateChatResponse(parsed, `request cache row ${key}`);
    return { ...response, cached: true };
  }

  put(key: string, modelId: string, response: ChatResponse): void {
    const { cached: _cached, ...stored } = response;
    this.insertStatement.run(key, modelId, JSON.stringify(stored), new Date().toISOString());
  }

  size(): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM responses").get() as { n: number }).n;
  }

  close(): void {
    if (openCaches.get(this.path) === this) openCaches.delete(this.path);
    if (this.db.open) this.db.close();
  }
}

const openCaches = new Map<string, RequestCache>();

/** One connection per cache file per process, shared by every model that names it. */
export function openRequestCache(path: string): RequestCache {
  const key = resolve(path);
  const existing = openCaches.get(key);
  if (existing) return existing;
  const cache = new RequestCache(key);
  openCaches.set(key, cache);
  return cache;
}

export function closeRequestCaches(): void {
  for (const cache of [...openCaches.values()]) cache.close();
}

export function withCache(cache: RequestCache, endpoint: string): ChatModelMiddleware {
  return (inner) => ({
    id: inner.id,
    provider: inner.provider,
    generate: async (request, options) => {
      const key = requestCacheKey(inner.id, endpoint, request);
      const hit = cache.get(key);
      if (hit) return hit;
      const response = await inner.generate(request, options);
      cache.put(key, inner.id, response);
      return response;
    },
  });
}
