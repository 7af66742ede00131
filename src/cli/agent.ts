import { resolve } from "node:path";
import { AGENT_EXIT_CODES, createModel, loadHarness, runAgent } from "../api";
import { defineCommand } from "./command-list";
import { usageError } from "./usage-error";

export const register = defineCommand("agent", {
  options: (yargs) =>
    yargs
      .positional("instruction", { type: "string", demandOption: true, describe: "the task's instruction" })
      .option("harness", {
        type: "string",
        demandOption: true,
        describe: "harness directory (e.g. an export of the selected harness)",
      })
      .option("model", {
        type: "string",
        demandOption: true,
        describe: "the model: openai:<name>, anthropic:<name> or sim:<profile>",
      })
      .option("workdir", {
        type: "string",
        describe: "the directory the agent works in (default: the current one)",
      })
      .option("max-steps", {
        type: "number",
        describe: "agent steps (default: the harness's agent.max_steps)",
      })
      .option("out", {
        type: "string",
        describe: "directory for trajectory.json (ATIF) and hsearch-trajectory.json (default: none written)",
      })
      .option("seed", { type: "number", default: 0, describe: "the episode's seed" })
      .option("network", {
        type: "boolean",
        default: true,
        describe:
          "whether the shell has network, as the bash tool tells the agent (--no-network: it has none)",
      })
      .option("task-id", {
        type: "string",
        describe: "the task id the trajectory records (default: agent)",
      })
      .check((argv) => {
        const steps = argv.maxSteps;
        if (steps !== undefined && !(Number.isInteger(steps) && (steps as number) > 0))
          throw usageError(`--max-steps ${argv.maxSteps}: a positive integer`);
        return true;
      }),
  run: async (argv, io, setExitCode) => {
    const outcome = await runAgent({
      harness: loadHarness(resolve(io.cwd, argv.harness)),
      model: createModel(argv.model, { env: io.env }),
      instruction: argv.instruction,
      workdir: resolve(io.cwd, argv.workdir ?? "."),
      ...(argv.maxSteps !== undefined ? { maxSteps: argv.maxSteps } : {}),
      ...(argv.out !== undefined ? { out: resolve(io.cwd, argv.out) } : {}),
      seed: argv.seed,
      network: argv.network,
      ...(argv.taskId !== undefined ? { taskId: argv.taskId } : {}),
    });
    const end = outcome.trajectory.end;
    const detail =
      outcome.status === "deferred"
        ? `: ${outcome.deferral ?? "deferred"}`
        : end.error !== undefined
          ? `: ${end.error}`
          : "";
    io.out(`${outcome.status} after ${outcome.trajectory.steps} steps (exit ${outcome.exitCode})${detail}`);
    for (const file of outcome.files) io.out(`wrote ${file}`);
    setExitCode(AGENT_EXIT_CODES[outcome.status]);
  },
});
