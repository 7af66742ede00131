import { formatUsd, isRealModelSpec, realModelForms, SUITES, type Suite, serveHarness } from "../api";
import { defineCommand } from "./command-list";
import { HOST_OPTION, portOption } from "./shared";
import { untilInterrupted } from "./until-interrupted";
import { usageError } from "./usage-error";

const LIST = (value: string | undefined): string[] | undefined =>
  value === undefined
    ? undefined
    : value
        .split(",")
        .map((name) => name.trim())
        .filter((name) => name.length > 0);

export const register = defineCommand("serve", {
  options: (yargs) =>
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
      .option("port", portOption(8000))
      .option("host", HOST_OPTION)
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
        if (!isRealModelSpec(argv.model))
          throw usageError(`--model ${argv.model}: serve needs a real provider, ${realModelForms()}`);
        return true;
      }),
  run: async (argv, io) => {
    const server = await serveHarness({
      cwd: io.cwd,
      env: io.env,
      harness: argv.harness,
      model: argv.model,
      suite: argv.suite as Suite,
      port: argv.port,
      host: argv.host,
      log: argv.log,
      writeTools: LIST(argv.writeTools),
      deferralTool: argv.deferralTool,
      textTurns: argv.textTurns as "user" | "continue" | undefined,
      onError: (error) => io.err(`hsearch serve: error answering a request: ${error.message}`),
    });
    io.out(server.url);
    if (server.remote)
      io.err(
        `hsearch serve: warning: serving on ${argv.host}, reachable from other machines, with no authentication: anyone who reaches it spends this machine's API key`,
      );
    io.err(
      `hsearch serve: harness ${server.harnessLabel} around ${server.modelId}; logs in ${argv.log}; Ctrl-C stops it`,
    );
    await untilInterrupted();
    const served = await server.close();
    io.err(
      `hsearch serve: stopped; ${served.conversations} conversations, ${served.model_calls} model calls, ` +
        `${served.input_tokens} input and ${served.output_tokens} output tokens` +
        (served.usd !== null ? `, ${formatUsd(served.usd)}` : " (no price for this model)"),
    );
  },
});
