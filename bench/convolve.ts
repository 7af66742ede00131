// Harness search against CONVOLVE, side by side: per suite and seed, two searches from the same shipped config
// (seed harness, tasks, rounds × proposals, acceptance, task model) that differ only in the proposer —
// `meta_model: operators` (the harness search's offline operators) and `meta_model: convolve` (reflector and curator;
// offline with `sim`, or on `--reflector`/`--curator` models) — and each selection's held-out AbsRec@1, AbsRec@K,
// SPL, strict SA, solve and false abstention, with the search rollouts each spent (mean ± SD over seeds).
// Transfer (`--transfer-model SPEC`, any model spec the CLI takes): each selection — CONVOLVE's curated playbook and
// harness search's harness — evaluated on held-out with another task model, beside the seed harness.
// `--task-model SPEC` runs both searches on another task model than the shipped configs' sim:default.
// `nice npx tsx bench/convolve.ts [--seeds N] [--suites retail,terminal] [--rounds R] [--k 3] [--task-model …]
// [--reflector openai:… --curator openai:…] [--transfer-model openai:…|anthropic:…|sim:./profile.yaml|oracle]`.
// With sim:default every figure is the simulator's, not a model's.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { stringify } from "yaml";
import { evaluate, exportHarness, startRun } from "../src/api";
import { createModel } from "../src/api/create-model";
import { PACKAGE_ROOT } from "../src/core/paths";
import type { EvalSummary } from "../src/scoring";
import type { SearchConfig } from "../src/search/config/config-schema";
import { loadSearchConfig } from "../src/search/config/load-config";
import { openRunStore } from "../src/store";
import { runStatus } from "../src/store/run-status";

const arg = (name: string, fallback: string): string => {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
};
const SEEDS = Number(arg("seeds", "3"));
const SUITES = arg("suites", "retail,terminal").split(",");
const ROUNDS = arg("rounds", "");
const K = arg("k", "3");
const REFLECTOR = arg("reflector", "");
const CURATOR = arg("curator", "");
const TRANSFER = arg("transfer-model", "");
const TASK_MODEL = arg("task-model", "");
// A bad spec (unknown provider or profile, a missing key) stops the bench before any search is spent on it.
for (const [flag, spec] of [
  ["task-model", TASK_MODEL],
  ["transfer-model", TRANSFER],
] as const)
  if (spec)
    try {
      createModel(spec);
    } catch (error) {
      process.stderr.write(`bench/convolve: --${flag} ${spec}: ${(error as Error).message}\n`);
      process.exit(2);
    }
const PROPOSERS = ["operators", "convolve"] as const;
type ProposerName = (typeof PROPOSERS)[number];

interface Figures {
  absrec1: number;
  absrecK: number;
  spl: number;
  strictSA: number;
  solve: number;
  falseAbst: number;
}
interface Outcome {
  heldout: Figures;
  rollouts: number;
  transfer?: Figures;
  seedTransfer?: Figures;
}

function figures(summary: Pick<EvalSummary, "blocked" | "feasible"> | undefined): Figures {
  const b = summary?.blocked;
  const f = summary?.feasible;
  return {
    absrec1: b?.absrec["1"] ?? Number.NaN,
    absrecK: b?.absrec[K] ?? Number.NaN,
    spl: b?.spl ?? Number.NaN,
    strictSA: b?.strict_sa ?? Number.NaN,
    solve: f?.solve ?? Number.NaN,
    falseAbst: f?.false_abstention ?? Number.NaN,
  };
}

let evaluations = 0;
async function transferOf(harness: string, config: SearchConfig, work: string): Promise<Figures> {
  const outcome = await evaluate(
    harness,
    config.tasks ? { split: "heldout", tasks: config.tasks } : { split: "heldout", suite: config.suites[0] },
    { agent: TRANSFER, judge: config.judge, customer: config.customer },
    {
      seed: config.seed,
      concurrency: config.concurrency,
      out: join(work, `eval-${++evaluations}`),
    },
  );
  return figures(outcome.report.summary);
}

