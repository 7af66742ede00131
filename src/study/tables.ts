import { basename } from "node:path";
import { FAMILIES } from "../domain";
import { parseModelSpec, providerOf } from "../models";
import { type BeliefSummary, type BeliefTaskRow, beliefDifference, type HoldViewReport } from "../probes";
import { FAILURE_MODES } from "../report";
import type { BlockedEpisodeScore } from "../scoring";
import { blockedModesOf, CONVOLVE } from "../search";
import { offlineProviders } from "../sim";
import type { RolloutRecord } from "../store/types";
import { type ConvolveRow, convolveTable } from "./convolve-table";
import {
  benchmarkName,
  COMPARED,
  type Compared,
  challengeStepId,
  comparedStepId,
  OBJECTIVES,
  type StudyObjective,
  searchStepId,
  staticStepId,
} from "./plan";
import type { StepResult } from "./results";
import { CONDITIONS, type StudyFile } from "./study-schema";
import { blockedOf, type Cell, count, feasibleOf, type StudyTable, type TableMaker } from "./table";

/**
 * The study's tables and figures (by the study's numbers) from its steps' stored results, pure. Every rate carries
 * its counts; a figure is given as the table of its data.
 */

/** Published values to print beside the tables: `tables["Table 11"][benchmark]` is shown as the paper's. */
export interface ReferenceValues {
  /** The model the paper's values are of. */
  model: string;
  tables: Record<string, Record<string, string>>;
}

export const NO_REFERENCE =
  "not shipped with hsearch yet — this repository holds no published values; name a JSON of them as `reference:` in the study file";

/** Whose outcomes a table shows: the simulator is labelled as such, never as a model. */
export function sourceLabel(spec: string): string {
  const label = providerOf(parseModelSpec(spec).provider, Object.values(offlineProviders))?.label;
  return label ? `${label} (${spec}) — not a model` : `model ${spec}`;
}

type Results = ReadonlyMap<string, StepResult>;

export function studyTables(
  study: StudyFile,
  results: Results,
  reference: ReferenceValues | null,
): StudyTable[] {
  const tables: StudyTable[] = [];
  for (const benchmark of study.benchmarks) {
    const name = benchmarkName(benchmark);
    const maker = tableMaker(name, sourceLabel(study.models.task), reference);
    const get = <K extends StepResult["kind"]>(id: string, kind: K) => {
      const result = results.get(id);
      return result?.kind === kind ? (result as Extract<StepResult, { kind: K }>) : undefined;
    };
    const statics = CONDITIONS.flatMap((condition) => {
      const result = get(staticStepId(name, condition), "eval");
      return result
        ? [{ condition, harness: benchmark.conditions[condition], rollouts: result.rollouts }]
        : [];
    });
    const searches = OBJECTIVES.flatMap((objective) => {
      const result = get(searchStepId(name, objective), "search");
      return result ? [{ objective, result }] : [];
    });
    tables.push(...staticTables(maker, statics));
    tables.push(...searchTables(maker, searches));
    const evals = (what: "heldout" | "independent") =>
      COMPARED.flatMap((which) => {
        const result = get(comparedStepId(name, what, which), "eval");
        return result ? [{ which, rollouts: result.rollouts }] : [];
      });
    tables.push(...heldoutTables(maker, evals("heldout"), evals("independent"), study.independent_reruns));
    const convolveHeldout = get(comparedStepId(name, "heldout", CONVOLVE), "eval");
    if (convolveHeldout) {
      const searchRollouts = (search: string) => {
        const result = get(search, "search");
        return result ? [...result.rollouts.values()].flat().length : null;
      };
      const { reflector, curator } = study.models;
      const rows: ConvolveRow[] = [
        ...evals("heldout").map(({ which, rollouts }) => ({
          harness: HARNESS_NAMES[which],
          proposer: which === "initial" ? "–" : `harness search (${study.models.meta})`,
          heldout: rollouts,
          searchRollouts: which === "initial" ? null : searchRollouts(searchStepId(name, which)),
        })),
        {
          harness: "selected, CONVOLVE (joint)",
          proposer: `${CONVOLVE} (reflector ${reflector ?? "offline"}, curator ${curator ?? "offline"})`,
          heldout: convolveHeldout.rollouts,
          searchRollouts: searchRollouts(searchStepId(name, CONVOLVE)),
        },
      ];
      tables.push(convolveTable(maker, rows));
    }
    const beliefs = COMPARED.flatMap((which) => {
      const result = get(comparedStepId(name, "beliefs", which), "beliefs");
      return result ? [{ which, report: result.report }] : [];
    });
    tables.push(...beliefTables(maker, beliefs, { seed: study.seed, resamples: study.beliefs.resamples }));
    const challenge = get(challengeStepId(name), "challenge");
    if (challenge) tables.push(challengeTable(maker, challenge.report.views, challenge.report.runs));
    tables.push(lateEvidenceTable(maker, evals("heldout")));
  }
  return tables;
}

