/**
 * The native retail verifier (τ² semantics): reward = database match × communicate match, and 0 for an episode that
 * did not complete (cut off by the step limit or an error).
 */
import type { RetailEnvSpec, RetailReference, ToolCallSpec } from "../../domain";
import type { ToolResult } from "../types";
import { createRetailEnv, type RetailEnvironment } from "./environment";
import { RETAIL_WRITE_TOOLS } from "./tool-specs";

/** Run the calls, in order, as the harness, on a fresh environment with the spec's overlay. */
export function replayRetailActions(
  actions: ToolCallSpec[],
  spec: RetailEnvSpec = {},
): { env: RetailEnvironment; results: ToolResult[] } {
  const env = createRetailEnv(spec);
  const results = actions.map((action, index) =>
    env.callSync(action.name, action.arguments, { step: index + 1, author: "harness" }),
  );
  return { env, results };
}

/** τ²'s communicate check: lower-cased, commas removed, substring of some agent message. */
export function missingCommunicate(communicate: string[], agentMessages: string[]): string[] {
  const normalise = (text: string) => text.toLowerCase().replaceAll(",", "");
  const messages = agentMessages.map(normalise);
  return communicate.filter((info) => !messages.some((message) => message.includes(normalise(info))));
}

/**
 * The database the reference leads to: its write calls replayed on a fresh environment (reads and any non-retail
 * tool, such as a protocol tool, change nothing and are skipped). A reference write may fail, as in τ²'s own gold
 * trajectories (task 13 first tries a refund to a method the tool refuses, then retries); like τ², a failed call
 * simply changes nothing.
 */
export function expectedRetailHash(reference: RetailReference, spec: RetailEnvSpec = {}): string {
  const writes = reference.actions.filter((action) => RETAIL_WRITE_TOOLS.has(action.name));
  // Every rollout of a task is verified against the same replay: remember it by what it depends on (the retail
  // database itself is fixed), as plain JSON: equal text means equal calls and overlay.
  const key = JSON.stringify([writes, spec]);
  const known = expectedHashes.get(key);
  if (known !== undefined) return known;
  const hash = replayRetailActions(writes, spec).env.hash();
  if (expectedHashes.size >= REMEMBERED_REFERENCES) expectedHashes.clear();
  expectedHashes.set(key, hash);
  return hash;
}

const expectedHashes = new Map<string, string>();
const REMEMBERED_REFERENCES = 4096;

export function verifyRetail(input: {
  reference: RetailReference;
  spec?: RetailEnvSpec;
  env: RetailEnvironment;
  agentMessages: string[];
  completed: boolean;
}): { reward: 0 | 1; dbMatch: boolean; communicateMatch: boolean; missing: string[] } {
  const dbMatch = expectedRetailHash(input.reference, input.spec) === input.env.hash();
  const missing = missingCommunicate(input.reference.communicate, input.agentMessages);
  const communicateMatch = missing.length === 0;
  const reward = input.completed && dbMatch && communicateMatch ? 1 : 0;
  return { reward, dbMatch, communicateMatch, missing };
}
