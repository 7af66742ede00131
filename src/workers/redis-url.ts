import { Redis } from "ioredis";
import { HsearchError } from "../core";

/**
 * The Redis that carries the rollout queue: its URL checked and reached once, with a time limit, before anything
 * starts, so a typo or a Redis that is down is a clear bad-input error naming the URL instead of a process that
 * retries forever (ioredis reconnects without end by default, which a running worker wants and a start does not).
 */

/** How long the first connection may take before the URL is reported unreachable. */
const CONNECT_TIMEOUT_MS = 5000;

/** The URL as printed: a password in it is masked. */
export function redactRedisUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:@/]*:)[^@/]*@/i, "$1***@");
}

/** `redis://[user:password@]host[:port][/db]` or `rediss://…` (TLS); anything else is refused. */
export function checkRedisUrl(url: string, flag: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new HsearchError("bad_input", `'${url}' is not a URL; give redis://host:port`, { field: flag });
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:")
    throw new HsearchError(
      "bad_input",
      `${redactRedisUrl(url)}: a Redis URL starts with redis:// or rediss://`,
      { field: flag },
    );
  if (!parsed.hostname)
    throw new HsearchError("bad_input", `${redactRedisUrl(url)}: no host`, { field: flag });
  return url;
}

/** Connect once and PING; a refused, unresolvable or silent server is a bad-input error naming the URL. */
export async function reachRedis(url: string, flag: string, timeoutMs = CONNECT_TIMEOUT_MS): Promise<void> {
  checkRedisUrl(url, flag);
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // The socket's own error (ECONNREFUSED, ENOTFOUND) arrives as an event; the rejected promise only says "closed".
  let socketError: Error | undefined;
  client.on("error", (error: Error) => {
    socketError ??= error;
  });
  try {
    await withTimeout(
      (async () => {
        await client.connect();
        await client.ping();
      })(),
      timeoutMs,
    );
  } catch (error) {
    const reason = socketError?.message ?? (error instanceof Error ? error.message : String(error));
    throw new HsearchError("bad_input", `cannot reach Redis at ${redactRedisUrl(url)}: ${reason}`, {
      field: flag,
      cause: error,
    });
  } finally {
    client.disconnect();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
