/**
 * Soak and faults: a search with `openai:` models against a local server that fails 20% of first calls — 429 with
 * retry-after, 500, 503, hung connections, truncated JSON, empty choices, malformed tool arguments — and refuses one
 * task's customer outright (400: infrastructure errors that no retry helps), SIGKILLed at 10 seeded points (counts of
 * answered model calls) and resumed each time, against the same search run uninterrupted. Reports whether the
 * selection and the run's content hash match, rollouts lost, infra errors stored in each run, and faults injected.
 * The driver is test/helpers/soak.ts, shared with the small asserted soak of test/search/soak.e2e.test.ts.
 *
 * `--workers`: the same search run as `run --workers` with two `hsearch worker` processes (8 rollouts each, a private
 * redis-server), one of them SIGKILLed at seeded counts of its answered calls and restarted each time, against the
 * uninterrupted single-process run.
 *
 *   npx tsx bench/soak.ts [--kills 10] [--seed 1] [--latency-ms 20] [--call-timeout-s 2] [--workers]
 */
import { parseArgs } from "node:util";
import { SOURCE_CLI } from "../test/helpers/cli";
import { type RunFacts, runSoak } from "../test/helpers/soak";

const { values } = parseArgs({
  options: {
    kills: { type: "string", default: "10" },
    seed: { type: "string", default: "1" },
    "latency-ms": { type: "string", default: "20" },
    "call-timeout-s": { type: "string", default: "2" },
    workers: { type: "boolean", default: false },
  },
});

const result = await runSoak({
  cli: SOURCE_CLI,
  kills: Number(values.kills),
  seed: Number(values.seed),
  latencyMs: Number(values["latency-ms"]),
  faultRate: 0.2,
  callTimeoutSeconds: Number(values["call-timeout-s"]),
  rounds: 3,
  proposalsPerRound: 3,
  concurrency: 16,
  tasks: { perFamily: 4, heldoutPerFamily: 2, independent: 4 },
  ...(values.workers ? { workers: { concurrency: 8, stallSeconds: 5 } } : {}),
});

const faults = (facts: RunFacts) => {
  const injected = Object.entries(facts.faults).filter(([, count]) => count > 0);
  const total = injected.reduce((sum, [, count]) => sum + count, 0);
  return `${total} faults injected (${injected.map(([kind, count]) => `${kind}: ${count}`).join(", ")}), ${facts.refused} calls refused with 400`;
};
const { uninterrupted, killed } = result;
console.log(
  `uninterrupted: ${uninterrupted.seconds.toFixed(1)} s, ${uninterrupted.rollouts.size} rollouts, ${uninterrupted.calls} model calls answered, ${faults(uninterrupted)}`,
);
if (killed.workers)
  console.log(
    `run --workers, one of two workers killed ${killed.kills} times with SIGKILL and restarted (${killed.seconds.toFixed(1)} s): state ${killed.state}, ${killed.rollouts.size} rollouts stored, run by the victim ${killed.workers.victim} and the partner ${killed.workers.partner} (${killed.workers.victim + killed.workers.partner - killed.rollouts.size} run again), ${killed.calls} model calls answered, ${faults(killed)}`,
  );
else
  console.log(
    `killed ${killed.kills} times with SIGKILL (${killed.starts} starts, ${killed.seconds.toFixed(1)} s): state ${killed.state}, ${killed.rollouts.size} rollouts, ${killed.calls} model calls answered, ${faults(killed)}`,
  );
console.log(
  `same selection: ${killed.selected === uninterrupted.selected} (${killed.selected?.slice(0, 12)}), same content hash: ${killed.contentHash === uninterrupted.contentHash}, rollouts lost: ${result.lost}, infra errors stored: ${killed.infraErrors} (uninterrupted ${uninterrupted.infraErrors})`,
);
