/** The public entry of src/core: what other modules of src/ import from it (src/README.md, the import rule). */
export {
  canonicalJson,
  canonicalJsonOfMembers,
  frozenJson,
  hashJson,
  rememberedCanonicalJson,
  sha256,
} from "./canonical-json";
export { contextPathProblem, relativePathProblem, resolveInside } from "./contained-path";
export { deepFreeze } from "./deep-freeze";
export { badInput, type ErrorLocation, HsearchError, type HsearchErrorCode, isHsearchError } from "./errors";
export { newRunId, rolloutKey } from "./ids";
export { linearRegex } from "./linear-regex";
export { assertOutputApart } from "./output-overlap";
export { packageVersion } from "./package-version";
export { PACKAGE_ROOT, resolveUserPath } from "./paths";
export { callHook, type HookPlace, isPluginHookError } from "./plugin-hook";
export { DEFAULT_CONCURRENCY, mapPool, settleAll } from "./pool";
export { readRegularFile } from "./read-file";
export { addToRegistry } from "./registry";
export { createRng, type Rng } from "./rng";
export { shellQuote } from "./shell-quote";
export { retryWhileBusy } from "./sqlite-busy";
