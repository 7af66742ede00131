/**
 * Both official SDKs (openai, @anthropic-ai/sdk) throw the same family of errors; this turns one into what the retry
 * layer understands, with secrets redacted from every message. Raw SDK errors are not kept as causes: they may hold
 * request details, and messages are all the retry layer and the run store need.
 */
import { isContextOverflow, ProviderCallError, redactSecrets, retryAfterHeadersOf } from "./provider-error";
import { rejectedParameterOf } from "./rejected-parameter";
import { replyError } from "./validate-reply";

type ErrorClass = abstract new (...args: never[]) => Error;

export interface SdkErrorClasses {
  APIError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIUserAbortError: ErrorClass;
}

/** The error to throw in place of `error`, thrown by an SDK call for the model `source`. */
export function fromSdkError(
  error: unknown,
  classes: SdkErrorClasses,
  secrets: readonly string[],
  source: string,
): Error {
  const redact = (text: string): string => redactSecrets(text, secrets);
  if (error instanceof classes.APIUserAbortError) return new ProviderCallError("aborted", "request aborted");
  if (error instanceof classes.APIConnectionTimeoutError) {
    return new ProviderCallError("timeout", "request timed out");
  }
  if (error instanceof classes.APIConnectionError) {
    return new ProviderCallError("connection", redact(`connection failed: ${causeChain(error)}`));
  }
  if (error instanceof classes.APIError) {
    const {
      status,
      headers,
      code,
      error: body,
    } = error as Error & {
      status?: number;
      headers?: Headers;
      code?: unknown;
      error?: unknown;
    };
    const kind = isContextOverflow(status, code, error.message) ? "context_overflow" : "http";
    // The SDKs keep the parsed error body (OpenAI: its `error` member); a body that was not JSON is in the message.
    const rejection = kind === "http" ? rejectedParameterOf(status, body ?? error.message) : null;
    return new ProviderCallError(kind, redact(`HTTP ${error.message}`), {
      status,
      retryAfter: retryAfterHeadersOf(headers),
      rejection: rejection && { ...rejection, message: redact(rejection.message) },
    });
  }
  // The SDKs parse a JSON body with response.json(); a 200 whose body is not JSON surfaces as a SyntaxError.
  if (error instanceof SyntaxError)
    return replyError(source, redact(`malformed body: not JSON (${error.message})`));
  return error instanceof Error ? error : new Error(String(error));
}

function causeChain(error: Error): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current instanceof Error && parts.length < 4) {
    if (!parts.includes(current.message)) parts.push(current.message);
    current = current.cause;
  }
  return parts.join(": ");
}
