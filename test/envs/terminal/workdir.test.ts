/**
 * A task's own work directory (a Harbor WORKDIR outside /app): where the episode's sandbox shows the workspace and
 * starts every command, under each mechanism, and which paths it refuses.
 */
import { describe, expect, it } from "vitest";
import type { SandboxInfo } from "../../../src/envs/terminal/sandbox-types";
import {
  bwrapSessionInvocation,
  containerRunInvocation,
  episodeRootLayout,
  type SessionPlanInput,
  sessionFstab,
  unshareSessionInvocation,
  writableRootDirs,
} from "../../../src/envs/terminal/session-plan";
import { checkWorkdir } from "../../../src/envs/terminal/workdir";
import { workspaceRelativePath } from "../../../src/envs/terminal/workspace-path";

const tools = {
  setpriv: "/usr/bin/setpriv",
  prlimit: "/usr/bin/prlimit",
  timeout: "/usr/bin/timeout",
  bwrap: "/usr/bin/bwrap",
  unshare: "/usr/bin/unshare",
  mount: "/usr/bin/mount",
  ip: "/usr/sbin/ip",
};

const paths = {
  root: "/e/root",
  workspace: "/e/workspace",
  tmp: "/e/tmp",
  tests: "/e/verifier/tests",
  logs: "/e/verifier/logs",
  control: "/e/control",
};

function input(mechanism: SandboxInfo["mechanism"], workdir?: string): SessionPlanInput {
  return {
    info: { mechanism, privileged: true, tools, loopback: "up", rejected: [] },
    hostEntries: [{ name: "usr", kind: "dir" }],
    paths,
    readOnlyWorkspace: false,
    user: { uid: 2000123, gid: 2000123 },
    hasVarLib: false,
    fstabPath: "/e/fstab",
    ...(workdir ? { workdir } : {}),
  };
}

/** bwrap's `--bind SRC DEST` pairs. */
function binds(args: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  args.forEach((arg, index) => {
    if (arg === "--bind") out.push([args[index + 1] as string, args[index + 2] as string]);
  });
  return out;
}

describe("a task's own work directory in the episode sandbox", () => {
  it("bwrap shows the workspace at /workspace and the work directory (not /app) and starts there", () => {
    const { args } = bwrapSessionInvocation(input("bwrap", "/home/user"));
    expect(binds(args).filter(([source]) => source === paths.workspace)).toEqual([
      [paths.workspace, "/workspace"],
      [paths.workspace, "/home/user"],
    ]);
    expect(args[args.indexOf("--chdir") + 1]).toBe("/home/user");
    const script = args[args.indexOf("-c") + 1];
    expect(script).toContain("cd /home/user || exit 125");
    // Without one, as before: /workspace and /app, commands in /workspace.
    const plain = bwrapSessionInvocation(input("bwrap")).args;
    expect(
      binds(plain)
        .filter(([source]) => source === paths.workspace)
        .map(([, to]) => to),
    ).toEqual(["/workspace", "/app"]);
    expect(plain[plain.indexOf("--chdir") + 1]).toBe("/workspace");
  });

  it("unshare mounts it from the fstab into a mount point the episode root holds, and enters it", () => {
    const plan = input("unshare", "/root/project");
    expect(sessionFstab(plan)).toContain("/e/workspace /e/root/root/project none bind,nosuid,nodev 0 0");
    expect(sessionFstab(plan)).not.toContain("/e/root/app ");
    expect(unshareSessionInvocation(plan).args).toContain("--wd=/root/project");
    const layout = episodeRootLayout(plan.hostEntries, false, "/data/work").map((entry) => entry.name);
    expect(layout).toEqual(expect.arrayContaining(["app", "data", "data/work"]));
    // /app is then an ordinary directory of the episode (a Dockerfile may copy there), and so is what lies above.
    expect(writableRootDirs("/data/work")).toEqual(expect.arrayContaining(["app", "data"]));
    expect(writableRootDirs("/data/work")).not.toContain("data/work");
  });

  it("a container binds it and starts in it", () => {
    const { args } = containerRunInvocation({
      engine: "docker",
      binary: "/usr/bin/docker",
      image: "hsearch-base:x",
      name: "hsearch-1",
      tools: { timeout: "/usr/bin/timeout", setpriv: "/usr/bin/setpriv" },
      hostEntries: [],
      hasVarLib: false,
      paths,
      readOnlyWorkspace: false,
      maxProcs: 10,
      network: false,
      workdir: "/home/user",
    });
    expect(args).toContain(`${paths.workspace}:/home/user`);
    expect(args).not.toContain(`${paths.workspace}:/app`);
    expect(args[args.indexOf("--workdir") + 1]).toBe("/home/user");
  });

  it("refuses the host's system directories, the sandbox's own mounts and paths that are not normalised", () => {
    expect(checkWorkdir("/home/user")).toBe("/home/user");
    for (const [path, why] of [
      ["/usr/src/app", "in /usr"],
      ["/opt/project", "in /opt"],
      ["/tmp/build", "in /tmp"],
      ["/tests", "in /tests"],
      ["/app", "in /app"],
      ["/", "absolute path below /"],
      ["home/user", "absolute path below /"],
      ["/home/../etc", "normalised"],
      ["/home/user/", "normalised"],
    ] as const)
      expect(() => checkWorkdir(path), path).toThrow(why);
  });

  it("the file tools take paths under the work directory as the workspace's", () => {
    expect(workspaceRelativePath("/home/user/notes/a.txt", "path", "/home/user")).toBe("notes/a.txt");
    expect(workspaceRelativePath("/workspace/a.txt", "path", "/home/user")).toBe("a.txt");
    expect(() => workspaceRelativePath("/app/a.txt", "path", "/home/user")).toThrow("outside the workspace");
  });
});
