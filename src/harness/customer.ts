import type { CustomerScenario } from "../domain/task";
import type { ChatModel } from "../models/types";
import { saysCannotProceed } from "./claims";

/**
 * The retail customer on the other side of the conversation. `done` ends the episode (τ²'s ###STOP###).
 */
export interface Customer {
  reply(agentText: string): Promise<{ text: string; done: boolean }>;
}

const ORDER_ID = /#W\d{7}/g;
const ASKS_IDENTITY =
  /\b(e-?mail|zip|post(?:al)? code|full name|your name|identify|verify your|authenticat)/i;
const ASKS_CONFIRMATION =
  /\b(confirm|proceed|go ahead|shall i|should i|would you like me|do you want me|yes\/no|yes or no)\b/i;

/**
 * The scripted customer (default): answers from the scenario, confirms actions on the orders it talks about and
 * refuses actions on others, pushes back once when told the request cannot be done, then ends.
 */
export class ScriptedCustomer implements Customer {
  private readonly scenarioText: string;
  private readonly myOrders: ReadonlySet<string>;
  private pushedBack = false;
  private idle = 0;

  constructor(private readonly scenario: CustomerScenario) {
    this.scenarioText = [
      scenario.reason_for_call,
      scenario.known_info,
      scenario.task_instructions ?? "",
    ].join(" ");
    this.myOrders = new Set(this.scenarioText.match(ORDER_ID) ?? []);
  }

  async reply(agentText: string): Promise<{ text: string; done: boolean }> {
    if (saysCannotProceed(agentText)) {
      if (this.pushedBack) return { text: "Okay, I understand. Thank you. ###STOP###", done: true };
      this.pushedBack = true;
      return { text: "Are you sure? Please check again; I really need this done.", done: false };
    }
    if (ASKS_CONFIRMATION.test(agentText)) {
      const mentioned = agentText.match(ORDER_ID) ?? [];
      const foreign = mentioned.filter((order) => !this.myOrders.has(order));
      if (foreign.length > 0 && this.myOrders.size > 0)
        return { text: `No, ${foreign[0]} is not the order I am asking about.`, done: false };
      return { text: "Yes, please go ahead.", done: false };
    }
    if (ASKS_IDENTITY.test(agentText)) return { text: this.scenario.known_info, done: false };
    if (agentText.trim().endsWith("?") && this.idle < 2) {
      this.idle++;
      return { text: `As I said: ${this.scenario.reason_for_call}`, done: false };
    }
    return { text: "Thank you, that's all. ###STOP###", done: true };
  }
}

/** An LLM plays the customer from the scenario (as τ²-bench's user simulator). */
export class LlmCustomer implements Customer {
  private readonly history: Array<{ role: "user" | "assistant"; content: string }> = [];

  constructor(
    private readonly model: ChatModel,
    private readonly scenario: CustomerScenario,
    opening: string,
    private readonly seed: number,
  ) {
    this.history.push({ role: "assistant", content: opening });
  }

  async reply(agentText: string): Promise<{ text: string; done: boolean }> {
    this.history.push({ role: "user", content: agentText });
    const system =
      "You are a customer talking to a store's support agent. Stay in character; answer only from your scenario; " +
      "never invent order ids or personal data. When your request is handled or the agent cannot help, end with " +
      `###STOP###.\n\nScenario:\n${this.scenario.reason_for_call}\n\nWhat you know: ${this.scenario.known_info}\n` +
      `What you do not know: ${this.scenario.unknown_info ?? "-"}\n${this.scenario.task_instructions ?? ""}`;
    const response = await this.model.generate({
      messages: [{ role: "system", content: system }, ...this.history],
      tools: [],
      temperature: 0,
      seed: this.seed,
    });
    const text = (response.content ?? "").trim() || "###STOP###";
    this.history.push({ role: "assistant", content: text });
    return { text, done: text.includes("###STOP###") };
  }
}
