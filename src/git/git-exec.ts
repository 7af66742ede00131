/**
 * The one place that runs git. Every call gets a clean environment: inherited GIT_* variables (a hook's GIT_DIR or
 * GIT_INDEX_FILE) and the user's global and system config (autocrlf, gpgsign, hooks, templates) would otherwise change
 * what git writes, and the same run must give the same commits on every machine.
 */
import { execa } from "execa";
import { HsearchError } from "../core";

export const HSEARCH_AUTHOR = { name: "hsearch", email: "hsearch@localhost" } as const;

export interface GitOptions {
  /** Bytes or text written to git's stdin. */
  input?: string | Uint8Array;
  /** Extra environment variables (e.g. GIT_INDEX_FILE, commit dates). */
  env?: Record<string, string>;
  /** Exit codes that are answers rather than failures (e.g. 1 from `git config --get` for "unset"). */
  allowExitCodes?: number[];
}

export interface GitResult {
  stdout: string;
  exitCode: number;
}

function gitEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith("GIT_")) env[name] = value;
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_AUTHOR_NAME: HSEARCH_AUTHOR.name,
    GIT_AUTHOR_EMAIL: HSEARCH_AUTHOR.email,
    GIT_COMMITTER_NAME: HSEARCH_AUTHOR.name,
    GIT_COMMITTER_EMAIL: HSEARCH_AUTHOR.email,
    LC_ALL: "C",
    ...extra,
  };
}

function failure(repo: string, args: string[], error: unknown): HsearchError {
  const raw = (error as { stderr?: unknown }).stderr;
  const stderr = raw instanceof Uint8Array ? Buffer.from(raw).toString("utf8") : raw;
  const detail = typeof stderr === "string" && stderr.trim().length > 0 ? stderr.trim() : String(error);
  return new HsearchError("internal", `git ${args.join(" ")} failed in ${repo}: ${detail}`, {
    file: repo,
    cause: error,
  });
}

/** Runs `git <args>` in `repo` and returns stdout as text (final newline kept: callers parse exact output). */
export async function git(repo: string, args: string[], options: GitOptions = {}): Promise<GitResult> {
  try {
    const result = await execa("git", args, {
      cwd: repo,
      env: gitEnv(options.env),
      extendEnv: false,
      input: options.input,
      stripFinalNewline: false,
      reject: false,
    });
    const allowed = [0, ...(options.allowExitCodes ?? [])];
    if (result.exitCode === undefined || !allowed.includes(result.exitCode)) throw result;
    return { stdout: result.stdout, exitCode: result.exitCode };
  } catch (error) {
    throw failure(repo, args, error);
  }
}
