/**
 * `hsearch serve` (docs/DESIGN.md §10): the selected harness around any model, behind OpenAI's Chat Completions wire.
 */
import type { Suite } from "../domain";
import { ABSTAIN_TOOL, suiteRuntime } from "../envs";
import type { RelaySetup } from "./conversation";

export { HARNESS_CALL_PREFIX, interventionOf, type LogLine, type RelaySetup } from "./conversation";
export { CONVERSATION_HEADER, type ServeHandle, type ServeOptions, startServer } from "./server";
export { WireError } from "./wire";

/**
 * What the server assumes of the client's tools when the command line does not say, from the suite's runtime
 * (`clientTools`): retail's write tools and its transfer that ends the call; a terminal agent's tools are its own
 * (Terminus answers with keystrokes in text), so none is known to write. The deferral is `abstain` on both. Either way a reply without a tool call goes to the client,
 * whose next user message answers it (Terminus sends the terminal's output so).
 */
export function suiteDefaults(
  suite: Suite,
): Pick<RelaySetup, "writeTools" | "deferralTool" | "endingTools" | "customer"> {
  const tools = suiteRuntime(suite).clientTools;
  return {
    writeTools: tools?.writeTools ?? new Set(),
    deferralTool: ABSTAIN_TOOL,
    endingTools: tools?.endingTools ?? new Set(),
    customer: true,
  };
}
