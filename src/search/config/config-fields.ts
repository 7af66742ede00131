import { z } from "zod";

/** A model spec in the config: provider:model, or oracle. */
export const modelSpec = z
  .string()
  .regex(
    /^(oracle|[a-z][a-z0-9_-]*:\S+)$/,
    "a model is provider:model, e.g. sim:default, openai:gpt-4.1-mini, or oracle",
  );

/**
 * A module path in the config (src/plugins): `./`, `../` or `/` first, relative to the config file. A plug-in suite
 * in `suites`, a plug-in proposer in `meta_model`. Self-contained here, next to the fields that take one.
 */
const MODULE_PATH = /^(\.{1,2})?\//;
/** A module path; `message` is the field's whole rule, since zod reports this branch when none of the field's matches. */
export const modulePath = (message: string) => z.string().regex(MODULE_PATH, message);
