/**
 * Features of the published Terminal-Bench 2 tasks that the importer once got wrong, each reproduced by a fixture of
 * our own (test/fixtures/harbor-published): files a Dockerfile copies outside /app, a solution whose heredoc holds a
 * `service … {` definition and that clones a local git bundle, and a task directory that lost a large file.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import type { Task, TerminalEnvSpec, TerminalReference } from "../../../src/domain/task";
import { createTaskEnvironment, verifyTask } from "../../../src/envs/suite-env";
import {
  type HarborImport,
  type HostPackages,
  importHarbor,
} from "../../../src/tasks/importers/harbor/import-harbor";
import { runCli, runCliJson } from "../../helpers/cli";

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "harbor-published");

/** Every package is shipped and installed: only the task directories decide. */
const everyPackage: HostPackages = {
  installed: async (names) => new Set(names),
  available: async (names) => new Set(names),
};

async function rewardAfter(task: Task, script?: string): Promise<number> {
  const env = await createTaskEnvironment(task);
  try {
    if (script !== undefined) {
      const result = await env.call("bash", { command: script }, { step: 1, author: "agent" });
      expect(result.ok, result.output).toBe(true);
    }
    return await verifyTask(task, env, { agentMessages: [], completed: true });
  } finally {
    await env.close();
  }
}

describe("published Terminal-Bench 2 features", () => {
  let imported: HarborImport;
  const byId = (id: string) => imported.tasks.find((task) => task.id === id) as Task;
  beforeAll(async () => {
    imported = await importHarbor(FIXTURES, "search", { host: everyPackage });
  });

  it("reports a task directory that lost a file it needs as incomplete, not as malformed", () => {
    expect(imported.failed).toEqual([]);
    expect(imported.skipped).toEqual([
      {
        dir: join(FIXTURES, "lost-tarball"),
        category: "incomplete",
        reason:
          "the task directory is incomplete: environment/vendor/lib-release.tar.gz.sha256 names environment/vendor/lib-release.tar.gz, which is not there",
      },
    ]);
    expect(imported.tasks.map((task) => task.id).sort()).toEqual([
      "harbor-bundle-merge",
      "harbor-data-outside",
    ]);
  });

  it("reports the same directory as incomplete on the Docker path, and a COPY whose source is gone too", async () => {
    const docker = await importHarbor(FIXTURES, "search", { host: everyPackage, sandbox: "docker" });
    expect(docker.skipped).toEqual([
      {
        dir: join(FIXTURES, "lost-tarball"),
        category: "incomplete",
        reason:
          "the task directory is incomplete: environment/vendor/lib-release.tar.gz.sha256 names environment/vendor/lib-release.tar.gz, which is not there",
      },
    ]);
    // As pytorch-model-recovery's snapshot lost the weights.pt its Dockerfile copies.
    const dir = mkdtempSync(join(tmpdir(), "hsearch-lost-copy-"));
    try {
      cpSync(join(FIXTURES, "data-outside"), join(dir, "data-outside"), { recursive: true });
      const dockerfile = join(dir, "data-outside", "environment", "Dockerfile");
      writeFileSync(dockerfile, `${readFileSync(dockerfile, "utf8")}COPY weights.pt /app/weights.pt\n`);
      const lost = await importHarbor(dir, "search", { host: everyPackage, sandbox: "docker" });
      expect(lost.tasks).toEqual([]);
      expect(lost.skipped).toEqual([
        {
          dir: join(dir, "data-outside"),
          category: "incomplete",
          reason: expect.stringMatching(
            /^the task directory is incomplete: environment\/weights\.pt, which its Dockerfile copies \(line \d+\), is not there$/,
          ),
        },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("places files copied outside /app with the setup, in order with the RUN steps that use them", async () => {
    const task = byId("harbor-data-outside");
    const env = task.env as TerminalEnvSpec;
    expect(Object.keys(env.files ?? {})).toEqual([]);
    const setup = env.setup ?? "";
    expect(setup.indexOf("/data/readings.csv'")).toBeLessThan(setup.indexOf("test -s /data/readings.csv"));
    expect(setup.indexOf("test -s /data/readings.csv")).toBeLessThan(setup.indexOf("/protected/secret.key'"));
    expect(setup).toContain("cat > '/tmp/rounding.txt'");
    expect(await rewardAfter(task, (task.reference as TerminalReference).solution)).toBe(1);
    expect(await rewardAfter(task)).toBe(0);
  });

  it("takes neither a heredoc's `service` nor a local bundle's clone nor printed text for a need", async () => {
    const task = byId("harbor-bundle-merge");
    expect((task.env as TerminalEnvSpec).requires).toMatchObject({ network: [], root: [] });
    expect(await rewardAfter(task, (task.reference as TerminalReference).solution)).toBe(1);
    expect(await rewardAfter(task)).toBe(0);
  });

  it("prints one JSON record per task directory with --json, and exits 2 when every directory failed", async () => {
    const out = mkdtempSync(join(tmpdir(), "hsearch-harbor-json-"));
    try {
      const json = await runCli(["tasks", "import-harbor", FIXTURES, "--out", out, "--json"]);
      expect(json.code).toBe(0);
      const report = JSON.parse(json.stdout);
      expect(report).toMatchObject({
        imported: 2,
        skipped: 1,
        skipped_by_reason: { incomplete: 1 },
        failed: 0,
      });
      expect(report.tasks.map((task: { dir: string; status: string }) => [task.dir, task.status])).toEqual([
        ["bundle-merge", "imported"],
        ["data-outside", "imported"],
        ["lost-tarball", "skipped"],
      ]);
      const malformed = join(PACKAGE_ROOT, "test", "fixtures", "harbor", "malformed-toml");
      const failed = await runCliJson(["tasks", "import-harbor", malformed, "--out", out]);
      expect(failed.code).toBe(2);
      expect(failed.stderr).toContain("every task directory failed to import");
      expect(failed.json).toMatchObject({ imported: 0, skipped: 0, failed: 1 });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
