import { describe, expect, it } from "vitest";
import {
  BASE_ENV,
  bwrapInvocation,
  commandArgv,
  fstabEscape,
  type PlanInput,
  resolveLimits,
  sandboxEnv,
  UNSHARE_SETUP_SCRIPT,
  unshareFstab,
  unshareInvocation,
} from "../../../src/envs/terminal/sandbox-plan";
import type { SandboxInfo } from "../../../src/envs/terminal/sandbox-types";

const tools = {
  setpriv: "/usr/bin/setpriv",
  prlimit: "/usr/bin/prlimit",
  bwrap: "/usr/bin/bwrap",
  unshare: "/usr/bin/unshare",
  mount: "/usr/bin/mount",
  ip: "/usr/sbin/ip",
};

function input(
  mechanism: SandboxInfo["mechanism"],
  privileged: boolean,
  extra: Partial<PlanInput> = {},
): PlanInput {
  return {
    info: { mechanism, privileged, tools, loopback: "up", rejected: [] },
    hostEntries: [
      { name: "usr", kind: "dir" },
      { name: "etc", kind: "dir" },
      { name: "bin", kind: "symlink", target: "usr/bin" },
    ],
    workspace: "/tmp/my ws",
    readOnlyWorkspace: false,
    user: privileged ? { uid: 2000123, gid: 2000123 } : undefined,
    limits: resolveLimits({ timeoutMs: 5_500, maxProcs: 32 }),
    argv: commandArgv("echo hi"),
    ...extra,
  };
}

/** The argv after the last `--` that precedes setpriv's own arguments. */
function setprivFlags(args: string[]): string[] {
  const at = args.lastIndexOf("/usr/bin/setpriv");
  return args.slice(at + 1, args.indexOf("--", at));
}

describe("sandbox plans", () => {
  it("resolves limits from the wall time", () => {
    expect(resolveLimits({ timeoutMs: 5_500 })).toEqual({
      timeoutMs: 5_500,
      cpuSeconds: 7,
      memoryMb: 4096,
      maxProcs: 256,
      maxFileMb: 1024,
    });
  });

  it("drops to the sandbox uid with no capabilities and no_new_privs when privileged", () => {
    for (const plan of [bwrapInvocation(input("bwrap", true)), unshareInvocation(unshareInput(true))]) {
      expect(setprivFlags(plan.args)).toEqual([
        "--reuid=2000123",
        "--regid=2000123",
        "--clear-groups",
        "--no-new-privs",
        "--inh-caps=-all",
        "--bounding-set=-all",
      ]);
      expect(plan.args).toContain("--nproc=32");
      expect(plan.args).toContain("--cpu=7");
      expect(plan.args.slice(-3)).toEqual(["/bin/bash", "-c", "echo hi"]);
    }
  });

  it("keeps the caller's identity in a user namespace when unprivileged", () => {
    const bwrap = bwrapInvocation(input("bwrap", false));
    expect(bwrap.args).toEqual(
      expect.arrayContaining(["--unshare-all", "--unshare-user", "--disable-userns"]),
    );
    const unshare = unshareInvocation(unshareInput(false));
    expect(unshare.args).toEqual(expect.arrayContaining(["--user", "--map-current-user", "--keep-caps"]));
    for (const plan of [bwrap, unshare])
      expect(setprivFlags(plan.args)).toEqual(["--no-new-privs", "--inh-caps=-all", "--bounding-set=-all"]);
  });

  it("gives bwrap new namespaces, read-only system dirs and the workspace at /workspace and /app", () => {
    const { file, args } = bwrapInvocation(input("bwrap", true));
    expect(file).toBe("/usr/bin/bwrap");
    expect(args).toEqual(expect.arrayContaining(["--unshare-net", "--unshare-pid", "--die-with-parent"]));
    expect(args.join(" ")).toContain("--ro-bind /usr /usr --ro-bind /etc /etc --symlink usr/bin /bin");
    expect(args.join(" ")).toContain("--bind /tmp/my ws /workspace --bind /tmp/my ws /app");
    expect(args.join(" ")).toContain("--remount-ro /");
    const readOnly = bwrapInvocation(input("bwrap", true, { readOnlyWorkspace: true })).args.join(" ");
    expect(readOnly).toContain("--ro-bind /tmp/my ws /workspace --ro-bind /tmp/my ws /app");
  });

  it("mounts a read-only root with only the workspace writable under unshare", () => {
    const lines = unshareFstab({ ...input("unshare", true), skeleton: "/s" })
      .trim()
      .split("\n");
    expect(lines[0]).toBe("/s /s none bind,ro,nosuid,nodev 0 0");
    expect(lines).toContain("/usr /s/usr none bind,ro,nosuid,nodev 0 0");
    expect(lines).toContain("/tmp/my\\040ws /s/workspace none bind,nosuid,nodev 0 0");
    expect(lines).toContain("/tmp/my\\040ws /s/app none bind,nosuid,nodev 0 0");
    expect(lines).toContain("tmpfs /s/tmp tmpfs nosuid,nodev,size=512m,mode=1777 0 0");
    expect(lines.at(-1)).toBe("proc /s/proc proc nosuid,nodev,noexec 0 0");
    const writable = lines.filter((line) => line.includes(" bind") && !line.includes(",ro,"));
    expect(writable.map((line) => line.split(" ")[1])).toEqual([
      "/s/workspace",
      "/s/app",
      ...["null", "zero", "full", "random", "urandom", "tty"].map((device) => `/s/dev/${device}`),
    ]);
    const readOnly = unshareFstab({ ...input("unshare", true, { readOnlyWorkspace: true }), skeleton: "/s" });
    expect(readOnly).toContain("/tmp/my\\040ws /s/workspace none bind,ro,nosuid,nodev 0 0");
  });

  it("runs the unshare setup as PID 1 of new namespaces and enters the skeleton root", () => {
    const { file, args } = unshareInvocation(unshareInput(true));
    expect(file).toBe("/usr/bin/setpriv");
    expect(args.slice(0, 2)).toEqual(["--pdeathsig=KILL", "--"]);
    expect(args).toEqual(
      expect.arrayContaining(["--mount", "--net", "--pid", "--ipc", "--uts", "--fork", "--kill-child"]),
    );
    expect(args).toContain(UNSHARE_SETUP_SCRIPT);
    expect(args).toEqual(expect.arrayContaining(["--root=/s", "--wd=/workspace", "/s/fstab"]));
  });

  it("escapes whitespace and backslashes in fstab paths", () => {
    expect(fstabEscape("/a b\tc\nd\\e")).toBe("/a\\040b\\011c\\012d\\134e");
  });

  it("starts every command from the clean base environment", () => {
    expect(Object.keys(BASE_ENV).sort()).toEqual(["HOME", "LANG", "PATH", "TERM"]);
    expect(sandboxEnv({ X: "1" })).toEqual({ ...BASE_ENV, X: "1" });
  });
});

function unshareInput(privileged: boolean) {
  return { ...input("unshare", privileged), skeleton: "/s", fstabPath: "/s/fstab" };
}
