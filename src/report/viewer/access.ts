/**
 * Who may use the viewer (docs/DESIGN.md §9): it binds to loopback unless told otherwise, and every request must carry the
 * random token of this viewer, first in the query string (the printed URL), then in a cookie the viewer sets.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export function newToken(): string {
  return randomBytes(24).toString("base64url");
}

/** Constant-time: both sides are hashed first, so neither the content nor the length leaks through timing. */
export function sameToken(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/** A cookie per port, so two viewers on one machine do not overwrite each other's token. */
export function cookieName(port: number): string {
  return `hsearch_view_${port}`;
}

export function cookieHeader(port: number, token: string): string {
  return `${cookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

function cookieValue(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const index = part.indexOf("=");
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}

/** "query" when the URL carries the right token (set the cookie), "cookie" when the cookie does, else null. */
export function authorize(
  request: IncomingMessage,
  url: URL,
  port: number,
  token: string,
): "query" | "cookie" | null {
  const fromQuery = url.searchParams.get("token");
  if (fromQuery !== null) return sameToken(fromQuery, token) ? "query" : null;
  const fromCookie = cookieValue(request, cookieName(port));
  return fromCookie !== undefined && sameToken(fromCookie, token) ? "cookie" : null;
}
