/**
 * `hsearch serve`: an HTTP server speaking OpenAI's Chat Completions (POST /v1/chat/completions, JSON or server-sent
 * events; GET /v1/models) that applies a harness to every conversation it relays to the backing model. A
 * conversation is found by the `x-conversation-id` header, or else by the history the client resends (the key of
 * everything up to the client's last assistant message, which is what this server replied). Bad requests get
 * OpenAI's error shapes; the server keeps serving. Request headers (the client's API key among them) are never
 * read into a log.
 */
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { HsearchError } from "../core";
import type { Usage } from "../models/types";
import { Conversation, type LogLine, type RelaySetup } from "./conversation";
import {
  type ClientMessage,
  completionBody,
  historyKey,
  type ParsedRequest,
  parseRequest,
  type Reply,
  replyMessage,
  streamEvents,
  WireError,
} from "./wire";

export interface ServeOptions extends RelaySetup {
  port?: number;
  host?: string;
  /** Directory of the JSONL logs, one file per conversation; none = no log. */
  logDir?: string;
  /** Largest request body accepted, in bytes (default 16 MiB). */
  maxBodyBytes?: number;
  /** A conversation idle this long is dropped (default 1 hour). */
  idleMs?: number;
  /** A request failed inside the server (not the client's input): for the operator's terminal. */
  onError?: (error: Error) => void;
}

export interface ServeHandle {
  url: string;
  /** Conversations started, and what the backing model billed for all replies. */
  readonly conversations: number;
  readonly usage: Usage & { model_calls: number };
  close(): Promise<void>;
}

export const CONVERSATION_HEADER = "x-conversation-id";
const DEFAULT_MAX_BODY = 16 * 1024 * 1024;
const DEFAULT_IDLE_MS = 60 * 60 * 1000;
/** Longest x-conversation-id taken: an id, not a payload, and well inside a file name's 255 bytes. */
export const MAX_CONVERSATION_ID = 128;

