import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { CliIO } from "../../src/cli/io";
import { main } from "../../src/cli/main";
import { PACKAGE_ROOT } from "../../src/core/paths";

/**
 * Node arguments that run the CLI as a child process from its TypeScript sources (through tsx): for benchmarks, and
 * for test/cli/bin.test.ts, which checks the compiled command against them. Tests start the compiled CLI
 * (compiledCli, test/helpers/compiled-package.ts), which starts in a third of the CPU.
 */
export const SOURCE_CLI: readonly string[] = [
  "--import",
  // Resolved from the package, so the child may run in any directory.
  pathToFileURL(createRequire(join(PACKAGE_ROOT, "package.json")).resolve("tsx")).href,
  join(PACKAGE_ROOT, "src", "cli", "bin.ts"),
];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the real CLI in-process with captured output (the bin is tested separately through a child process). */
export async function runCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; io?: Partial<CliIO> } = {},
): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const io: CliIO = {
    out: (text) => {
      stdout += text.endsWith("\n") ? text : `${text}\n`;
    },
    err: (text) => {
      stderr += text.endsWith("\n") ? text : `${text}\n`;
    },
    errInline: (text) => {
      stderr += text;
    },
    isTTY: false,
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? process.env,
    ...options.io,
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

/**
 * The object a command printed with `--json` (appended to `args`), for tests about a value rather than its wording;
 * output that is not JSON fails naming the exit code and stderr, not only a parse error.
 */
export async function runCliJson(
  args: string[],
  options: Parameters<typeof runCli>[1] = {},
  // biome-ignore lint/suspicious/noExplicitAny: a command's JSON, read field by field in the assertions
): Promise<CliResult & { json: any }> {
  const result = await runCli([...args, "--json"], options);
  try {
    return { ...result, json: JSON.parse(result.stdout) };
  } catch {
    throw new Error(
      `hsearch ${args.join(" ")} --json printed no JSON (exit ${result.code}): ${result.stdout.slice(0, 200)}\n${result.stderr}`,
    );
  }
}
