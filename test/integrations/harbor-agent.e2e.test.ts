/**
 * The Harbor installed agent (integrations/harbor) installed and run in a container the way Harbor's documentation
 * says it runs one: the offline bundle (pack-bundle.mjs) and the harness uploaded, install.sh run in a container
 * with no network, then the agent's run command with the instruction, and the context read back from the
 * trajectory in /logs/agent. Harbor itself is not installed here: a stand-in of its documented interface
 * (test/fixtures/harbor-installed-agent) imports and drives the agent class.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { atifProblems } from "../helpers/atif-schema";
import { compiledPackage } from "../helpers/compiled-package";
import { ensureFixtureBaseImage } from "../helpers/debian-fixture-image";
import { dockerDaemon } from "../helpers/docker-daemon";

const INTEGRATION = join(PACKAGE_ROOT, "integrations", "harbor");
const STAND_IN = join(PACKAGE_ROOT, "test", "fixtures", "harbor-installed-agent");
let work: string;
let bundle: string;
let container = "";

beforeAll(async () => {
  dockerDaemon();
  work = mkdtempSync(join(tmpdir(), "hsearch-harbor-agent-"));
  bundle = join(work, "hsearch-bundle.tgz");
  const compiled = await compiledPackage();
  try {
    execFileSync(
      process.execPath,
      [join(INTEGRATION, "pack-bundle.mjs"), "--out", bundle, "--dist", compiled.dir],
      {
        stdio: "pipe",
      },
    );
  } finally {
    compiled.remove();
  }
}, 900_000);

afterAll(() => {
  if (container) execFileSync("docker", ["rm", "-f", container], { stdio: "ignore" });
});

describe("the Harbor installed agent", () => {
  it("installs offline in a task container and runs hsearch agent there, its ATIF trajectory in /logs/agent", () => {
    const image = ensureFixtureBaseImage();
    const logs = join(work, "logs");
    execFileSync("mkdir", ["-p", logs]);
    container = execFileSync(
      "docker",
      ["run", "-d", "--network", "none", "-v", `${logs}:/logs/agent`, image, "sleep", "900"],
      { encoding: "utf8" },
    ).trim();
    execFileSync("docker", ["exec", container, "bash", "-c", "mkdir -p /app && echo 41 > /app/n.txt"]);
    // The image has no Node: the bundle's is used. Asked of a container of its own, since `docker exec` on a daemon
    // inside a chroot can see the host's files.
    expect(() =>
      execFileSync("docker", ["run", "--rm", "--network", "none", image, "bash", "-c", "command -v node"], {
        stdio: "pipe",
      }),
    ).toThrow();
    const out = execFileSync(
      "python3",
      [
        join(STAND_IN, "run_trial.py"),
        "hsearch_agent:HsearchAgent",
        container,
        logs,
        "sim/default",
        "Add one to the number in n.txt.",
        `harness_dir=${join(PACKAGE_ROOT, "harnesses", "bare")}`,
        `bundle=${bundle}`,
        "network=false",
      ],
      {
        encoding: "utf8",
        env: { ...process.env, PYTHONPATH: `${STAND_IN}:${INTEGRATION}` },
        timeout: 600_000,
      },
    );
    const trial = JSON.parse(out.trim().split("\n").pop() ?? "{}");
    expect(trial).toMatchObject({ name: "hsearch", supports_atif: true });
    expect(readFileSync(join(logs, "setup", "return-code.txt"), "utf8")).toBe("0");
    expect(readFileSync(join(logs, "command-0", "return-code.txt"), "utf8")).toBe("0");
    expect(readFileSync(join(logs, "hsearch-exit-code"), "utf8").trim()).toBe("0");
    const atif = JSON.parse(readFileSync(join(logs, "trajectory.json"), "utf8"));
    expect(atifProblems(atif)).toEqual([]);
    expect(atif.agent.model_name).toBe("sim:default");
    expect(atif.steps[1]).toMatchObject({ source: "user", message: "Add one to the number in n.txt." });
    expect(trial.context).toMatchObject({
      n_input_tokens: atif.final_metrics.total_prompt_tokens,
      n_output_tokens: atif.final_metrics.total_completion_tokens,
      metadata: { hsearch_status: "done", hsearch_exit_code: 0 },
    });
    expect(readFileSync(join(logs, "hsearch-trajectory.json"), "utf8")).toContain("Add one to the number");
  }, 900_000);
});
