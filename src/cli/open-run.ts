import { locateRun, storedConfig } from "../api/locate-run";
import { openRunStore, type RunStore } from "../store";

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

export { storedConfig } from "../api/locate-run";