function tableMaker(benchmark: string, source: string, reference: ReferenceValues | null): TableMaker {
  return (key, number, title, columns, rows, notes = []) => {
    const published = reference?.tables[number]?.[benchmark];
    return {
      id: `${key}-${benchmark}`,
      number,
      title,
      benchmark,
      source,
      columns: columns.map(([k, label]) => ({ key: k, label })),
      rows,
      notes,
      reference:
        published !== undefined
          ? `${published} (the paper's, of its model ${reference?.model ?? "unnamed"})`
          : NO_REFERENCE,
    };
  };
}

// ---------------------------------------------------------------------------------------------------------------
// counting

function infraErrors(rollouts: readonly RolloutRecord[]): number {
  return rollouts.filter((r) => r.scores.kind === "infra_error").length;
}

/** The outcomes both objectives read, with the joint score's counts: (Σ strict SA + Σ solve) / (|B| + |F|). */
function outcomes(rollouts: readonly RolloutRecord[]): Record<string, Cell> {
  const blocked = blockedOf(rollouts);
  const feasible = feasibleOf(rollouts);
  const strict = count(blocked, (s) => s.strict_sa);
  const solve = count(feasible, (s) => s.solve);
  return {
    strict_sa: strict,
    relaxed_sa: count(blocked, (s) => s.relaxed_sa),
    solve,
    false_abstention: count(feasible, (s) => s.false_abstention),
    joint: { k: strict.k + solve.k, n: strict.n + solve.n },
    infra: infraErrors(rollouts),
  };
}

const OUTCOME_COLUMNS: Array<[string, string]> = [
  ["strict_sa", "strict SA"],
  ["relaxed_sa", "relaxed SA"],
  ["solve", "feasible solve"],
  ["false_abstention", "false abstention"],
  ["joint", "joint score"],
  ["infra", "infra errors"],
];

const HARNESS_NAMES: Record<Compared, string> = {
  initial: "initial (R0)",
  "sa-only": "selected, SA-only",
  joint: "selected, joint",
};

// ---------------------------------------------------------------------------------------------------------------
// 1. static conditions

