/** The held-out table of `hsearch status`: its columns are the metric catalogue's entries marked for it. */
import { describe, expect, it } from "vitest";
import { renderStatus } from "../../src/cli/text/status-text";
import { BUILTIN_METRICS, metricLabel } from "../../src/scoring/metrics";
import type { RunStatus } from "../../src/store/run-status";

const usage = {
  calls: 0,
  cached_calls: 0,
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  usd: 0,
};

function statusWithHeldOut(): RunStatus {
  return {
    run: "r",
    state: "finished",
    objective: "joint",
    seed: 1,
    error: null,
    rounds: [],
    incumbent: null,
    selected: { commit: "a".repeat(40), score: 0.5 },
    heldout: {
      selected: {
        heldout: {
          n_scored: 4,
          n_total: 4,
          objective: 0.5,
          blocked: { n: 2, strict_sa: 0.5, absrec1: 0.5, absrec: { "1": 0.5 } },
          feasible: { n: 2, solve: 0.5, false_abstention: 0 },
        },
      },
    },
    usage: { rollouts: 4, cached_rollouts: 0, ...usage, by_role: {} },
  } as unknown as RunStatus;
}

describe("status's held-out table", () => {
  it("has a column for each catalogue entry marked heldOut, in catalogue order, after the objective", () => {
    const marked = BUILTIN_METRICS.filter((metric) => metric.heldOut).map((metric) => metric.name);
    expect(marked.length).toBeGreaterThan(0);
    const text = renderStatus(statusWithHeldOut());
    const header = text.split("\n").find((line) => line.startsWith("harness") && line.includes("objective"));
    expect(header, text).toBeDefined();
    const columns = (header as string).split(/\s{2,}/).map((cell) => cell.trim());
    expect(columns.slice(0, 3)).toEqual(["harness", "split", "objective"]);
    expect(columns.slice(3)).toEqual(marked.map((name) => metricLabel(name, "short")));
  });
});
