import { join } from "node:path";
import { HsearchError } from "../core";
import { loadConfigPlugins, recordedModules } from "../plugins";
import { buildProposerInput, renderMetaPrompt, searchConfigSchema } from "../search";
import { openRunStore, resolveCandidate } from "../store";
import { locateRun } from "./locate-run";

export interface DigestOptions {
  cwd: string;
  /** seed, incumbent, selected, r4p1 or a commit prefix; default the incumbent. */
  candidate?: string;
  /** As proposed in this round; default the first round the candidate was a parent or the incumbent. */
  round?: number;
}

/**
 * What a proposer sees with a candidate as the incumbent (`hsearch digest`): exactly the prompt the `llm` proposer
 * sends (same builder, same budget), so a reader can judge it as a model would.
 */
export async function digestPrompt(target: string, options: DigestOptions): Promise<string> {
  const runDir = locateRun(target, options.cwd);
  const store = openRunStore(runDir, { readonly: true });
  try {
    const run = store.getRun();
    if (!run) throw new HsearchError("not_found", `no run recorded in ${runDir}`);
    const config = searchConfigSchema.parse(run.config);
    // A plug-in suite's policy and tools are its module's: imported as the run recorded it (src/plugins).
    const recorded = recordedModules(store.listEvents(), store.paths.db);
    await loadConfigPlugins(config, recorded.file, recorded.modules);
    const rounds = store.listRounds();
    const candidates = store.listCandidates();
    const latest = rounds.at(-1);
    const commit = resolveCandidate(store, options.candidate ?? "incumbent", { field: "--candidate" }).commit;
    const round =
      options.round ??
      // The first round it was a parent (pareto draws parents that are not the incumbent), or the incumbent.
      candidates.find((c) => c.round > 0 && c.parent === commit)?.round ??
      rounds.find((r) => r.round > 0 && r.incumbent_before === commit)?.round ??
      Math.max(1, (latest?.round ?? 0) + 1);
    const input = await buildProposerInput(
      { view: store.searchView(), repo: join(runDir, "harness"), config },
      commit,
      round,
    );
    return renderMetaPrompt({
      ...input,
      count: config.proposals_per_round,
      objective: config.objective,
      maxTokens: config.proposer.max_prompt_tokens,
    });
  } finally {
    store.close();
  }
}