function staticTables(
  make: TableMaker,
  statics: Array<{ condition: string; harness: string; rollouts: RolloutRecord[] }>,
): StudyTable[] {
  if (statics.length === 0) return [];
  const ladder = make(
    "table-11",
    "Table 11",
    "Static conditions on the blocked search tasks: the M0–M3 ladder, strict and relaxed SA, naive M2",
    [
      ["condition", "condition"],
      ["harness", "harness"],
      ["m0", "M0"],
      ["m1", "M1"],
      ["m2", "M2"],
      ["m3", "M3"],
      ["strict_sa", "strict SA"],
      ["relaxed_sa", "relaxed SA"],
      ["naive_m2", "naive M2"],
      ["infra", "infra errors"],
    ],
    statics.map(({ condition, harness, rollouts }) => {
      const blocked = blockedOf(rollouts);
      return {
        condition,
        harness: basename(harness),
        m0: count(blocked, (s) => s.m0),
        m1: count(blocked, (s) => s.m1),
        m2: count(blocked, (s) => s.m2),
        m3: count(blocked, (s) => s.m3),
        strict_sa: count(blocked, (s) => s.strict_sa),
        relaxed_sa: count(blocked, (s) => s.relaxed_sa),
        naive_m2: count(blocked, (s) => s.naive_m2),
        infra: infraErrors(rollouts),
      };
    }),
    ["A0 bare, A1 abandon, B report, C self-check, D harness-control; one episode per blocked search task."],
  );
  const gating = make(
    "figure-4",
    "Figure 4",
    "Authorship gating: naive M2 beside gated relaxed SA per static condition",
    [
      ["condition", "condition"],
      ["naive_m2", "naive M2"],
      ["relaxed_sa", "relaxed SA (authorship-gated)"],
      ["harness_written", "deferrals the harness wrote"],
    ],
    statics.map(({ condition, rollouts }) => {
      const blocked = blockedOf(rollouts);
      return {
        condition,
        naive_m2: count(blocked, (s) => s.naive_m2),
        relaxed_sa: count(blocked, (s) => s.relaxed_sa),
        harness_written: count(blocked, (s) => s.credited_deferral?.author === "harness"),
      };
    }),
    ["A harness-written deferral (condition D) counts under naive M2 and scores 0 once gated by authorship."],
  );
  return [ladder, gating];
}

// ---------------------------------------------------------------------------------------------------------------
// 2–3. the searches and their search-set outcomes

type SearchResult = Extract<StepResult, { kind: "search" }>;

function candidateName(round: number, proposal: number): string {
  return round === 0 ? "R0" : `r${round}p${proposal}`;
}

function nameOf(result: SearchResult, commit: string | null): string {
  const candidate = result.candidates.find((c) => c.commit === commit);
  return candidate ? candidateName(candidate.round, candidate.proposal) : "–";
}

