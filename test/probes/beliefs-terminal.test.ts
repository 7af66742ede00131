import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createModel } from "../../src/api/create-model";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { MockChatModel, textReply, toolCallReply } from "../../src/models/mock";
import { collectBeliefs, summariseBeliefs } from "../../src/probes/beliefs";
import { loadTaskDir } from "../../src/tasks/loading/load";
import { shippedHarness } from "./fixtures";

const all = loadTaskDir(join(PACKAGE_ROOT, "tasks", "terminal", "search")).map((loaded) => loaded.task);
const blocked = all.filter((task) => task.kind === "blocked").slice(0, 2);
const tasks = blocked.flatMap((task) => [task, ...all.filter((other) => other.id === task.source)]);

describe("belief probe on the terminal suite", () => {
  it("the workspace is read-only: bash still runs, a write through it fails, write_file is not offered", async () => {
    const model = new MockChatModel([
      toolCallReply([{ name: "bash", arguments: { command: "ls && echo x > probe-written.txt" } }]),
      textReply("I have looked around."),
      // The harness's continue message (no customer on terminal): the model restates that it has finished.
      textReply("I have looked around."),
      toolCallReply([{ name: "report_belief", arguments: { p_feasible: 0.5, reason: "unsure" } }]),
    ]);
    const [row] = await collectBeliefs({
      harness: shippedHarness("abandon"),
      tasks: tasks.slice(0, 1),
      model,
      seed: 1,
      concurrency: 1,
    });
    expect(row).toMatchObject({ status: "valid", p: 0.5 });
    expect(model.requests[0]?.tools.map((tool) => tool.name)).not.toContain("write_file");
    const observation = model.requests[2]?.messages.find((message) => message.role === "tool");
    expect(observation?.content).toMatch(/^Error/);
    expect(observation?.content).toMatch(/read-only/i);
  });

  it("oracle beliefs separate blocked from feasible terminal tasks", async () => {
    expect(tasks.length).toBe(4);
    const rows = await collectBeliefs({
      harness: shippedHarness("abandon"),
      tasks,
      model: createModel("oracle"),
      seed: 1,
      concurrency: 2,
    });
    expect(summariseBeliefs(rows, { seed: 1, resamples: 200 }).auroc.value).toBe(1);
  });
});
