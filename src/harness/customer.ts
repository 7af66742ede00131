import type { CustomerScenario } from "../domain";
import type { ChatModel } from "../models/types";
import { claimsCompletion, saysCannotProceed } from "./claims";

/**
 * The retail customer on the other side of the conversation. `done` ends the episode (τ²'s ###STOP###). A customer
 * with an `opening` writes the conversation's first message itself; otherwise the task's instruction opens it.
 */
export interface Customer {
  opening?(): Promise<string>;
  reply(agentText: string): Promise<{ text: string; done: boolean }>;
}

/** τ²-bench's end-of-conversation token: the customer says it, the agent never sees it. */
export const STOP_TOKEN = "###STOP###";

/** A customer's text as the agent may see it: without the stop token. */
export function withoutStopToken(text: string): string {
  return text.split(STOP_TOKEN).join("").trim();
}

const ORDER_ID = /#W\d{7}/g;
const ASKS_IDENTITY =
  /\b(e-?mail|zip|post(?:al)? code|full name|your name|identify|verify your|authenticat)/i;
const ASKS_CONFIRMATION =
  /\b(confirm|proceed|go ahead|shall i|should i|would you like me|do you want me|yes\/no|yes or no)\b/i;
/** The agent announcing what it is about to do ("let me look up your account…"): not the end of its turn. */
const NARRATES =
  /\b(let me|i'?ll|i will|i am going to|i'm going to|one moment|just a moment|a moment|bear with me|give me a (?:moment|second|minute)|checking|looking (?:up|into|at)|pulling up)\b/i;
const ASKS_ORDER = /\b(which|what) (?:order|item|one)\b|\border (?:id|number)\b/i;

/** A brief written to the customer ("You want…", "your order") in the customer's own voice ("I want…", "my order"). */
export function firstPerson(text: string): string {
  return text
    .replace(/\b[Yy]ou are\b/g, "I am")
    .replace(/\b[Yy]ou're\b/g, "I'm")
    .replace(/\b[Yy]ou've\b/g, "I've")
    .replace(/\bYour\b/g, "My")
    .replace(/\byour\b/g, "my")
    .replace(/\byourself\b/gi, "myself")
    .replace(/\byours\b/gi, "mine")
    .replace(
      /\b(to|for|with|at|from|about|of|by|asks?|tell|tells|help|helps|give|gives|lets?|sends?|calls?|thanks?) you\b/g,
      "$1 me",
    )
    .replace(/\b[Yy]ou\b/g, "I");
}

/**
 * The scripted customer (the simulator's and the oracle's): answers from the scenario in the first person — who it
 * is when asked to identify itself, yes or no when asked to confirm (no for an order that is not its own), which
 * order when asked — pushes back once when told the request cannot be done, and ends when the agent says the work
 * is done or says something else. Narration ("let me look that up") gets a short go-ahead, never the end of the call.
 */
export class ScriptedCustomer implements Customer {
  private readonly scenarioText: string;
  private readonly myOrders: readonly string[];
  private pushedBack = false;
  private repeatedAsk = 0;

  constructor(private readonly scenario: CustomerScenario) {
    this.scenarioText = [
      scenario.reason_for_call,
      scenario.known_info,
      scenario.task_instructions ?? "",
    ].join(" ");
    this.myOrders = [...new Set(this.scenarioText.match(ORDER_ID) ?? [])];
  }

  async reply(agentText: string): Promise<{ text: string; done: boolean }> {
    if (saysCannotProceed(agentText)) {
      if (this.pushedBack) return { text: `Okay, I understand. Thank you. ${STOP_TOKEN}`, done: true };
      this.pushedBack = true;
      return { text: "Are you sure? Please check again; I really need this done.", done: false };
    }
    if (claimsCompletion(agentText)) return { text: `Thank you, that's all. ${STOP_TOKEN}`, done: true };
    if (ASKS_CONFIRMATION.test(agentText)) {
      const mentioned = agentText.match(ORDER_ID) ?? [];
      const foreign = mentioned.filter((order) => !this.myOrders.includes(order));
      if (foreign.length > 0 && this.myOrders.length > 0)
        return { text: `No, ${foreign[0]} is not the order I am asking about.`, done: false };
      return { text: "Yes, please go ahead.", done: false };
    }
    if (ASKS_IDENTITY.test(agentText)) return { text: firstPerson(this.scenario.known_info), done: false };
    if (ASKS_ORDER.test(agentText) && this.myOrders.length > 0)
      return { text: `It is order ${this.myOrders.join(" and ")}.`, done: false };
    if (agentText.trim().endsWith("?")) {
      // A question the scenario cannot answer: restate the request, then stop repeating it.
      if (this.repeatedAsk++ < 2) return { text: firstPerson(this.scenario.reason_for_call), done: false };
      return { text: "I don't know that, sorry.", done: false };
    }
    if (NARRATES.test(agentText)) return { text: "Okay, go ahead.", done: false };
    return { text: `Thank you, that's all. ${STOP_TOKEN}`, done: true };
  }
}

/** What the customer's model is told: τ²-bench's user-simulator guidelines and the scenario, never the agent. */
export function customerSystemPrompt(scenario: CustomerScenario): string {
  return [
    "You are playing a customer who contacts a store's customer service agent. Write only the customer's next " +
      "message, in the first person, as a real customer would: short, one step at a time.",
    "- Do not give away all of your scenario at once: share only what the agent needs for the current step.",
    "- Never invent information the scenario does not give you (order ids, emails, addresses); say you do not know.",
    "- When the agent says they are looking something up, let them (for example: 'Sure, take your time.').",
    `- When your request has been handled, or the agent has clearly told you it cannot be done and you accept, ` +
      `end your message with ${STOP_TOKEN}. Never write ${STOP_TOKEN} otherwise.`,
    "",
    "Scenario:",
    scenario.reason_for_call,
    "",
    `What you know: ${scenario.known_info}`,
    `What you do not know: ${scenario.unknown_info ?? "-"}`,
    scenario.task_instructions ? `How you behave: ${scenario.task_instructions}` : "",
  ]
    .join("\n")
    .trim();
}

/** The agent's greeting the customer model answers with its opening message (as τ²-bench starts a conversation). */
export const AGENT_GREETING = "Hi! How can I help you today?";

/**
 * An LLM plays the customer (τ²-bench's user simulator): the scenario is in its system prompt, it writes the
 * opening message, and it sees only the agent's words (never tool calls, observations or the agent's prompt).
 */
export class LlmCustomer implements Customer {
  private readonly history: Array<{ role: "user" | "assistant"; content: string }> = [
    { role: "user", content: AGENT_GREETING },
  ];

  constructor(
    private readonly model: ChatModel,
    private readonly scenario: CustomerScenario,
    private readonly seed: number,
    private readonly repeat = 0,
  ) {}

  async opening(): Promise<string> {
    const text = await this.say();
    // A customer that hangs up before saying anything still has to ask for something.
    return withoutStopToken(text) || firstPerson(this.scenario.reason_for_call);
  }

  async reply(agentText: string): Promise<{ text: string; done: boolean }> {
    this.history.push({ role: "user", content: agentText });
    const text = await this.say();
    return { text, done: text.includes(STOP_TOKEN) };
  }

  private async say(): Promise<string> {
    const response = await this.model.generate({
      messages: [{ role: "system", content: customerSystemPrompt(this.scenario) }, ...this.history],
      tools: [],
      temperature: 0,
      seed: this.seed,
      repeat: this.repeat,
    });
    const text = (response.content ?? "").trim() || STOP_TOKEN;
    this.history.push({ role: "assistant", content: text });
    return text;
  }
}
