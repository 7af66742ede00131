/**
 * A deterministic tool-using retail agent as a reply script of the fake OpenAI server: a function of the request
 * alone (the conversation and the tools offered), so the same conversation gets the same reply whoever relays it.
 * It reads the order the customer names, then writes when the order's status allows the request; when it does not,
 * it states a blocker (with the write in the same turn, to meet the effect gate) where the assessment tool is
 * offered, tries the write, and then defers (after a gate refusal) or tells the customer it cannot proceed (after the
 * environment's error). It answers the harness's self-check and report prompts.
 */
import { DEFAULT_PROMPTS } from "../../src/harness/default-prompts";
import { openaiCompletion, type RecordedRequest, type ScriptedReply } from "../helpers/fake-openai-server";

interface WireCall {
  id: string;
  function: { name: string; arguments: string };
}
interface WireMessage {
  role: string;
  content: string | null;
  tool_calls?: WireCall[];
  tool_call_id?: string;
}
interface Body {
  messages: WireMessage[];
  tools?: Array<{ function: { name: string } }>;
}

const say = (content: string): ScriptedReply =>
  openaiCompletion({ content, usage: { prompt_tokens: 40, completion_tokens: 9 } });
/** Call ids unique in the conversation (turn and place), as real models make them. */
let turn = 0;
const call = (...calls: Array<{ name: string; arguments: unknown }>): ScriptedReply =>
  openaiCompletion({
    toolCalls: calls.map((c, index) => ({ ...c, id: `call_${turn}_${index}` })),
    usage: { prompt_tokens: 50, completion_tokens: 12 },
  });

export function retailAgent(request: RecordedRequest): ScriptedReply {
  const body = request.body as Body;
  const offered = new Set((body.tools ?? []).map((tool) => tool.function.name));
  const messages = body.messages;
  turn = messages.filter((m) => m.role === "assistant").length;
  const last = messages.at(-1);
  if (last?.role === "user" && last.content === DEFAULT_PROMPTS["self-check"])
    return say("I checked my work against the request; there is nothing more to do.");
  if (last?.role === "user" && offered.has("submit_report") && /submit_report/.test(last.content ?? ""))
    return call({ name: "submit_report", arguments: { status: "done" } });
  const calls = messages.flatMap((message) => message.tool_calls ?? []);
  const results = new Map(
    messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id ?? "", m.content ?? ""]),
  );
  const resultOf = (name: string) => {
    const made = calls.filter((c) => c.function.name === name).at(-1);
    return made ? results.get(made.id) : undefined;
  };
  const said = messages
    .filter((m) => m.role === "user")
    .map((m) => m.content ?? "")
    .join("\n");
  const order = /#W\d{7}/.exec(said)?.[0];
  if (!order) return say("Could you tell me the order id, please?");
  const details = resultOf("get_order_details");
  if (details === undefined) return call({ name: "get_order_details", arguments: { order_id: order } });
  let parsed: {
    status?: string;
    items?: Array<{ item_id: string }>;
    payment_history?: Array<{ payment_method_id: string }>;
  } = {};
  try {
    parsed = JSON.parse(details);
  } catch {
    return say("I could not read that order. I cannot proceed with this request.");
  }
  const status = parsed.status ?? "";
  const cancel = /cancel/i.test(said);
  const write = cancel
    ? { name: "cancel_pending_order", arguments: { order_id: order, reason: "no longer needed" } }
    : {
        name: "return_delivered_order_items",
        arguments: {
          order_id: order,
          item_ids: [parsed.items?.[0]?.item_id ?? ""],
          payment_method_id: parsed.payment_history?.[0]?.payment_method_id ?? "",
        },
      };
  const possible = cancel ? status === "pending" : status === "delivered";
  const tried = resultOf(write.name);
  if (possible) {
    if (tried === undefined) return call(write);
    return say(tried.startsWith("Error") ? "I cannot proceed with this request." : "Your request is done.");
  }
  const blocker = `order ${order} is ${status}, so this request cannot be done`;
  if (offered.has("state_assessment") && resultOf("state_assessment") === undefined)
    return call(
      { name: "state_assessment", arguments: { status: "blocked", category: "infeasible", reason: blocker } },
      write,
    );
  if (tried === undefined) return call(write);
  if (tried.includes("effect gate") && offered.has("abstain") && resultOf("abstain") === undefined)
    return call({ name: "abstain", arguments: { category: "infeasible", reason: blocker } });
  return say(`I cannot proceed with this request: the ${blocker}.`);
}
