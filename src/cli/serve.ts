import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Argv } from "yargs";
import { assertOutputApart } from "../core/output-overlap";
import { SUITES, type Suite } from "../domain/task";
import { loadHarness } from "../harness/load";
import { costOf, loadPriceTable } from "../models/prices";
import { formatUsd } from "../models/usage";
import { isLoopbackHost } from "../report/viewer/access";
import { startServer, suiteDefaults } from "../serve";
import { createModel } from "./create-model";
import type { CliIO } from "./io";
import type { SetExitCode } from "./shared";
import { untilInterrupted } from "./until-interrupted";
import { usageError } from "./usage-error";

const LIST = (value: string | undefined): string[] | undefined =>
  value === undefined
    ? undefined
    : value
        .split(",")
        .map((name) => name.trim())
        .filter((name) => name.length > 0);

export function register(parser: Argv, io: CliIO, _setExitCode: SetExitCode): void {
  parser.command(
    "serve",
    "Serve a harness around a model as an OpenAI-compatible Chat Completions endpoint; Ctrl-C stops it",
    (yargs) =>
      yargs
        .option("harness", {
          type: "string",
          demandOption: true,
          describe: "harness directory (e.g. an export)",
        })
        .option("model", {
          type: "string",
          demandOption: true,
          describe: "the backing model: openai:<name> or anthropic:<name>",
        })
        .option("port", { type: "number", default: 8000, describe: "port to listen on (0: any free port)" })
        .option("host", { type: "string", default: "127.0.0.1", describe: "address to bind" })
        .option("suite", {
          type: "string",
          choices: [...SUITES],
          default: "retail",
          describe: "what the client's tools are: retail (τ² tools, abstain) or terminal",
        })
        .option("write-tools", {
          type: "string",
          describe: "comma list of the client's tools that change state (default: the suite's)",
        })
        .option("deferral-tool", {
          type: "string",
          describe: "the client's tool that is the certified deferral (default abstain)",
        })
        .option("text-turns", {
          type: "string",
          choices: ["user", "continue"],
          describe:
            "who answers a reply without a tool call: the client's next user message (default), or the harness's continue message, for a client that stops at the first such reply",
        })
        .option("log", {
          type: "string",
          default: "serve-logs",
          describe: "directory of the JSONL logs, one file per conversation",
        })
        .check((argv) => {
          for (const flag of ["harness", "model", "host", "log", "port"] as const)
            if (Array.isArray(argv[flag]))
              throw usageError(`--${flag} is given once, got it ${argv[flag].length} times`);
          if (!Number.isInteger(argv.port) || argv.port < 0 || argv.port > 65535)
            throw usageError(`--port must be a whole number from 0 to 65535, got ${argv.port}`);
          if (!/^(openai|anthropic):./.test(argv.model))
            throw usageError(
              `--model ${argv.model}: serve needs a real provider, openai:<name> or anthropic:<name>`,
            );
          return true;
        }),
    async (argv) => {
      const suite = argv.suite as Suite;
      const defaults = suiteDefaults(suite);
      const harnessDir = resolve(io.cwd, argv.harness);
      const logDir = resolve(io.cwd, argv.log);
      if (existsSync(logDir) && !statSync(logDir).isDirectory())
        throw usageError(`--log ${argv.log} is not a directory: it names the directory of the logs`);
      assertOutputApart({ path: logDir, name: "--log" }, [{ path: harnessDir, name: "the harness" }]);
      const harness = loadHarness(harnessDir);
      const model = createModel(argv.model, { env: io.env });
      const writeTools = LIST(argv.writeTools);
      const server = await startServer({
        harness,
        model,
        suite,
        ...defaults,
        ...(writeTools ? { writeTools: new Set(writeTools) } : {}),
        ...(argv.deferralTool ? { deferralTool: argv.deferralTool } : {}),
        ...(argv.textTurns ? { customer: argv.textTurns === "user" } : {}),
        port: argv.port,
        host: argv.host,
        logDir,
        onError: (error) => io.err(`hsearch serve: error answering a request: ${error.message}`),
      });
      io.out(`${server.url}/v1`);
      if (!isLoopbackHost(argv.host))
        io.err(
          `hsearch serve: warning: serving on ${argv.host}, reachable from other machines, with no authentication: anyone who reaches it spends this machine's API key`,
        );
      io.err(
        `hsearch serve: harness ${harness.label} around ${model.id}; logs in ${argv.log}; Ctrl-C stops it`,
      );
      await untilInterrupted();
      await server.close();
      const { model_calls, ...tokens } = server.usage;
      const cost = costOf(loadPriceTable(), model.id, tokens);
      io.err(
        `hsearch serve: stopped; ${server.conversations} conversations, ${model_calls} model calls, ` +
          `${tokens.input_tokens} input and ${tokens.output_tokens} output tokens` +
          (cost.priced ? `, ${formatUsd(cost.usd)}` : " (no price for this model)"),
      );
    },
  );
}
