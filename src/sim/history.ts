import type { ChatMessage } from "../models/types";

/**
 * The simulator is stateless like any model: everything it knows about the episode so far it reads back from the
 * messages. Its own tool calls carry ids that say what they were (`sim-ref-3` is reference step 3), so it can tell
 * how far it got without hidden state.
 */
export interface SimCall {
  id: string;
  kind: "ref" | "check" | "defer" | "assess" | "report" | "other";
  /** For `ref` calls: the 0-based index into the cues' steps. */
  index: number;
  /** The 1-based step (assistant turn) it was made in. */
  step: number;
  observation: string;
}

export interface SimHistory {
  /** Assistant turns so far; the turn being decided is `turns + 1`. */
  turns: number;
  calls: SimCall[];
  /** Reference steps done (the highest ref index + 1). */
  refDone: number;
  /** Texts the agent (this simulator) has said. */
  said: string[];
  /** The latest user message (customer or harness), and whether it came after the last assistant turn. */
  lastUser: string;
  gateRefused: boolean;
  instruction: string;
}

export const SIM_ID = /^sim-(ref|check|defer|assess|report)-(\d+)$/;

export function readHistory(messages: readonly ChatMessage[]): SimHistory {
  const calls: SimCall[] = [];
  const byId = new Map<string, SimCall>();
  const said: string[] = [];
  let turns = 0;
  let lastUser = "";
  let instruction = "";
  let gateRefused = false;
  for (const message of messages) {
    if (message.role === "user") {
      if (!instruction) instruction = message.content;
      lastUser = message.content;
    } else if (message.role === "assistant") {
      turns++;
      lastUser = "";
      if (message.content) said.push(message.content);
      for (const call of message.tool_calls ?? []) {
        const match = SIM_ID.exec(call.id);
        const kind = (match?.[1] ?? "other") as SimCall["kind"];
        const record: SimCall = {
          id: call.id,
          kind,
          index: Number(match?.[2] ?? -1),
          step: turns,
          observation: "",
        };
        calls.push(record);
        byId.set(call.id, record);
      }
    } else if (message.role === "tool") {
      const call = byId.get(message.tool_call_id);
      if (call) call.observation = message.content;
      if (message.content.startsWith("Error: refused by the effect gate")) gateRefused = true;
    }
  }
  const refDone = calls
    .filter((call) => call.kind === "ref")
    .reduce((max, call) => Math.max(max, call.index + 1), 0);
  return { turns, calls, refDone, said, lastUser, gateRefused, instruction };
}
