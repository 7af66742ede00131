/**
 * The `fetch` the provider SDKs are given: one request on Node's http/https with keep-alive, its answer read whole
 * and handed back as a `Response`. Node's own fetch (undici, through web streams) cost about 0.6 ms of CPU per
 * model call more on a local server (a third of hsearch's CPU per call in bench/search-wall.ts), spent on the event
 * loop every episode shares. What the SDKs see is the same: status, headers, body, an `AbortError` when their
 * signal fires (their timeout covers the whole answer now, not only its headers), a `TypeError("fetch failed")`
 * with the cause when the connection fails. Anything outside that path (a redirect, a streamed or form body, another
 * scheme) goes to Node's fetch as before.
 */
import http from "node:http";
import https from "node:https";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";

// Idle connections are closed after 4 s, as undici does, so one is not reused just as a server drops it (servers
// commonly keep idle connections 5 s).
const IDLE_MS = 4000;
const agents = {
  "http:": new http.Agent({ keepAlive: true, timeout: IDLE_MS }),
  "https:": new https.Agent({ keepAlive: true, timeout: IDLE_MS }),
};

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

export const httpFetch: typeof fetch = async (input, init) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : undefined;
  const body = init?.body;
  const protocol = url === undefined ? undefined : new URL(url).protocol;
  if (
    url === undefined ||
    (protocol !== "http:" && protocol !== "https:") ||
    !(body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array)
  )
    return fetch(input, init);
  const response = await send(url, protocol, init ?? {}, body ?? undefined);
  if (response.status >= 300 && response.status < 400 && response.headers.has("location"))
    return fetch(input, init);
  return response;
};

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

function send(
  url: string,
  protocol: "http:" | "https:",
  init: RequestInit,
  body: string | Uint8Array | undefined,
): Promise<Response> {
  const { signal } = init;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  if (body !== undefined)
    headers["content-length"] = String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
  const request = (protocol === "http:" ? http : https).request(url, {
    method: init.method ?? "GET",
    headers,
    agent: agents[protocol],
  });
  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      reject(error);
    };
    const onAbort = () => {
      fail(abortError(signal as AbortSignal));
      request.destroy();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    request.on("error", (error) => fail(new TypeError("fetch failed", { cause: error })));
    request.on("response", (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("error", (error) => fail(new TypeError("fetch failed", { cause: error })));
      incoming.on("aborted", () =>
        fail(new TypeError("fetch failed", { cause: new Error("response aborted") })),
      );
      incoming.on("end", () => {
        if (settled) return;
        const status = incoming.statusCode ?? 0;
        const responseHeaders = new Headers();
        const raw = incoming.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2)
          responseHeaders.append(raw[i] as string, raw[i + 1] as string);
        let content: Buffer;
        try {
          content = decoded(Buffer.concat(chunks), responseHeaders.get("content-encoding"));
        } catch (error) {
          fail(new TypeError("fetch failed", { cause: error }));
          return;
        }
        if (responseHeaders.has("content-encoding")) {
          responseHeaders.delete("content-encoding");
          responseHeaders.delete("content-length");
        }
        let response: Response;
        try {
          const view = new Uint8Array(content.buffer as ArrayBuffer, content.byteOffset, content.byteLength);
          response = new Response(NULL_BODY_STATUSES.has(status) ? null : view, {
            status,
            statusText: incoming.statusMessage ?? "",
            headers: responseHeaders,
          });
        } catch (error) {
          // A status Response refuses (over 599) is a broken answer, as Node's fetch treats it.
          fail(new TypeError("fetch failed", { cause: error }));
          return;
        }
        Object.defineProperty(response, "url", { value: url });
        settled = true;
        signal?.removeEventListener("abort", onAbort);
        resolve(response);
      });
    });
    request.end(body);
  });
}

/** The body as sent before a content encoding (none is asked for; a server may use one anyway). */
function decoded(content: Buffer, encoding: string | null): Buffer {
  switch (encoding?.trim().toLowerCase()) {
    case undefined:
    case "":
    case "identity":
      return content;
    case "gzip":
    case "x-gzip":
      return gunzipSync(content);
    case "deflate":
      return inflateSync(content);
    case "br":
      return brotliDecompressSync(content);
    default:
      throw new Error(`unsupported content-encoding ${encoding}`);
  }
}
