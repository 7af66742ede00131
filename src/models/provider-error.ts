/**
 * What a provider adapter throws when one HTTP call fails: the raw facts the retry layer needs (status, retry-after,
 * whether it was a timeout or a broken connection), with any secret already redacted from the message. The retry
 * layer turns the last one into `HsearchError("provider", …)`; nothing else should see this type.
 */
import { HsearchError } from "../core";
import type { ParameterRejection } from "./rejected-parameter";

export type ProviderFailureKind = "http" | "timeout" | "connection" | "aborted" | "context_overflow";

/** How an infrastructure error is counted in summaries (`infra_errors` by class). */
export const INFRA_ERROR_CLASSES = [
  "rate_limit",
  "server",
  "timeout",
  "connection",
  "invalid_request",
  "auth",
  "task_setup",
  /** The oracle was asked to run a task that has no reference solution to follow (not a score of 0). */
  "no_reference",
  /** The task asked for internet (allow_internet) that the user did not grant, and its output shows it needed it. */
  "no_network",
  "other",
] as const;
export type InfraErrorClass = (typeof INFRA_ERROR_CLASSES)[number];

/** A provider failure after retries: infrastructure, never the agent's failure; `errorClass` says which kind. */
export class ProviderError extends HsearchError {
  readonly errorClass: InfraErrorClass;
  /** A 400 that named a parameter the model does not take (parameter-fallback.ts acts on it). */
  readonly rejection: ParameterRejection | undefined;
  constructor(errorClass: InfraErrorClass, message: string, rejection?: ParameterRejection) {
    super("provider", message);
    this.errorClass = errorClass;
    this.rejection = rejection;
  }
}

export function infraErrorClassOf(error: ProviderCallError): InfraErrorClass {
  if (error.kind === "timeout") return "timeout";
  if (error.kind === "connection") return "connection";
  const status = error.status;
  if (status === undefined) return "other";
  if (status === 429) return "rate_limit";
  if (status >= 500 || status === 408 || status === 409) return "server";
  if (status === 401 || status === 403) return "auth";
  if (status >= 400) return "invalid_request";
  return "other";
}

/**
 * Whether an HTTP error body says the prompt is longer than the model's context: OpenAI's `context_length_exceeded`
 * code, and the messages of OpenAI, Anthropic ("prompt is too long"), vLLM and llama.cpp servers.
 */
export function isContextOverflow(status: number | undefined, code: unknown, message: string): boolean {
  if (code === "context_length_exceeded") return true;
  if (status !== 400 && status !== 413 && status !== 422) return false;
  return /maximum context length|context[ _-]?(length|window)|prompt is too long|exceeds? the context|too many tokens/i.test(
    message,
  );
}

export interface RetryAfterHeaders {
  "retry-after"?: string;
  "retry-after-ms"?: string;
}

/** Pick the retry-after headers out of a fetch `Headers` (or anything with `get`). */
export function retryAfterHeadersOf(
  headers: { get(name: string): string | null } | undefined,
): RetryAfterHeaders {
  const out: RetryAfterHeaders = {};
  const seconds = headers?.get("retry-after");
  const millis = headers?.get("retry-after-ms");
  if (seconds) out["retry-after"] = seconds;
  if (millis) out["retry-after-ms"] = millis;
  return out;
}

export class ProviderCallError extends Error {
  readonly kind: ProviderFailureKind;
  readonly status: number | undefined;
  /** The server's `retry-after` headers as sent; the retry layer resolves them against its own clock. */
  readonly retryAfter: RetryAfterHeaders;
  /** The parameter a 400 named as one the model does not take (rejected-parameter.ts), if it named one. */
  readonly rejection: ParameterRejection | undefined;

  constructor(
    kind: ProviderFailureKind,
    message: string,
    details: { status?: number; retryAfter?: RetryAfterHeaders; rejection?: ParameterRejection | null } = {},
  ) {
    super(message);
    this.name = "ProviderCallError";
    this.kind = kind;
    this.status = details.status;
    this.retryAfter = details.retryAfter ?? {};
    this.rejection = details.rejection ?? undefined;
  }
}

/** Statuses worth another try: request timeout, lock conflict, rate limit, and every server error (529 included). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export function isRetryable(error: ProviderCallError): boolean {
  if (error.kind === "timeout" || error.kind === "connection") return true;
  if (error.kind === "http" && error.status !== undefined) return isRetryableStatus(error.status);
  return false;
}

/** Replace every occurrence of a secret by "[redacted]"; server error bodies may echo what they were sent. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length > 0) out = out.split(secret).join("[redacted]");
  }
  return out;
}
