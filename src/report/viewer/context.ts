/** What a viewer page renders from: the run's in-memory model, its harness repository (cached), the request. */
import type { RunRecord, RunStore } from "../../store";
import type { DiffSource } from "../model/report-data";
import type { RunModel } from "./run-model";

export interface ViewerContext {
  /** The snapshot every page of this request reads (synced once per request). */
  model: RunModel;
  /** The store itself, for what the model does not keep (a probe's episodes). */
  store: RunStore;
  run: RunRecord;
  url: URL;
  /** The run's harness repository. */
  repo: string;
  /** Diffs and trees of commits, remembered (git objects never change). */
  diffs: DiffSource;
  tree(commit: string): Promise<Record<string, string>>;
}