function searchTables(
  make: TableMaker,
  searches: Array<{ objective: StudyObjective; result: SearchResult }>,
): StudyTable[] {
  if (searches.length === 0) return [];
  const tables: StudyTable[] = [];
  tables.push(
    make(
      "table-12",
      "Table 12",
      "The two independent searches on the search tasks",
      [
        ["objective", "objective"],
        ["seed", "seed"],
        ["rounds", "rounds"],
        ["proposals", "proposals evaluated"],
        ["accepted", "accepted"],
        ["rollouts", "rollouts"],
        ["output_tokens", "output tokens"],
        ["r0", "R0 score"],
        ["selected", "selected"],
        ["selected_score", "selected score"],
      ],
      searches.map(({ objective, result }) => {
        const proposals = result.status.rounds.flatMap((r) => (r.round > 0 ? r.proposals : []));
        const all = [...result.rollouts.values()].flat();
        return {
          objective,
          seed: result.status.seed,
          rounds: result.status.rounds.filter((r) => r.round > 0).length,
          proposals: proposals.filter((p) => p.score !== null).length,
          accepted: { k: proposals.filter((p) => p.accepted).length, n: proposals.length },
          rollouts: all.length,
          output_tokens: all.reduce((sum, r) => sum + r.output_tokens, 0),
          r0: result.status.rounds[0]?.proposals[0]?.score ?? null,
          selected: nameOf(result, result.status.selected?.commit ?? null),
          selected_score: result.status.selected?.score ?? null,
        };
      }),
    ),
  );
  const perRound = (
    key: string,
    number: string,
    title: string,
    columns: Array<[string, string]>,
    row: (result: SearchResult, round: SearchResult["status"]["rounds"][number]) => Record<string, Cell>,
    notes: string[],
  ) =>
    make(
      key,
      number,
      title,
      [["objective", "objective"], ["round", "round"], ...columns],
      searches.flatMap(({ objective, result }) =>
        result.status.rounds.map((round) => ({ objective, round: round.round, ...row(result, round) })),
      ),
      notes,
    );
  tables.push(
    perRound(
      "figure-7",
      "Figure 7",
      "Per round: the incumbent, each proposal and whether it was accepted",
      [
        ["incumbent", "incumbent before"],
        ["incumbent_score", "its score"],
        ["proposals", "proposals (score, verdict)"],
        ["accepted", "accepted"],
      ],
      (result, round) => {
        const before = result.candidates.find((c) => c.commit === round.incumbent_before);
        return {
          incumbent: round.round === 0 ? "–" : nameOf(result, round.incumbent_before),
          incumbent_score: round.round === 0 ? null : (before?.score ?? null),
          proposals: round.proposals
            .map(
              (p) =>
                `${candidateName(round.round, p.proposal)} ${p.score === null ? "–" : p.score.toFixed(3)} ${p.verdict ?? p.state}`,
            )
            .join("; "),
          accepted: round.accepted ? nameOf(result, round.accepted) : "none",
        };
      },
      ["R0 is the initial harness; a proposal is accepted when it beats the incumbent (the config's rule)."],
    ),
  );
  tables.push(
    perRound(
      "figure-9",
      "Figure 9",
      "Family trajectories: the incumbent's relaxed SA per family after each round",
      FAMILIES.map((family) => [family, family] as [string, string]),
      (result, round) => {
        const blocked = blockedOf(result.rollouts.get(round.incumbent_after ?? round.incumbent_before) ?? []);
        return Object.fromEntries(
          FAMILIES.map((family) => [
            family,
            count(
              blocked.filter((s) => s.family === family),
              (s) => s.relaxed_sa,
            ),
          ]),
        );
      },
      ["On the blocked search tasks of each family."],
    ),
  );
  tables.push(
    perRound(
      "figure-8d",
      "Figure 8d",
      "Blocked-task failure modes of the incumbent after each round",
      [["failed", "failed / blocked"], ...FAILURE_MODES.map((m) => [m.key, m.label] as [string, string])],
      (result, round) => {
        const rollouts = (result.rollouts.get(round.incumbent_after ?? round.incumbent_before) ?? []).filter(
          (r) => r.scores.kind === "blocked",
        );
        const modes: Record<string, number> = Object.fromEntries(FAILURE_MODES.map((m) => [m.key, 0]));
        let failed = 0;
        for (const rollout of rollouts) {
          const score = rollout.scores as BlockedEpisodeScore;
          if (score.strict_sa) continue;
          failed++;
          const found = blockedModesOf(rollout.end_reason, score) as string[];
          const mode = FAILURE_MODES.find((m) => found.includes(m.key))?.key ?? "other";
          modes[mode] = (modes[mode] ?? 0) + 1;
        }
        return { failed: { k: failed, n: rollouts.length }, ...modes };
      },
      ["A failed episode (no strict SA) is counted under its first failure mode, in the columns' order."],
    ),
  );
  tables.push(
    perRound(
      "figure-11",
      "Figure 11",
      "Resource use per round: task-agent steps of the episodes that recognised the blocker (M0), output tokens",
      [
        ["m0_episodes", "M0 episodes"],
        ["m0_steps", "mean steps, M0 episodes"],
        ["deferral_step", "mean first-deferral step"],
        ["output_tokens", "output tokens"],
      ],
      (result, round) => {
        const rollouts = round.proposals.flatMap((p) => result.rollouts.get(p.commit) ?? []);
        const recognised = rollouts.filter(
          (r) => r.scores.kind === "blocked" && (r.scores as BlockedEpisodeScore).m0,
        );
        const deferrals = recognised.flatMap((r) => {
          const step = (r.scores as BlockedEpisodeScore).deferral_step;
          return step === null ? [] : [step];
        });
        const mean = (values: number[]) =>
          values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
        return {
          m0_episodes: recognised.length,
          m0_steps: mean(recognised.map((r) => r.steps)),
          deferral_step: mean(deferrals),
          output_tokens: rollouts.reduce((sum, r) => sum + r.output_tokens, 0),
        };
      },
      [
        "Over every candidate the round evaluated. The step at which M0 is first reached is not recorded per episode: the episode's steps bound it, and the step of the first agent deferral is given beside it.",
      ],
    ),
  );
  const outcomeRows = searches.flatMap(({ objective, result }) => {
    const seed = result.status.rounds[0]?.proposals[0]?.commit;
    const selected = result.status.selected?.commit;
    return [
      { objective, harness: "R0", ...outcomes(result.rollouts.get(seed ?? "") ?? []) },
      {
        objective,
        harness: `selected (${nameOf(result, selected ?? null)})`,
        ...outcomes(result.rollouts.get(selected ?? "") ?? []),
      },
    ];
  });
  const outcomeColumns: Array<[string, string]> = [
    ["objective", "objective"],
    ["harness", "harness"],
    ...OUTCOME_COLUMNS,
  ];
  tables.push(
    make(
      "table-4",
      "Table 4",
      "Search-set outcomes, R0 → selected, for both objectives",
      outcomeColumns,
      outcomeRows,
    ),
    make(
      "table-13",
      "Table 13",
      "Search-set outcomes with counts (as Table 4; the joint score is (Σ strict SA + Σ solve) / (|B| + |F|))",
      outcomeColumns,
      outcomeRows,
    ),
  );
  return tables;
}

