import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { assertOutputApart, HsearchError } from "../core";
import type { Suite } from "../domain";
import { loadHarness } from "../harness";
import { costOf, isRealModelSpec, loadPriceTable, PROVIDERS } from "../models";
import { isLoopbackHost } from "../report";
import { startServer, suiteDefaults } from "../serve";
import { createModel } from "./create-model";

export interface ServeHarnessOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  harness: string;
  /** A real provider's model: openai:<name>, anthropic:<name> … */
  model: string;
  suite: Suite;
  port: number;
  host: string;
  /** Directory of the JSONL logs, one file per conversation. */
  log: string;
  /** The client's tools that change state (default: the suite's). */
  writeTools?: string[];
  /** The client's tool that is the certified deferral (default abstain). */
  deferralTool?: string;
  /** Who answers a reply without a tool call: the client's next user message, or the harness's continue message. */
  textTurns?: "user" | "continue";
  onError?: (error: Error) => void;
}

/** What a stopped server served, and what it cost (null: no price for the model). */
export interface ServedTotals {
  conversations: number;
  model_calls: number;
  input_tokens: number;
  output_tokens: number;
  usd: number | null;
}

export interface ServingHarness {
  /** The endpoint's base URL (`…/v1`). */
  url: string;
  harnessLabel: string;
  modelId: string;
  /** Bound to an address other machines reach, with no authentication. */
  remote: boolean;
  close(): Promise<ServedTotals>;
}

/** The real providers' spec forms, for a message naming what `--model` takes. */
export function realModelForms(): string {
  return PROVIDERS.filter((provider) => provider.real)
    .map((provider) => `${provider.name}:<name>`)
    .join(" or ");
}

export { isRealModelSpec };

/**
 * A harness around a model as an OpenAI-compatible Chat Completions endpoint (`hsearch serve`), until closed. The
 * log directory may not overlap the harness.
 */
export async function serveHarness(options: ServeHarnessOptions): Promise<ServingHarness> {
  const harnessDir = resolve(options.cwd, options.harness);
  const logDir = resolve(options.cwd, options.log);
  if (existsSync(logDir) && !statSync(logDir).isDirectory())
    throw new HsearchError(
      "bad_input",
      `--log ${options.log} is not a directory: it names the directory of the logs`,
      { field: "log" },
    );
  assertOutputApart({ path: logDir, name: "--log" }, [{ path: harnessDir, name: "the harness" }]);
  const harness = loadHarness(harnessDir);
  const model = createModel(options.model, { env: options.env });
  const server = await startServer({
    harness,
    model,
    suite: options.suite,
    ...suiteDefaults(options.suite),
    ...(options.writeTools ? { writeTools: new Set(options.writeTools) } : {}),
    ...(options.deferralTool ? { deferralTool: options.deferralTool } : {}),
    ...(options.textTurns ? { customer: options.textTurns === "user" } : {}),
    port: options.port,
    host: options.host,
    logDir,
    ...(options.onError ? { onError: options.onError } : {}),
  });
  return {
    url: `${server.url}/v1`,
    harnessLabel: harness.label,
    modelId: model.id,
    remote: !isLoopbackHost(options.host),
    close: async () => {
      await server.close();
      const { model_calls, ...tokens } = server.usage;
      const cost = costOf(loadPriceTable(), model.id, tokens);
      return {
        conversations: server.conversations,
        model_calls,
        input_tokens: tokens.input_tokens,
        output_tokens: tokens.output_tokens,
        usd: cost.priced ? cost.usd : null,
      };
    },
  };
}
