/**
 * A trajectory's events folded into conversation turns, the shape both exported formats (ATIF, Inspect's messages)
 * are made from: the system prompt, the user's instruction, each agent model turn with its tool calls and their
 * results, the harness's own prompts and calls. hsearch's other events (effects, assessments, deferrals, reports,
 * gate refusals) stay with the turn they happened in.
 */
import type { Trajectory, TrajectoryEvent } from "../harness";

export interface ToolCallTurn {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ToolResultTurn {
  /** The call it answers; absent for a harness call's result (ATIF correlates only an agent's calls). */
  callId?: string;
  name: string;
  text: string;
  ok: boolean;
}

export interface Turn {
  role: "system" | "user" | "agent";
  /** The trajectory step (an agent turn's model turn). */
  step: number;
  text: string;
  calls: ToolCallTurn[];
  results: ToolResultTurn[];
  /** hsearch's own events of this turn, as recorded. */
  events: TrajectoryEvent[];
}

type OtherEvent = Exclude<TrajectoryEvent, { type: "message" | "tool_call" | "observation" }>;

export function turnsOf(trajectory: Pick<Trajectory, "events">): Turn[] {
  const turns: Turn[] = [];
  const agentCalls = new Set<string>();
  const open = (role: Turn["role"], step: number, text = ""): Turn => {
    const turn: Turn = { role, step, text, calls: [], results: [], events: [] };
    turns.push(turn);
    return turn;
  };
  const last = (): Turn | undefined => turns[turns.length - 1];
  // The agent turn of `step` still taking calls and results, if it is the latest turn.
  const agentTurn = (step: number): Turn | undefined => {
    const turn = last();
    return turn?.role === "agent" && turn.step === step ? turn : undefined;
  };
  for (const event of trajectory.events) {
    switch (event.type) {
      case "message":
        if (event.author === "agent") open("agent", event.step, event.text);
        else open(event.author === "customer" ? "user" : "system", event.step, event.text);
        break;
      case "tool_call":
        if (event.author === "agent") {
          (agentTurn(event.step) ?? open("agent", event.step)).calls.push({
            id: event.id,
            name: event.name,
            arguments: event.arguments,
          });
          agentCalls.add(event.id);
        } else
          open("system", event.step, `The harness called ${event.name} ${JSON.stringify(event.arguments)}`);
        break;
      case "observation": {
        const turn = last() ?? open("system", event.step);
        const result = { name: event.name, text: event.text, ok: event.ok };
        turn.results.push(agentCalls.has(event.id) ? { callId: event.id, ...result } : result);
        break;
      }
      default:
        (last() ?? open("system", event.step)).events.push(event satisfies OtherEvent);
    }
  }
  return turns;
}