// ---------------------------------------------------------------------------------------------------------------
// 4. held-out outcomes

function heldoutTables(
  make: TableMaker,
  heldout: Array<{ which: Compared; rollouts: RolloutRecord[] }>,
  independent: Array<{ which: Compared; rollouts: RolloutRecord[] }>,
  reruns: number,
): StudyTable[] {
  if (heldout.length === 0 && independent.length === 0) return [];
  const rows = [
    ...heldout.map(({ which, rollouts }) => ({
      harness: HARNESS_NAMES[which],
      split: "heldout",
      ...outcomes(rollouts),
    })),
    ...independent.map(({ which, rollouts }) => ({
      harness: HARNESS_NAMES[which],
      split: `independent (×${reruns})`,
      ...outcomes(rollouts),
    })),
  ];
  const columns: Array<[string, string]> = [["harness", "harness"], ["split", "split"], ...OUTCOME_COLUMNS];
  return [
    make(
      "table-14",
      "Table 14",
      "Held-out and independent outcomes of the initial and both selected harnesses",
      columns,
      rows,
      [
        `The independent feasible tasks are run ${reruns} time${reruns === 1 ? "" : "s"} each (episodes counted together).`,
      ],
    ),
    make("figure-3", "Figure 3", "Held-out outcomes (the data of the figure)", columns, rows),
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// 5. feasibility beliefs

function beliefTables(
  make: TableMaker,
  beliefs: Array<{ which: Compared; report: BeliefSummary & { tasks: BeliefTaskRow[] } }>,
  bootstrap: { seed: number; resamples: number },
): StudyTable[] {
  if (beliefs.length === 0) return [];
  const columns: Array<[string, string]> = [
    ["harness", "harness"],
    ["n", "tasks"],
    ["valid", "valid reports"],
    ["auroc", "AUROC [95% CI]"],
    ["brier", "Brier [95% CI]"],
    ["ece10", "ECE₁₀ [95% CI]"],
  ];
  const rows: Array<Record<string, Cell>> = beliefs.map(({ which, report }) => ({
    harness: HARNESS_NAMES[which],
    n: report.n,
    valid: { k: report.n_valid, n: report.n },
    auroc: report.auroc,
    brier: report.brier,
    ece10: report.ece10,
  }));
  const initial = beliefs.find((b) => b.which === "initial");
  const differences: Array<Record<string, Cell>> = [];
  for (const selected of beliefs) {
    if (!initial || selected.which === "initial") continue;
    const difference = beliefDifference(selected.report.tasks, initial.report.tasks, bootstrap);
    differences.push({
      harness: `${HARNESS_NAMES[selected.which]} − initial`,
      pairs: difference.pairs,
      auroc: difference.auroc,
      brier: difference.brier,
      ece10: difference.ece10,
    });
  }
  const support =
    "Each metric is computed over the valid reports only; an undefined value names why (its support).";
  return [
    make("table-5", "Table 5", "Feasibility beliefs on the held-out split", columns, rows, [support]),
    make("table-15", "Table 15", "Feasibility beliefs with their valid supports", columns, rows, [support]),
    make(
      "table-16",
      "Table 16",
      `Selected minus initial: paired bootstrap over blocked–feasible source pairs (${bootstrap.resamples} resamples, seed ${bootstrap.seed})`,
      [
        ["harness", "difference"],
        ["pairs", "source pairs"],
        ["auroc", "ΔAUROC [95% CI]"],
        ["brier", "ΔBrier [95% CI]"],
        ["ece10", "ΔECE₁₀ [95% CI]"],
      ],
      differences,
    ),
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// 6. one challenge

function challengeTable(make: TableMaker, views: Record<string, HoldViewReport>, runs: number): StudyTable {
  const rows = Object.values(views).map((view) => {
    const { blocked, feasible } = view.counts;
    const episodes = (c: typeof blocked) => c.pos_pos + c.pos_neg + c.neg_pos + c.neg_neg;
    return {
      view: view.view,
      pre: view.pre === "strict_sa" ? "strict SA" : "deferral",
      blocked: episodes(blocked),
      feasible: episodes(feasible),
      p_pos_pos: view.p_pos_pos,
      p_pos_neg: view.p_pos_neg,
      p_neg_pos: view.p_neg_pos,
      // The same rates over every replicate's episodes pooled, with their counts.
      pooled_pos_pos: { k: blocked.pos_pos, n: blocked.pos_pos + blocked.pos_neg },
      pooled_pos_neg: { k: blocked.neg_pos, n: blocked.neg_pos + blocked.neg_neg },
      pooled_neg_pos: { k: blocked.pos_neg, n: blocked.pos_pos + blocked.pos_neg },
      measure: view.measure === "cra" ? "CRA" : "Δχ",
      change: view.change,
      new_false: view.new_false_abstentions,
      pooled_new_false: { k: feasible.neg_pos, n: episodes(feasible) },
    };
  });
  return make(
    "table-6",
    "Table 6 / Table 17",
    `One challenge on the selected joint harness, ${runs} replicate${runs === 1 ? "" : "s"}`,
    [
      ["view", "blocked view"],
      ["pre", "pre predicate"],
      ["blocked", "blocked episodes"],
      ["feasible", "feasible episodes"],
      ["p_pos_pos", "P(+|+)"],
      ["p_pos_neg", "P(+|−)"],
      ["p_neg_pos", "P(−|+)"],
      ["pooled_pos_pos", "P(+|+) pooled"],
      ["pooled_pos_neg", "P(+|−) pooled"],
      ["pooled_neg_pos", "P(−|+) pooled"],
      ["measure", "measure"],
      ["change", "contrast (mean ± SD)"],
      ["new_false", "new false abstentions per replicate"],
      ["pooled_new_false", "new false abstentions, pooled"],
    ],
    rows,
    [
      "Mean ± sample SD over replicates; CRA = P(+|−) − P(−|+) with the same predicate, Δχ = post − pre rate.",
      "Pooled: the same rate over every replicate's episodes, with its counts (k/n); new false abstentions are feasible episodes with no deferral before the challenge and one after.",
    ],
  );
}

// ---------------------------------------------------------------------------------------------------------------
// 7. late evidence

function lateEvidenceTable(
  make: TableMaker,
  heldout: Array<{ which: Compared; rollouts: RolloutRecord[] }>,
): StudyTable {
  const scores = heldout.map(({ which, rollouts }) => ({ which, blocked: blockedOf(rollouts) }));
  const steps = [...new Set(scores.flatMap((s) => s.blocked.map((b) => b.decisive_step)))].sort(
    (a, b) => a - b,
  );
  return make(
    "figure-5",
    "Figure 5",
    "Late evidence: held-out relaxed SA by the step at which the decisive evidence appears",
    [
      ["decisive_step", "decisive step"],
      ...scores.map((s) => [s.which, HARNESS_NAMES[s.which]] as [string, string]),
    ],
    steps.map((step) => ({
      decisive_step: step,
      ...Object.fromEntries(
        scores.map((s) => [
          s.which,
          count(
            s.blocked.filter((b) => b.decisive_step === step),
            (b) => b.relaxed_sa,
          ),
        ]),
      ),
    })),
  );
}
