import type { CliIO } from "../../src/cli/io";
import { main } from "../../src/cli/main";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the real CLI in-process with captured output (the bin is tested separately through a child process). */
export async function runCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
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
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}
