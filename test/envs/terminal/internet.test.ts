/**
 * A task's allow_internet is granted only by the user (`eval --allow-internet`, HSEARCH_ALLOW_INTERNET=1): the
 * episode then shares the host's network; without the grant a task that failed for want of it is that task's
 * infrastructure error naming the cause.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { evaluate as evaluateHarness } from "../../../src/api";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import { internetAllowed, networkFailureIn } from "../../../src/envs/terminal/internet";
import { bwrapNamespaces, unshareLaunch } from "../../../src/envs/terminal/sandbox-plan";
import type { SandboxInfo } from "../../../src/envs/terminal/sandbox-types";
import { runCli, runCliJson } from "../../helpers/cli";

const temps: string[] = [];
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const info = (privileged: boolean): SandboxInfo => ({
  mechanism: "bwrap",
  privileged,
  tools: { setpriv: "/s", prlimit: "/p", unshare: "/u", mount: "/m", ip: "/ip", bwrap: "/b" },
  loopback: "up",
  rejected: [],
});

describe("the user's grant of network", () => {
  it("is off unless HSEARCH_ALLOW_INTERNET says 1 (anything else but 0 is bad input)", () => {
    expect(internetAllowed({})).toBe(false);
    expect(internetAllowed({ HSEARCH_ALLOW_INTERNET: "0" })).toBe(false);
    expect(internetAllowed({ HSEARCH_ALLOW_INTERNET: "1" })).toBe(true);
    expect(() => internetAllowed({ HSEARCH_ALLOW_INTERNET: "maybe" })).toThrow("HSEARCH_ALLOW_INTERNET");
  });

  it("shares the host's network: no network namespace and no loopback of its own to bring up", () => {
    expect(bwrapNamespaces(info(true))).toContain("--unshare-net");
    expect(bwrapNamespaces(info(true), true)).not.toContain("--unshare-net");
    expect(bwrapNamespaces(info(false), true)).toEqual(
      expect.arrayContaining(["--unshare-all", "--share-net"]),
    );
    const closed = unshareLaunch(info(true), "/f", "/r", ["true"]).args;
    const open = unshareLaunch(info(true), "/f", "/r", ["true"], "/workspace", true).args;
    expect(closed).toEqual(expect.arrayContaining(["--net", "/ip"]));
    expect(open).not.toContain("--net");
    expect(open).not.toContain("/ip");
  });

  it("finds the signs of an unreachable host in a command's output, not a loopback refusal", () => {
    expect(networkFailureIn("ok\ncurl: (6) Could not resolve host: example.com\n")).toBe(
      "curl: (6) Could not resolve host: example.com",
    );
    expect(
      networkFailureIn("socket.gaierror: [Errno -3] Temporary failure in name resolution"),
    ).not.toBeNull();
    expect(
      networkFailureIn("curl: (7) Failed to connect to 127.0.0.1 port 8080: Connection refused"),
    ).toBeNull();
  });
});

describe("a task that asks for internet", () => {
  it("fails as its own infrastructure error without the grant, and runs with the host's network with it", async () => {
    const dir = temp("hsearch-net-task-");
    const task = join(dir, "needs-network");
    mkdirSync(join(task, "tests"), { recursive: true });
    writeFileSync(join(task, "instruction.md"), "Nothing to do: the tests look for the network.\n");
    writeFileSync(
      join(task, "task.toml"),
      "[environment]\nallow_internet = true\n[verifier]\ntimeout_sec = 30\n",
    );
    // An interface besides the loopback is the host's network; without one, a lookup fails as offline code does.
    writeFileSync(
      join(task, "tests", "test.sh"),
      [
        "#!/bin/bash",
        "if tail -n +3 /proc/net/dev | grep -qv '^ *lo:'; then echo 1 > /logs/verifier/reward.txt; exit 0; fi",
        "python3 -c \"import socket; socket.getaddrinfo('example.com', 80)\"",
        "echo 0 > /logs/verifier/reward.txt",
      ].join("\n"),
    );
    const out = temp("hsearch-net-tasks-");
    const imported = await runCliJson(["tasks", "import-harbor", dir, "--out", out]);
    expect(imported.json, imported.stderr).toMatchObject({ imported: 1, skipped: 0, failed: 0 });
    const evaluate = (extra: string[]) =>
      runCli([
        "eval",
        "--harness",
        "harnesses/bare",
        "--tasks",
        out,
        "--model",
        "sim:default",
        "--json",
        "--max-infra-error-rate",
        "1",
        "--out",
        temp("hsearch-net-eval-"),
        ...extra,
      ]);
    const offline = await evaluate([]);
    expect(offline.code, offline.stderr).toBe(0);
    const report = JSON.parse(offline.stdout);
    expect(report.summary.infra_errors).toEqual({ no_network: 1 });
    expect(report.infra_error_details[0].error).toMatch(
      /allow_internet = true\), which this run does not grant: .*Temporary failure in name resolution.* --allow-internet/,
    );
    const online = await evaluate(["--allow-internet"]);
    expect(online.code, online.stderr).toBe(0);
    expect(JSON.parse(online.stdout).summary).toMatchObject({
      infra_errors: {},
      feasible: { n: 1, solve: 1 },
    });
    expect(process.env.HSEARCH_ALLOW_INTERNET).toBeUndefined();

    // The grant is data, not a process-wide setting: two library evaluations at once, each with its own choice.
    const harness = join(PACKAGE_ROOT, "harnesses", "bare");
    const options = (env: NodeJS.ProcessEnv) => ({
      env,
      maxInfraErrorRate: 1,
      out: join(temp("hsearch-net-lib-"), "e"),
    });
    const [granted, refused] = await Promise.all([
      evaluateHarness(
        harness,
        { tasks: out },
        "sim:default",
        options({ ...process.env, HSEARCH_ALLOW_INTERNET: "1" }),
      ),
      evaluateHarness(
        harness,
        { tasks: out },
        "sim:default",
        options({ ...process.env, HSEARCH_ALLOW_INTERNET: "0" }),
      ),
    ]);
    expect(granted.report.summary).toMatchObject({ infra_errors: {}, feasible: { n: 1, solve: 1 } });
    expect(refused.report.summary.infra_errors).toEqual({ no_network: 1 });
  });
});
