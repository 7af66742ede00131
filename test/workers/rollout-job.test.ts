import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { HARNESS_LIMITS, loadHarness } from "../../src/harness/load";
import { loadTaskDir } from "../../src/tasks/loading/load";
import {
  hsearchVersion,
  JOB_FORMAT,
  parseJobData,
  type RolloutJobData,
  rolloutJobId,
} from "../../src/workers/rollout-job";

const harness = loadHarness(join(PACKAGE_ROOT, "harnesses", "bare"));
const task = loadTaskDir(join(PACKAGE_ROOT, "tasks", "retail"))[0]?.task;

function job(overrides: Partial<RolloutJobData> = {}): RolloutJobData {
  if (!task) throw new Error("no retail task shipped");
  return {
    format: JOB_FORMAT,
    hsearch: hsearchVersion(),
    run: "20261201-1000-demo-ab12",
    harness: { hash: harness.hash, files: harness.files, limits: HARNESS_LIMITS },
    task,
    seed: 17,
    repeat: 0,
    models: { agent: "sim:default", customer: "auto", settings: {} },
    ...overrides,
  };
}

describe("rollout jobs", () => {
  it("a worker reads back what the coordinator sends, through JSON", () => {
    const data = job();
    expect(parseJobData(JSON.parse(JSON.stringify(data)))).toEqual(data);
  });

  it("a worker refuses a job of another format or hsearch version, or one that does not fit, saying why", () => {
    expect(() => parseJobData({ ...job(), format: JOB_FORMAT + 1 })).toThrow(
      `job format ${JOB_FORMAT + 1}; this worker reads format ${JOB_FORMAT}`,
    );
    expect(() => parseJobData({ ...job(), hsearch: "0.0.1-other" })).toThrow(
      `the coordinator runs hsearch 0.0.1-other, this worker ${hsearchVersion()}`,
    );
    expect(() => parseJobData({ ...job(), seed: "17" })).toThrow(/malformed rollout job: seed: /);
    expect(() => parseJobData({ ...job(), task: { ...job().task, split: "secret" } })).toThrow(
      /malformed rollout job: task\.split: /,
    );
    expect(() => parseJobData({ ...job(), openai_api_key: "sk-x" })).toThrow(/malformed rollout job/);
  });

  it("the job id is the run plus a hash of the rollout's data: stable, distinct per rollout, no ':' (BullMQ)", () => {
    expect(rolloutJobId(job())).toBe(rolloutJobId(job()));
    expect(rolloutJobId(job())).toMatch(/^20261201-1000-demo-ab12\.[0-9a-f]{32}$/);
    expect(rolloutJobId(job({ seed: 18 }))).not.toBe(rolloutJobId(job()));
    expect(rolloutJobId(job({ repeat: 1 }))).not.toBe(rolloutJobId(job()));
    expect(rolloutJobId(job({ run: "other" }))).not.toBe(rolloutJobId(job()));
    expect(rolloutJobId(job({ run: "a:b/c" }))).toMatch(/^a_b_c\./);
  });
});
