import { describe, expect, it } from "vitest";
import { MarkedStream } from "../../../src/envs/terminal/sandbox-session";
import type { SandboxInfo } from "../../../src/envs/terminal/sandbox-types";
import {
  bwrapSessionInvocation,
  encodeRequest,
  episodeRootLayout,
  type SessionPlanInput,
  sessionFstab,
  unshareSessionInvocation,
} from "../../../src/envs/terminal/session-plan";

const tools = {
  setpriv: "/usr/bin/setpriv",
  prlimit: "/usr/bin/prlimit",
  timeout: "/usr/bin/timeout",
  bwrap: "/usr/bin/bwrap",
  unshare: "/usr/bin/unshare",
  mount: "/usr/bin/mount",
  ip: "/usr/sbin/ip",
};

function input(mechanism: SandboxInfo["mechanism"], privileged: boolean): SessionPlanInput {
  return {
    info: { mechanism, privileged, tools, loopback: "up", rejected: [] },
    hostEntries: [
      { name: "usr", kind: "dir" },
      { name: "etc", kind: "dir" },
      { name: "bin", kind: "symlink", target: "usr/bin" },
    ],
    paths: {
      root: "/e/root",
      workspace: "/e/workspace",
      tmp: "/e/tmp",
      tests: "/e/verifier/tests",
      logs: "/e/verifier/logs",
      control: "/e/control",
    },
    readOnlyWorkspace: false,
    user: privileged ? { uid: 2000123, gid: 2000123 } : undefined,
    hasVarLib: true,
    fstabPath: "/e/fstab",
  };
}

const DROP = [
  "/usr/bin/setpriv",
  "--reuid=2000123",
  "--regid=2000123",
  "--clear-groups",
  "--no-new-privs",
  "--inh-caps=-all",
  "--bounding-set=-all",
  "--",
];

