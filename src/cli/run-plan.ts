import type { loadSearchTasks as LoadTasks } from "../api/run-setup";
import { loadSearchConfig } from "../search/load-config";
import { planSearch, type SearchPlan } from "../search/plan";
import type { CliIO } from "./io";

/**
 * `hsearch run --plan CONFIG`: what the search will spend, printed before any model is created or called — rollouts
 * at most and at the expected stopping point (src/search/plan.ts).
 */
export function planCommand(file: string, io: CliIO, json: boolean, loadTasks: typeof LoadTasks): SearchPlan {
  const config = loadSearchConfig(file);
  const tasks = loadTasks(config, io.cwd, file);
  const counts = {
    search: tasks.search.length,
    heldout: tasks.heldout().length,
    independent: tasks.independent().length,
  };
  const plan = planSearch(config, counts);
  if (json) {
    io.out(JSON.stringify({ config: file, tasks: counts, ...plan }, null, 2));
    return plan;
  }
  const rule = config.acceptance.rule;
  const lines = [
    `plan for ${config.name}: R0 + ${config.rounds} rounds × ${config.proposals_per_round} proposals = ${plan.candidates} candidates; ${counts.search} search tasks × ${config.repeats} repeat${config.repeats > 1 ? "s" : ""}; acceptance ${rule}`,
    `search rollouts: at most ${plan.search.max}; expected ${plan.search.expected}${
      rule === "race"
        ? ` (a proposal that changes no outcome stops after ${plan.tasksPerUnchangedProposal} tasks)`
        : rule === "paired" && plan.search.max > plan.search.expected
          ? " (more only for close calls' extra repeats)"
          : ""
    }`,
    `final evaluation rollouts: ${plan.final} (held-out ${counts.heldout} + independent ${counts.independent} tasks, for the selection and the seed)`,
    `total rollouts: at most ${plan.search.max + plan.final}; expected ${plan.search.expected + plan.final}`,
    "no model was called; a budget in the config stops the run earlier",
  ];
  io.out(`${lines.join("\n")}\n`);
  return plan;
}