export async function startServer(options: ServeOptions): Promise<ServeHandle> {
  const byKey = new Map<string, Conversation>();
  let started = 0;
  const usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, model_calls: 0 };
  const byId = new Map<string, Conversation>();
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  if (options.logDir) mkdirSync(options.logDir, { recursive: true });
  const logFor =
    (id: string) =>
    (line: LogLine): void => {
      if (!options.logDir) return;
      appendFileSync(
        join(options.logDir, `${id}.jsonl`),
        `${JSON.stringify({ at: new Date().toISOString(), ...line })}\n`,
      );
    };

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, conversation] of byId) {
        if (conversation.busy || now - conversation.lastActive < idleMs) continue;
        conversation.abandon();
        byId.delete(id);
        for (const [key, value] of byKey) if (value === conversation) byKey.delete(key);
      }
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();

  /**
   * The conversation a request continues, the messages it adds, and whether it repeats the last request (a client
   * retrying after a lost reply gets the same reply). An opening request (no assistant message yet) always starts a
   * new conversation: two openings alike are two conversations.
   */
  function locate(
    request: ParsedRequest,
    header: string | undefined,
  ): { conversation: Conversation; fresh: ClientMessage[]; repeat: boolean } {
    const messages = request.messages;
    const lastAssistant = messages.findLastIndex((m) => m.role === "assistant");
    const fresh = messages.slice(lastAssistant + 1);
    const requestKey = historyKey(messages);
    let conversation = header ? byId.get(header) : undefined;
    if (!conversation && !header && lastAssistant >= 0)
      conversation = byKey.get(historyKey(messages.slice(0, lastAssistant + 1)));
    if (conversation) return { conversation, fresh, repeat: conversation.lastRequestKey === requestKey };
    const id = header ?? randomBytes(8).toString("hex");
    const created = new Conversation(id, options, logFor(id.replace(/[^A-Za-z0-9._-]/g, "_")));
    byId.set(id, created);
    started++;
    return { conversation: created, fresh, repeat: false };
  }

  async function complete(req: IncomingMessage, res: ServerResponse, text: string): Promise<void> {
    const request = parseRequest(text);
    const header = conversationHeader(req);
    const { conversation, fresh, repeat } = locate(request, header);
    const requestKey = historyKey(request.messages);
    if (request.stream) {
      // Headers and a comment go out at once, so a client sees the stream open while the model works.
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
      });
      res.write(": hsearch serve\n\n");
    }
    let reply: Reply;
    try {
      reply =
        repeat && conversation.lastReply && !conversation.busy
          ? conversation.lastReply
          : await conversation.handle(request, fresh);
    } catch (error) {
      if (request.stream && error instanceof WireError) {
        write(res, `data: ${JSON.stringify(error.body())}\n\n`);
        res.end();
        return;
      }
      throw error;
    }
    conversation.lastRequestKey = requestKey;
    if (!repeat) {
      usage.input_tokens += reply.usage.input_tokens;
      usage.output_tokens += reply.usage.output_tokens;
      usage.cache_read_tokens += reply.usage.cache_read_tokens ?? 0;
      usage.model_calls += Number(reply.hsearch.model_calls ?? 0);
    }
    byKey.set(historyKey([...request.messages, replyMessage(reply)]), conversation);
    const id = `chatcmpl-${randomBytes(12).toString("hex")}`;
    const created = Math.floor(Date.now() / 1000);
    if (request.stream) {
      for (const event of streamEvents(id, request.model, created, reply, request.streamUsage))
        write(res, event);
      if (!res.destroyed) res.end();
      return;
    }
    send(res, 200, completionBody(id, request.model, created, reply), {
      [CONVERSATION_HEADER]: conversation.id,
    });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A failure of the server's own is told to its operator; the client learns no more than OpenAI would tell it
      // (a message can carry the server's paths).
      if (!(error instanceof WireError))
        options.onError?.(error instanceof Error ? error : new Error(String(error)));
      const wire =
        error instanceof WireError
          ? error
          : new WireError(500, "The server had an error while processing your request.", "server_error");
      if (res.headersSent) {
        if (!res.destroyed) res.end();
        return;
      }
      send(res, wire.status, wire.body());
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (req.method === "GET" && (path === "/v1/models" || path === "/models")) {
      req.resume();
      send(res, 200, {
        object: "list",
        data: [{ id: options.model.id, object: "model", created: 0, owned_by: "hsearch-serve" }],
      });
      return;
    }
    if (req.method !== "POST" || (path !== "/v1/chat/completions" && path !== "/chat/completions")) {
      req.resume();
      throw new WireError(404, `Invalid URL (${req.method ?? ""} ${path})`, "invalid_request_error");
    }
    const text = await readBody(req, maxBody);
    await complete(req, res, text);
  }

  server.on("clientError", (_error, socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n");
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) =>
      reject(listenError(error, options.host ?? "127.0.0.1", options.port ?? 0)),
    );
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    get conversations() {
      return started;
    },
    get usage() {
      return { ...usage };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        clearInterval(sweep);
        for (const conversation of byId.values()) conversation.abandon();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Why the server could not listen, as bad input naming the flag: the port or the address is the user's choice. */
function listenError(error: Error, host: string, port: number): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const says: Record<string, string> = {
    EADDRINUSE: `--port ${port}: port ${port} on ${host} is in use by another program; choose another (0: any free port)`,
    EACCES: `--port ${port}: not allowed to listen on port ${port} (ports below 1024 need privileges)`,
    EADDRNOTAVAIL: `--host ${host}: not an address of this machine`,
    ENOTFOUND: `--host ${host}: no such host`,
    EAI_AGAIN: `--host ${host}: the name could not be resolved`,
  };
  const message = code === undefined ? undefined : says[code];
  return message === undefined ? error : new HsearchError("bad_input", message, { cause: error });
}

/** The conversation id a client sends, bounded (it names the conversation's log file). */
function conversationHeader(req: IncomingMessage): string | undefined {
  const id = headerValue(req, CONVERSATION_HEADER);
  if (id !== undefined && id.length > MAX_CONVERSATION_ID)
    throw new WireError(
      400,
      `The ${CONVERSATION_HEADER} header is ${id.length} characters long; hsearch serve takes at most ${MAX_CONVERSATION_ID}.`,
      "invalid_request_error",
      CONVERSATION_HEADER,
      "invalid_value",
    );
  return id;
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text && text.length > 0 ? text : undefined;
}

/** The body as text, refused past `limit` bytes (the rest is drained, so the connection can answer). */
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? 0);
    const tooLarge = () =>
      new WireError(
        413,
        `Request body too large: the limit of hsearch serve is ${limit} bytes.`,
        "invalid_request_error",
        null,
        "request_too_large",
      );
    if (declared > limit) {
      req.resume();
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on("data", (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > limit) {
        refused = true;
        chunks.length = 0;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!refused) resolve(Buffer.concat(chunks).toString("utf8"));
    });
    req.on("error", (error) => {
      if (!refused) reject(error);
    });
  });
}

function write(res: ServerResponse, text: string): void {
  // A client gone mid-stream: the conversation has already moved on; there is no one left to write to.
  if (!res.destroyed && res.writable) res.write(text);
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}