describe("the episode sandbox's plan", () => {
  it("binds the episode's own root writable under bwrap, with the system read-only and no read-only remount", () => {
    const { file, args } = bwrapSessionInvocation(input("bwrap", true));
    expect(file).toBe("/usr/bin/bwrap");
    const line = args.join(" ");
    expect(line).toContain("--new-session --bind /e/root / --ro-bind /usr /usr --ro-bind /etc /etc");
    expect(line).toContain("--ro-bind /var/lib /var/lib");
    expect(bwrapSessionInvocation({ ...input("bwrap", true), hasVarLib: false }).args).not.toContain(
      "/var/lib",
    );
    expect(line).toContain("--bind /e/workspace /workspace --bind /e/workspace /app --proc /proc --dev /dev");
    expect(line).toContain("--ro-bind /e/verifier/tests /tests --bind /e/verifier/logs /logs");
    expect(line).toContain("--ro-bind /e/control /.hsearch");
    expect(args).not.toContain("--remount-ro");
    expect(line).toContain(
      "--cap-add CAP_SETUID --cap-add CAP_SETGID --cap-add CAP_SETPCAP --cap-add CAP_KILL --chdir /workspace",
    );
    // The supervisor stays uid 0 with those four capabilities; each command drops to the episode's uid.
    const supervisor = args.slice(args.indexOf("/bin/bash"));
    expect(supervisor.slice(3)).toEqual(["hsearch-supervisor", "/usr/bin/timeout", ...DROP]);
  });

  it("sheds every capability before the supervisor when unprivileged, and drops nothing per command", () => {
    for (const plan of [
      bwrapSessionInvocation(input("bwrap", false)),
      unshareSessionInvocation(input("unshare", false)),
    ]) {
      const at = plan.args.lastIndexOf("/usr/bin/setpriv");
      expect(plan.args.slice(at, at + 5)).toEqual([
        "/usr/bin/setpriv",
        "--no-new-privs",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--",
      ]);
      expect(plan.args.slice(-2)).toEqual(["hsearch-supervisor", "/usr/bin/timeout"]);
    }
  });

  it("keeps only the four supervisor capabilities under unshare as root", () => {
    const { file, args } = unshareSessionInvocation(input("unshare", true));
    expect(file).toBe("/usr/bin/setpriv");
    expect(args.join(" ")).toContain(
      "/usr/bin/unshare --root=/e/root --wd=/workspace /usr/bin/setpriv " +
        "--bounding-set=-all,+setuid,+setgid,+setpcap,+kill --inh-caps=-all -- /bin/bash -c",
    );
    expect(args.slice(-DROP.length)).toEqual(DROP);
  });

  it("mounts the root writable, /var/lib, /dev/pts, /tests, /logs and the control dir under unshare", () => {
    const lines = sessionFstab(input("unshare", true)).trim().split("\n");
    expect(lines[0]).toBe("/e/root /e/root none bind,nosuid,nodev 0 0");
    expect(lines).toContain("/usr /e/root/usr none bind,ro,nosuid,nodev 0 0");
    expect(lines).toContain("/var/lib /e/root/var/lib none bind,ro,nosuid,nodev 0 0");
    expect(lines).toContain("/e/tmp /e/root/tmp none bind,nosuid,nodev 0 0");
    expect(lines).toContain(
      "devpts /e/root/dev/pts devpts nosuid,noexec,newinstance,ptmxmode=0666,mode=0620 0 0",
    );
    expect(lines).toContain("/e/verifier/tests /e/root/tests none bind,ro,nosuid,nodev 0 0");
    expect(lines).toContain("/e/verifier/logs /e/root/logs none bind,nosuid,nodev 0 0");
    expect(lines).toContain("/e/control /e/root/.hsearch none bind,ro,nosuid,nodev 0 0");
    expect(lines.at(-1)).toBe("proc /e/root/proc proc nosuid,nodev,noexec 0 0");
    const withoutVarLib = sessionFstab({ ...input("unshare", true), hasVarLib: false });
    expect(withoutVarLib).not.toContain("/var/lib");
  });

  it("lays out mount points, /dev, /var and the writable directories of the episode's root", () => {
    const layout = episodeRootLayout(input("unshare", true).hostEntries, true);
    const names = layout.map((entry) => entry.name);
    for (const name of [
      "usr",
      "workspace",
      "app",
      "tests",
      "logs",
      "root",
      "srv",
      "var/log",
      "var/lib",
      "dev/pts",
    ])
      expect(names).toContain(name);
    expect(layout).toContainEqual({ name: "bin", kind: "symlink", target: "usr/bin" });
    expect(layout).toContainEqual({ name: "dev/ptmx", kind: "symlink", target: "pts/ptmx" });
    expect(layout).toContainEqual({ name: "var/tmp", kind: "symlink", target: "../tmp" });
    expect(layout).toContainEqual({ name: "dev/null", kind: "file" });
    expect(new Set(names).size).toBe(names.length);
  });

  it("encodes a request as NUL-terminated fields and refuses NUL bytes inside one", () => {
    const request = {
      id: 3,
      marker: "M",
      timeoutMs: 1_500,
      cpuSeconds: 3,
      memoryMb: 4096,
      maxProcs: 256,
      maxFileMb: 2,
      stdinPath: "",
      mergeOutput: true,
      env: { A: "1" },
      argv: ["/bin/bash", "-c", "echo hi"],
    };
    expect(encodeRequest(request).toString("utf8").split("\0")).toEqual([
      "3",
      "M",
      "1.500s",
      "3",
      String(4096 * 1024),
      "unlimited",
      "256",
      "2048",
      "",
      "1",
      "1",
      "A=1",
      "3",
      "/bin/bash",
      "-c",
      "echo hi",
      "",
    ]);
    expect(
      encodeRequest({ ...request, addressSpaceMb: 8 })
        .toString("utf8")
        .split("\0")[5],
    ).toBe("8192");
    expect(() => encodeRequest({ ...request, argv: ["a\0b"] })).toThrow(/NUL/);
  });
});

describe("a command's output up to its marker", () => {
  function collect(marker: string, chunks: string[]): { data: string; done: boolean } {
    let data = "";
    const stream = new MarkedStream(marker, (bytes) => {
      data += bytes.toString("utf8");
    });
    for (const chunk of chunks) stream.push(Buffer.from(chunk));
    return { data, done: stream.done };
  }

  it("ends at the marker even when it is split across chunks, and drops what follows", () => {
    expect(collect("<END>", ["abc<E", "N", "D>after"])).toEqual({ data: "abc", done: true });
    expect(collect("<END>", ["<END>"])).toEqual({ data: "", done: true });
  });

  it("passes output on at once unless its end could start the marker, and keeps a false start", () => {
    let seen = "";
    const stream = new MarkedStream("<END>", (bytes) => {
      seen += bytes.toString("utf8");
    });
    stream.push(Buffer.from("line\n"));
    expect(seen).toBe("line\n");
    stream.push(Buffer.from("x<EN"));
    expect(seen).toBe("line\nx");
    stream.push(Buffer.from("Dless"));
    expect(seen).toBe("line\nx<ENDless");
    expect(stream.done).toBe(false);
  });
});
