import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { type HsearchError, isHsearchError } from "../../../src/core/errors";
import {
  availableMechanisms,
  chooseMechanism,
  detectSandbox,
} from "../../../src/envs/terminal/sandbox-detect";
import type { SandboxInfo, SandboxMechanism } from "../../../src/envs/terminal/sandbox-types";

const works = (mechanism: SandboxMechanism): SandboxInfo => ({
  mechanism,
  privileged: true,
  tools: { setpriv: "/usr/bin/setpriv", prlimit: "/usr/bin/prlimit" },
  loopback: "up",
  rejected: [],
});

describe("choosing a sandbox mechanism", () => {
  it("takes the first mechanism whose probe works and records why the others were passed over", async () => {
    const chosen = await chooseMechanism(["bwrap", "unshare"], async (mechanism) =>
      mechanism === "bwrap" ? "not installed: bwrap" : works(mechanism),
    );
    expect(chosen.mechanism).toBe("unshare");
    expect(chosen.rejected).toEqual([{ mechanism: "bwrap", reason: "not installed: bwrap" }]);
  });

  it("fails with a sandbox error naming every failure when none works", async () => {
    let caught: unknown;
    try {
      await chooseMechanism(["bwrap", "unshare"], async (mechanism) =>
        mechanism === "bwrap" ? "not installed: bwrap" : "unshare: unshare failed: Operation not permitted",
      );
    } catch (error) {
      caught = error;
    }
    expect(isHsearchError(caught, "sandbox")).toBe(true);
    const message = (caught as HsearchError).message;
    expect(message).toContain("bwrap: not installed: bwrap");
    expect(message).toContain("unshare: unshare: unshare failed: Operation not permitted");
    expect(message).toContain("never run unsandboxed");
  });

  it("refuses an unknown HSEARCH_SANDBOX", async () => {
    const saved = process.env.HSEARCH_SANDBOX;
    process.env.HSEARCH_SANDBOX = "docker";
    try {
      await expect(detectSandbox()).rejects.toSatisfy((error) => isHsearchError(error, "bad_input"));
      await expect(detectSandbox()).rejects.toThrow(/HSEARCH_SANDBOX must be one of bwrap, unshare/);
    } finally {
      if (saved === undefined) delete process.env.HSEARCH_SANDBOX;
      else process.env.HSEARCH_SANDBOX = saved;
    }
  });

  it("runs every mechanism whose program is installed, so the per-mechanism tests never drop one silently", async () => {
    const installed = (program: string) => {
      try {
        execFileSync("sh", ["-c", `command -v ${program}`], { stdio: "ignore" });
        return true;
      } catch {
        return false;
      }
    };
    const working = (await availableMechanisms()).map((info) => info.mechanism);
    // bubblewrap is installed by .ci/run; where it is, the persistent sandbox is tested with it and with unshare.
    expect(working.includes("bwrap")).toBe(installed("bwrap"));
    expect(working.includes("unshare")).toBe(installed("unshare"));
  });
});
