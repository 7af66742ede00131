/**
 * `hsearch export`: a commit's files as a self-contained harness directory plus `provenance.json` (run, commit,
 * tree, and whatever the caller adds: scores, round, selection).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { canonicalJson } from "../core";
import { commitInfo } from "./inspect";
import { readRepoSettings } from "./repo-settings";
import { materialize, readTree } from "./tree";

export const PROVENANCE_FILE = "provenance.json";

export interface ExportedHarness {
  dir: string;
  commit: string;
  files: string[];
  provenance: Record<string, unknown>;
}

export async function exportHarness(
  repo: string,
  commit: string,
  outDir: string,
  provenance: Record<string, unknown> = {},
): Promise<ExportedHarness> {
  const info = await commitInfo(repo, commit);
  const { run } = await readRepoSettings(repo);
  const files = await materialize(repo, info.commit, outDir);
  const record: Record<string, unknown> = {
    ...provenance,
    run,
    commit: info.commit,
    tree: info.tree,
    trailers: info.trailers,
  };
  // A harness exported before and used as a seed carries an old provenance.json; it is replaced, and kept inside
  // the new one so the lineage is not lost.
  if (files.includes(PROVENANCE_FILE)) {
    const previous = (await readTree(repo, info.commit))[PROVENANCE_FILE] ?? "";
    record.previous_provenance = parsePrevious(previous);
  }
  const text = `${JSON.stringify(JSON.parse(canonicalJson(record)), null, 2)}\n`;
  await writeFile(join(outDir, PROVENANCE_FILE), text);
  return { dir: outDir, commit: info.commit, files, provenance: record };
}

function parsePrevious(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
