import { z } from "zod";
import { unchangedRoundTasks } from "../plan/race-plan";
import { nextLook, raceLook } from "./race-halving";
import { raceParameters, raceRound } from "./race-round";
import { defineAcceptanceRule } from "./rule";

/**
 * Sequential paired racing (greedy only): each proposal races the incumbent on the search tasks a batch at a time and
 * stops once a betting confidence sequence decides it (src/search/acceptance/race-halving.ts); optionally successive halving within a
 * round and an informative task order (src/search/plan/race-plan.ts); the round itself is src/search/acceptance/race-round.ts.
 */
const schema = z
  .object({
    rule: z.literal("race"),
    alpha: z
      .number()
      .gt(0)
      .lt(1)
      .default(0.2)
      .describe("Error rate of each race's two one-sided e-processes together (α/2 each)."),
    margin: z
      .number()
      .gt(0)
      .lt(1)
      .default(0.1)
      .describe("A proposal is rejected once it is shown not better than the incumbent by this much."),
    batch: z.number().int().min(1).max(1000).default(8).describe("Search tasks per look."),
    min_tasks: z
      .number()
      .int()
      .min(1)
      .default(32)
      .describe("A proposal is never accepted on fewer search tasks than this."),
    order: z
      .enum(["seeded", "informative"])
      .default("seeded")
      .describe(
        "seeded: one uniform seeded order of the search tasks per run; informative: per round, a seeded draw that favours the tasks on which earlier candidates' search outcomes disagreed (each draw weighted by 1/probability, so the confidence sequence stays valid).",
      ),
    informative_weight: z
      .number()
      .gt(1)
      .max(100)
      .default(4)
      .describe(
        "order informative: how many times likelier a task on which earlier candidates disagreed completely is drawn than one on which they agreed.",
      ),
    halving: z
      .object({
        keep: z
          .number()
          .gt(0)
          .lt(1)
          .default(0.5)
          .describe("The share of racing proposals kept at each rung."),
        first: z
          .number()
          .int()
          .min(1)
          .default(16)
          .describe("The first rung, in search tasks; later rungs at 2×, 4×, … as many."),
      })
      .strict()
      .optional()
      .describe(
        "Successive halving within a round: at each rung the proposals still racing are ranked by their mean paired difference and only the best share races on (it only ever rejects).",
      ),
  })
  .strict()
  .describe(
    "Sequential paired racing: each proposal runs on the search tasks in a seeded order, a batch at a time, and stops as soon as a betting confidence sequence on its paired difference against the incumbent decides it.",
  );

export type RaceConfig = z.infer<typeof schema>;

export const raceRule = defineAcceptanceRule({
  schema,
  check: (_rule, config) =>
    config.strategy === "pareto"
      ? {
          message: "acceptance.rule race races proposals against one incumbent: use it with strategy greedy",
          field: ["acceptance", "rule"],
        }
      : null,
  // A proposal that changes no outcome stops where the confidence sequence rejects a mean difference of 0 (the
  // simulator's usual proposal), so that is its expected cost; with `halving`, tied proposals are dropped at its
  // rungs before that. An informative order is uniform until candidates disagree and then caps the bets somewhat
  // lower, so its unchanged proposals cost at least this much. The incumbent is extended, never scored twice.
  plan: (rule, config, counts) => {
    const full = (1 + config.rounds * config.proposals_per_round) * counts.search * config.repeats;
    const parameters = raceParameters(rule);
    const decided = (tasks: number) =>
      raceLook(new Array<number>(tasks).fill(0), counts.search, parameters).verdict !== "more";
    let n = 0;
    do n = nextLook(n, counts.search, rule.batch);
    while (!decided(n));
    const perRound = unchangedRoundTasks(
      counts.search,
      config.proposals_per_round,
      rule.batch,
      rule.halving,
      decided,
    );
    return {
      search: { max: full, expected: (counts.search + config.rounds * perRound) * config.repeats },
      tasksPerUnchangedProposal: n,
      note: `a proposal that changes no outcome stops after ${n} tasks`,
    };
  },
  round: (rule, { deps, repo, round, incumbent, admitted }) =>
    raceRound(deps, repo, round, incumbent, admitted, rule),
});
