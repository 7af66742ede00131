import { HsearchError } from "../core";
import { simContextOf } from "../harness";
import type { ChatModel, ChatRequest, ChatResponse } from "../models/types";
import { readHistory } from "./history";
import { decide } from "./policy";
import { loadSimProfile, type SimProfile } from "./profile";

/**
 * `sim:<profile>`: the embedded offline model, a seeded behavioural simulator of a tool-using agent (docs/DESIGN.md §5).
 * Its results say nothing about real models; it exists so that the whole pipeline runs, and is tested, offline.
 * `oracle` is the same machine with the perfect profile.
 */
export class SimChatModel implements ChatModel {
  readonly provider: string;
  readonly followsReference: boolean;

  constructor(
    readonly id: string,
    private readonly profile: SimProfile,
  ) {
    this.provider = id === "oracle" ? "oracle" : "sim";
    this.followsReference = id === "oracle";
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    const context = simContextOf(request);
    if (!context)
      throw new HsearchError(
        "bad_input",
        `${this.id} needs the simulator context; it only runs inside the hsearch agent loop`,
      );
    const history = readHistory(request.messages);
    const action = decide(this.profile, context, history, request.seed, request.repeat ?? 0);
    const content = action.kind === "text" ? action.text : (action.text ?? null);
    const tool_calls = action.kind === "call" ? action.calls.map((call) => ({ ...call })) : [];
    return {
      content,
      tool_calls,
      usage: {
        input_tokens: estimateTokens(request),
        output_tokens: Math.ceil(JSON.stringify(action).length / 4),
      },
      model: this.id,
      finish_reason: tool_calls.length > 0 ? "tool_calls" : "stop",
    };
  }
}

/** About four characters a token: enough for the simulator's usage figures to move with prompt size. */
function estimateTokens(request: ChatRequest): number {
  let chars = 0;
  for (const message of request.messages) chars += (message.content ?? "").length + 8;
  return Math.ceil(chars / 4);
}

export function createSimModel(profileName: string): SimChatModel {
  return new SimChatModel(`sim:${profileName}`, loadSimProfile(profileName));
}

export function createOracleModel(): SimChatModel {
  return new SimChatModel("oracle", loadSimProfile("oracle"));
}
