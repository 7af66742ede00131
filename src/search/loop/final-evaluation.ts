import { settleAll } from "../../core";
import type { Task } from "../../domain";
import { harnessLimitsOf } from "../../harness";
import { definedObjectiveScore, summarize } from "../../scoring";
import { loadCandidate, runJobs } from "./candidate-rollouts";
import type { SearchDeps } from "./search-deps";

/**
 * Optional per-round diagnostic of the incumbent on the held-out and the independent split. Stored with purpose
 * `diagnostic`, which the search view (the only store access proposers and acceptance get) cannot read; `hsearch
 * status` and the report show it per round.
 */
export async function diagnostic(
  deps: SearchDeps,
  repo: string,
  incumbent: string,
  round: number,
): Promise<void> {
  const splits = [
    { split: "heldout" as const, tasks: () => deps.tasks.heldout() },
    { split: "independent" as const, tasks: () => deps.tasks.independent() },
  ];
  for (const { split, tasks } of splits) {
    // The same incumbent on the same tasks and seeds gives the same diagnostic: one row per incumbent and split,
    // measured again only where infrastructure errors left episodes unscored.
    const known = deps.store.getEvaluation(incumbent, "diagnostic", split);
    if (known && isComplete(known.summary)) continue;
    const list = tasks();
    if (list.length === 0) continue;
    const harness = await loadCandidate(repo, incumbent, harnessLimitsOf(deps.config.limits));
    const scores = await runJobs(
      deps,
      harness,
      incumbent,
      "diagnostic",
      list,
      `round ${round} ${split} diagnostic`,
    );
    deps.store.putEvaluation({
      candidate: incumbent,
      purpose: "diagnostic",
      split,
      round: known?.round ?? round,
      summary: {
        ...summarize(scores),
        objective: definedObjectiveScore(scores, deps.config.objective),
      },
    });
  }
}

/** After the search: the selected and the seed harness on held-out and independent tasks. */
export async function finalEvaluations(
  deps: SearchDeps,
  repo: string,
  selected: string,
  seed: string,
): Promise<void> {
  const plans: Array<{ purpose: "heldout" | "independent"; tasks: Task[] }> = [
    { purpose: "heldout", tasks: deps.tasks.heldout() },
    { purpose: "independent", tasks: deps.tasks.independent() },
  ];
  const todo = (selected === seed ? [selected] : [selected, seed]).flatMap((commit) =>
    plans
      .filter(({ purpose, tasks }) => {
        const known = deps.store.getEvaluation(commit, purpose, purpose);
        return tasks.length > 0 && !(known && isComplete(known.summary));
      })
      .map((plan) => ({
        commit,
        ...plan,
        role: commit === selected ? ("selected" as const) : ("seed" as const),
      })),
  );
  if (todo.length === 0) return;
  deps.events?.phase?.(`final: ${todo.map(({ role, purpose }) => `${role} on ${purpose}`).join(", ")}`);
  // All final evaluations share the run's slots at once: a small split no longer leaves most of them idle.
  await settleAll(
    todo.map(async ({ commit, purpose, tasks, role }) => {
      const harness = await loadCandidate(repo, commit, harnessLimitsOf(deps.config.limits));
      const scores = await runJobs(deps, harness, commit, purpose, tasks, `${role} on ${purpose}`);
      deps.store.putEvaluation({
        candidate: commit,
        purpose,
        split: purpose,
        round: null,
        summary: {
          ...summarize(scores),
          objective: definedObjectiveScore(scores, deps.config.objective),
          role,
        },
      });
    }),
  );
}

/** Every planned episode scored: no infrastructure error left to run again (older summaries count as complete). */
function isComplete(summary: Record<string, unknown>): boolean {
  const { n_scored, n_total } = summary as { n_scored?: number; n_total?: number };
  return n_scored === undefined || n_scored === n_total;
}
