/**
 * The one wrapper around a researcher's code while it runs: a suite's `createEnvironment`, `verify`, `tasks()` and
 * its environment's methods, a proposer's `propose()`, a metric's `value()`. What such code throws is bad input
 * naming the module and the hook, never an internal error: the bug is in the module, and a run it stopped continues
 * once the module is fixed (src/plugins, src/api/start-run.ts).
 */
import { HsearchError } from "./errors";

/** Where plug-in code comes from: its module's absolute path, the config field that named it, the config file. */
export interface HookPlace {
  module: string;
  field: "suites" | "meta_model" | "metrics" | "suite" | "module";
  file?: string;
}

/** Plug-in code threw while running: `module` and `hook` say whose code and which call. */
export class PluginHookError extends HsearchError {
  readonly module: string;
  readonly hook: string;

  constructor(place: HookPlace, hook: string, cause: unknown) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    const named = place.field === "suite" ? "--suite: " : place.field === "module" ? "" : `${place.field}: `;
    super("bad_input", `${named}module ${place.module}: ${hook} threw: ${detail}`, {
      ...(place.file ? { file: place.file } : {}),
      field: place.field,
      cause,
    });
    this.name = "PluginHookError";
    this.module = place.module;
    this.hook = hook;
  }
}

export function isPluginHookError(error: unknown): error is PluginHookError {
  return error instanceof PluginHookError;
}

/**
 * Calls `run` (the plug-in's `hook`, e.g. "propose() in round 2"), turning what it throws, or what its promise
 * rejects with, into a PluginHookError. An error that already names a hook (one hook calling another) is kept.
 */
export function callHook<T>(place: HookPlace, hook: string, run: () => T): T {
  const named = (error: unknown) =>
    error instanceof PluginHookError ? error : new PluginHookError(place, hook, error);
  let result: T;
  try {
    result = run();
  } catch (error) {
    throw named(error);
  }
  // Any thenable, not only a native promise: a module may use its own promise library.
  if (typeof (result as { then?: unknown } | null)?.then === "function")
    return Promise.resolve(result).catch((error: unknown) => {
      throw named(error);
    }) as T;
  return result;
}
