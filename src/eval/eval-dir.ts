/**
 * The evaluation directory (docs/DESIGN.md §3): what `hsearch eval` and the probes keep, in the layout and store of a run
 * directory — run.db (kind `eval`, `probe_beliefs` or `probe_challenge`), `harness/` (the evaluated harness committed
 * as the seed on `main`; a compared second harness on `round-0/p1`), `trajectories/`. One reader (status, report,
 * view) serves runs and evaluations alike. Resuming reads the harness from its commit, never from the directory it
 * was first read from, so an edit there cannot change a resumed evaluation.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { canonicalJson, HsearchError } from "../core";
import { commitProposal, initHarnessRepo, readTree, treeHash } from "../git";
import { type Harness, parseHarness } from "../harness";
import {
  createRunDir,
  openRunStore,
  RUN_KIND_LABEL,
  type RunKind,
  type RunRecord,
  type RunStore,
} from "../store";
import { type ConfigOf, type HarnessTaskConfig, storedEvaluationConfig } from "./eval-config";

export type EvaluationKind = Exclude<RunKind, "search">;

/** A harness to evaluate, as loaded, with the directory it was read from. */
export interface SourceHarness {
  harness: Harness;
  dir: string;
}

export interface NewEvaluationDir<K extends EvaluationKind> {
  /** Where: `<root>/<id>/` (an existing empty directory is taken; anything else there is a conflict). */
  root: string;
  id: string;
  kind: K;
  name: string;
  harness: SourceHarness;
  /** A second harness (`probe beliefs --compare`). */
  compare?: SourceHarness;
  /** Everything of the config but the harnesses, which are filled in with their commits. */
  config: Omit<ConfigOf<K>, "harness" | "compare">;
}

export interface EvaluationDir<K extends EvaluationKind> {
  store: RunStore;
  run: RunRecord;
  config: ConfigOf<K>;
  harness: Harness;
  /** The second harness of a comparison. */
  compare?: Harness;
}

/** Creates the directory, commits the harness(es) and records the run with its config; the caller closes the store. */
export async function createEvaluationDir<K extends EvaluationKind>(
  spec: NewEvaluationDir<K>,
): Promise<EvaluationDir<K>> {
  const paths = createRunDir(spec.root, spec.id, { allowEmpty: true });
  const store = openRunStore(paths.dir);
  try {
    const seed = await commitHarness(paths.harness, spec.id, spec.harness);
    const compare = spec.compare
      ? await commitCompared(paths.harness, spec.id, seed.commit, spec.compare)
      : undefined;
    const config = {
      ...spec.config,
      harness: harnessEntry(spec.harness, seed.commit),
      ...(spec.compare && compare ? { compare: harnessEntry(spec.compare, compare.commit) } : {}),
    } as ConfigOf<K>;
    const run = store.initRun({
      id: spec.id,
      kind: spec.kind,
      name: spec.name,
      // Stored as plain JSON: settings left out are absent, not `undefined`.
      config: JSON.parse(canonicalJson(config)),
      seed: (config as HarnessTaskConfig).seed,
    });
    store.addCandidate({
      commit: seed.commit,
      round: 0,
      proposal: 0,
      parent: null,
      branch: "main",
      proposer: "seed",
      rationale: `the evaluated harness ${spec.harness.harness.label}`,
      tree_hash: seed.tree,
    });
    if (compare && spec.compare)
      store.addCandidate({
        commit: compare.commit,
        round: 0,
        proposal: 1,
        parent: seed.commit,
        branch: compare.branch,
        proposer: "compare",
        rationale: `the compared harness ${spec.compare.harness.label}`,
        tree_hash: compare.tree,
      });
    store.logEvent({ kind: "evaluation_started", data: { kind: spec.kind } });
    return {
      store,
      run,
      config,
      harness: spec.harness.harness,
      ...(spec.compare ? { compare: spec.compare.harness } : {}),
    };
  } catch (error) {
    store.close();
    throw error;
  }
}

/**
 * Opens an evaluation directory of kind `kind` to resume it: a directory that holds something else (a search run,
 * another kind of evaluation) is bad input naming it; the harnesses come from their commits and must hash as stored.
 */
export async function openEvaluationDir<K extends EvaluationKind>(
  dir: string,
  kind: K,
): Promise<EvaluationDir<K>> {
  const store = openRunStore(dir);
  try {
    const run = store.getRun();
    if (!run)
      throw new HsearchError("bad_input", `${dir} is not ${RUN_KIND_LABEL[kind]}: no run is recorded in it`, {
        file: dir,
      });
    if (run.kind !== kind)
      throw new HsearchError(
        "bad_input",
        `${dir} holds ${RUN_KIND_LABEL[run.kind]}, not ${RUN_KIND_LABEL[kind]}`,
        {
          file: dir,
        },
      );
    const config = storedEvaluationConfig(run, kind, store.paths.db);
    const harness = await committedHarness(store, config.harness);
    const compared = (config as { compare?: HarnessTaskConfig["harness"] }).compare;
    return {
      store,
      run,
      config,
      harness,
      ...(compared ? { compare: await committedHarness(store, compared) } : {}),
    };
  } catch (error) {
    store.close();
    throw error;
  }
}

function harnessEntry(source: SourceHarness, commit: string): HarnessTaskConfig["harness"] {
  return { dir: source.dir, label: source.harness.label, hash: source.harness.hash, commit };
}

/** The harness exactly as loaded (its files, not whatever else its directory holds) as the seed commit. */
async function commitHarness(
  repo: string,
  runId: string,
  source: SourceHarness,
): Promise<{ commit: string; tree: string }> {
  const scratch = mkdtempSync(join(tmpdir(), "hsearch-eval-harness-"));
  try {
    const files = join(scratch, basename(source.dir) || "harness");
    for (const [path, content] of Object.entries(source.harness.files)) {
      await mkdir(dirname(join(files, path)), { recursive: true });
      writeFileSync(join(files, path), content);
    }
    const { seed, tree } = await initHarnessRepo(repo, files, { runId });
    return { commit: seed, tree };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The compared harness as a commit on the evaluated one: its diff is what tells the two apart. */
async function commitCompared(
  repo: string,
  runId: string,
  parent: string,
  source: SourceHarness,
): Promise<{ commit: string; branch: string; tree: string }> {
  const before = await readTree(repo, parent);
  const files: Record<string, string | null> = { ...source.harness.files };
  for (const path of Object.keys(before)) if (!(path in files)) files[path] = null;
  const { commit, branch } = await commitProposal(repo, {
    parent,
    round: 0,
    proposal: 1,
    files,
    rationale: `compared harness: ${source.harness.label}`,
    trailers: { run: runId, proposer: "compare" },
  });
  return { commit, branch, tree: await treeHash(repo, commit) };
}

async function committedHarness(store: RunStore, entry: HarnessTaskConfig["harness"]): Promise<Harness> {
  const harness = parseHarness(await readTree(store.paths.harness, entry.commit), entry.label);
  if (harness.hash !== entry.hash)
    throw new HsearchError(
      "bad_input",
      `the harness repository is damaged: commit ${entry.commit.slice(0, 12)} does not hold the evaluated harness (hash ${entry.hash.slice(0, 12)})`,
      { file: store.paths.harness },
    );
  return harness;
}
