/**
 * A bound on what one model reply may hold (issue 15.2): its text plus its tool calls' names and arguments, in
 * characters. Replies are stored in trajectories and read back by the proposer and the report, so a server that
 * answers with megabytes would bloat the run; such a reply is `model_reply` (re-asked by the retry layer a bounded
 * number of times, then the episode ends as a model error) and is never stored.
 */
import { HsearchError } from "../core";
import type { ChatModelMiddleware } from "./middleware";
import type { ChatResponse } from "./types";

/** Far above any real reply (max_tokens bounds those); configurable as `limits.model_reply_chars`. */
export const DEFAULT_MAX_REPLY_CHARS = 200_000;

/** How long one provider call may go unanswered (then it is retried); configurable as `limits.model_call_seconds`. */
export const DEFAULT_TIMEOUT_MS = 120_000;

export function replyChars(response: ChatResponse): number {
  return (
    (response.content?.length ?? 0) +
    response.tool_calls.reduce(
      (sum, call) => sum + call.name.length + JSON.stringify(call.arguments).length,
      0,
    )
  );
}

export function withReplyLimit(maxChars: number = DEFAULT_MAX_REPLY_CHARS): ChatModelMiddleware {
  return (inner) => ({
    id: inner.id,
    provider: inner.provider,
    generate: async (request, options) => {
      const response = await inner.generate(request, options);
      const size = replyChars(response);
      if (size > maxChars)
        throw new HsearchError(
          "model_reply",
          `${inner.id}: a reply of ${size} characters, more than the limit of ${maxChars} (limits.model_reply_chars)`,
        );
      return response;
    },
  });
}
