import { HsearchError } from "../core/errors";
import { type SearchConfig, searchConfigSchema } from "../search/config-schema";
import { openRunStore, RUN_KIND_LABEL, type RunStore } from "../store";
import { locateRun } from "./shared";

/**
 * A run or evaluation directory opened for reading, whatever it holds (status, report and view serve both); its
 * run.db is checked by the store (a damaged file is bad_input, nothing is written).
 */
export function openRunDirForReading(run: string, cwd: string): RunStore {
  return openRunStore(locateRun(run, cwd), { readonly: true });
}

/**
 * A run opened for a read-only command: run.db checked by the store (a damaged file is bad_input, nothing is
 * written) and the config stored in it checked against the schema, so an edited config is one clear error.
 */
export function openRunForReading(run: string, cwd: string): RunStore {
  const store = openRunStore(locateRun(run, cwd), { readonly: true });
  try {
    if (store.getRun()) storedConfig(store);
    return store;
  } catch (error) {
    store.close();
    throw error;
  }
}

/** The run's config as stored in run.db, validated; bad_input naming run.db and the field otherwise. */
export function storedConfig(store: RunStore): SearchConfig {
  const record = store.getRun();
  if (!record)
    throw new HsearchError("not_found", "no run recorded in this run directory", { file: store.paths.db });
  if (record.kind !== "search")
    throw new HsearchError(
      "bad_input",
      `${store.paths.dir} holds ${RUN_KIND_LABEL[record.kind]}, not a search run (hsearch status, report and view open it)`,
      { file: store.paths.dir },
    );
  const parsed = searchConfigSchema.safeParse(record.config);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join(".") || undefined;
  throw new HsearchError(
    "bad_input",
    `run.db is damaged: the stored config does not validate (${issue?.message ?? "invalid"}); the run was left as it is`,
    { file: store.paths.db, field },
  );
}