async function search(suite: string, proposer: ProposerName, seed: number): Promise<Outcome> {
  const work = mkdtempSync(join(tmpdir(), "hsearch-convolve-bench-"));
  try {
    const shipped = join(PACKAGE_ROOT, "search-configs", `${suite}-joint.yaml`);
    const config: SearchConfig = { ...loadSearchConfig(shipped), seed, meta_model: proposer };
    config.seed_harness = resolve(PACKAGE_ROOT, config.seed_harness);
    if (config.tasks) config.tasks = resolve(PACKAGE_ROOT, config.tasks);
    if (ROUNDS) config.rounds = Number(ROUNDS);
    if (TASK_MODEL) config.task_model = TASK_MODEL;
    if (proposer === "convolve" && (REFLECTOR || CURATOR))
      config.models = {
        ...config.models,
        ...(REFLECTOR ? { reflector: { spec: REFLECTOR } } : {}),
        ...(CURATOR ? { curator: { spec: CURATOR } } : {}),
      };
    const file = join(work, "search.yaml");
    writeFileSync(file, stringify(config));
    const runDir = join(work, "run");
    await startRun(file, { cwd: PACKAGE_ROOT, out: runDir }).result;
    const store = openRunStore(runDir, { readonly: true });
    let outcome: Outcome;
    let selected: string;
    try {
      const status = runStatus(store);
      const heldout = (status.heldout.selected as { heldout?: EvalSummary } | undefined)?.heldout;
      selected = store.listRounds().at(-1)?.incumbent_after ?? "";
      outcome = {
        heldout: figures(heldout),
        rollouts: store.countRollouts("search") - store.countCachedRollouts("search"),
      };
    } finally {
      store.close();
    }
    if (TRANSFER) {
      const dir = join(work, "selected");
      await exportHarness(runDir, selected, dir);
      outcome.transfer = await transferOf(dir, config, work);
      outcome.seedTransfer = await transferOf(config.seed_harness, config, work);
    }
    return outcome;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const meanSd = (xs: readonly number[], digits = 3): string => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, xs.length - 1));
  return `${mean.toFixed(digits)} ± ${sd.toFixed(digits)}`;
};
const row = (label: string, list: readonly Figures[], extra?: string) =>
  `| ${label} | ${(["absrec1", "absrecK", "spl", "strictSA", "solve", "falseAbst"] as const)
    .map((key) => meanSd(list.map((f) => f[key])))
    .join(" | ")} |${extra === undefined ? "" : ` ${extra} |`}`;

const FIGURE_HEADS = `AbsRec@1 | AbsRec@${K} | SPL | strict SA | solve | false abst.`;
const lines = [
  `| suite · proposer | ${FIGURE_HEADS} | search rollouts |`,
  "|---|---|---|---|---|---|---|---|",
];
const transfers: string[] = [];
for (const suite of SUITES)
  for (const proposer of PROPOSERS) {
    const outcomes: Outcome[] = [];
    for (let seed = 1; seed <= SEEDS; seed++) {
      const outcome = await search(suite, proposer, seed);
      process.stderr.write(`${suite} ${proposer} seed ${seed}: ${JSON.stringify(outcome)}\n`);
      outcomes.push(outcome);
    }
    lines.push(
      row(
        `${suite} · ${proposer}`,
        outcomes.map((o) => o.heldout),
        meanSd(
          outcomes.map((o) => o.rollouts),
          0,
        ),
      ),
    );
    if (TRANSFER) {
      transfers.push(
        row(
          `${suite} · ${proposer} selection`,
          outcomes.map((o) => o.transfer as Figures),
        ),
      );
      if (proposer === "convolve")
        transfers.push(
          row(
            `${suite} · seed harness`,
            outcomes.map((o) => o.seedTransfer as Figures),
          ),
        );
    }
  }
console.log(`held-out, ${SEEDS} seeds per row (mean ± SD):\n${lines.join("\n")}`);
if (TRANSFER)
  console.log(
    `\ntransfer: the selections evaluated on held-out with ${TRANSFER}:\n| suite · harness | ${FIGURE_HEADS} |\n|---|---|---|---|---|---|---|\n${transfers.join("\n")}`,
  );
