/**
 * Pure: the sandbox's view as a list of mounts, and that list written for each mechanism — bubblewrap arguments, an
 * fstab for the unshare mechanism's one `mount -a`, or a container engine's volumes. The one-command sandbox (sandbox-plan.ts) and the episode's
 * persistent one (session-plan.ts) differ only in the view they ask for (a read-only or a writable root, /var/lib,
 * /dev/pts, shims or the control directory), so both mechanisms mount the same thing by construction.
 */
import { SANDBOX_PATHS } from "./sandbox-types";

export const MIB = 1024 * 1024;

/** Device nodes bound into the sandbox's /dev. */
export const DEVICES = ["null", "zero", "full", "random", "urandom", "tty"];

export type HostEntry = { name: string; kind: "dir" } | { name: string; kind: "symlink"; target: string };

export type Mount =
  /** The sandbox's /: `source` (a host directory) or, for bwrap without one, its own tmpfs. */
  | { kind: "root"; source?: string; readOnly: boolean }
  | { kind: "bind"; source: string; target: string; readOnly: boolean }
  /** bwrap only: the unshare mechanism's root directory already holds these. */
  | { kind: "dir"; target: string }
  | { kind: "symlink"; target: string; to: string }
  | { kind: "tmpfs"; target: string; sizeMb: number }
  /** A minimal /dev (DEVICES), with a devpts instance of its own when `pts`. */
  | { kind: "dev"; pts: boolean }
  | { kind: "proc" };

export interface ViewInput {
  hostEntries: readonly HostEntry[];
  /** Copy the host's top-level symlinks (merged /usr); the episode's root directory already holds them. */
  hostSymlinks: boolean;
  /** The host's directory used as /: required by the unshare mechanism, and by a writable root. */
  root?: string;
  writableRoot: boolean;
  /** The host's /var/lib, read-only (the episode's view has it; the one-command view has no /var at all). */
  varLib?: string;
  /** The one-command view: an empty /var holding the /var/tmp link. */
  varTmpLink?: { path: string; target: string };
  identity?: { passwd: string; group: string };
  workspace: string;
  readOnlyWorkspace: boolean;
  /** Where the workspace is shown: /workspace and /app, or /workspace and the task's own work directory. */
  workspaceTargets?: readonly string[];
  /** The sandbox's /tmp: a host directory, else a fresh tmpfs of this size. */
  tmpDir?: string;
  tmpfsMb: number;
  shmMb: number;
  pts: boolean;
  testsDir?: string;
  logsDir?: string;
  /** Other host directories shown read-only (shims, the control directory). */
  readOnlyExtras: ReadonlyArray<{ source: string; target: string }>;
}

/** The view, in mount order: later mounts go over or inside earlier ones. */
export function viewMounts(view: ViewInput): Mount[] {
  const ro = (source: string, target: string): Mount => ({ kind: "bind", source, target, readOnly: true });
  const rw = (source: string, target: string): Mount => ({ kind: "bind", source, target, readOnly: false });
  const mounts: Mount[] = [
    { kind: "root", readOnly: !view.writableRoot, ...(view.root ? { source: view.root } : {}) },
  ];
  for (const entry of view.hostEntries) {
    if (entry.kind === "dir") mounts.push(ro(`/${entry.name}`, `/${entry.name}`));
    else if (view.hostSymlinks) mounts.push({ kind: "symlink", target: `/${entry.name}`, to: entry.target });
  }
  if (view.varTmpLink)
    mounts.push({ kind: "dir", target: "/var" }, { kind: "symlink", ...linkOf(view.varTmpLink) });
  if (view.varLib) mounts.push(ro(view.varLib, view.varLib));
  if (view.identity)
    mounts.push(ro(view.identity.passwd, "/etc/passwd"), ro(view.identity.group, "/etc/group"));
  const workspace = view.readOnlyWorkspace ? ro : rw;
  for (const target of view.workspaceTargets ?? [SANDBOX_PATHS.workspace, SANDBOX_PATHS.app])
    mounts.push(workspace(view.workspace, target));
  mounts.push({ kind: "proc" }, { kind: "dev", pts: view.pts });
  mounts.push(
    view.tmpDir
      ? rw(view.tmpDir, SANDBOX_PATHS.tmp)
      : { kind: "tmpfs", target: SANDBOX_PATHS.tmp, sizeMb: view.tmpfsMb },
  );
  mounts.push({ kind: "tmpfs", target: "/dev/shm", sizeMb: view.shmMb });
  if (view.testsDir) mounts.push(ro(view.testsDir, SANDBOX_PATHS.tests));
  if (view.logsDir) mounts.push(rw(view.logsDir, SANDBOX_PATHS.logs));
  for (const extra of view.readOnlyExtras) mounts.push(ro(extra.source, extra.target));
  return mounts;
}

function linkOf(link: { path: string; target: string }): { target: string; to: string } {
  return { target: link.path, to: link.target };
}

/** bubblewrap's arguments for the mounts (a read-only root is its own tmpfs, remounted read-only last). */
export function bwrapMountArgs(mounts: readonly Mount[]): string[] {
  const args: string[] = [];
  let remountRoot = false;
  for (const mount of mounts) {
    switch (mount.kind) {
      case "root":
        if (mount.source) args.push(mount.readOnly ? "--ro-bind" : "--bind", mount.source, "/");
        else remountRoot = mount.readOnly;
        break;
      case "bind":
        args.push(mount.readOnly ? "--ro-bind" : "--bind", mount.source, mount.target);
        break;
      case "dir":
        args.push("--dir", mount.target);
        break;
      case "symlink":
        args.push("--symlink", mount.to, mount.target);
        break;
      case "tmpfs":
        args.push("--perms", "1777", "--size", String(mount.sizeMb * MIB), "--tmpfs", mount.target);
        break;
      case "dev":
        // bwrap's --dev always has its own devpts.
        args.push("--dev", "/dev");
        break;
      case "proc":
        args.push("--proc", "/proc");
        break;
    }
  }
  if (remountRoot) args.push("--remount-ro", "/");
  return args;
}

/** The mounts as an fstab under `root` (symlinks and directories are already in it); /proc last. */
export function fstabText(mounts: readonly Mount[], root: string): string {
  const at = (path: string) => `${root}${path}`;
  const lines: string[] = [];
  const add = (source: string, target: string, type: string, options: string[]) =>
    lines.push([fstabEscape(source), fstabEscape(target), type, options.join(","), "0", "0"].join(" "));
  const bind = (readOnly: boolean) => ["bind", ...(readOnly ? ["ro"] : []), "nosuid", "nodev"];
  let proc = false;
  for (const mount of mounts) {
    switch (mount.kind) {
      case "root":
        add(root, root, "none", bind(mount.readOnly));
        break;
      case "bind":
        add(mount.source, at(mount.target), "none", bind(mount.readOnly));
        break;
      case "tmpfs":
        add("tmpfs", at(mount.target), "tmpfs", ["nosuid", "nodev", `size=${mount.sizeMb}m`, "mode=1777"]);
        break;
      case "dev":
        for (const device of DEVICES) add(`/dev/${device}`, at(`/dev/${device}`), "none", ["bind", "nosuid"]);
        if (mount.pts)
          add("devpts", at("/dev/pts"), "devpts", [
            "nosuid",
            "noexec",
            "newinstance",
            "ptmxmode=0666",
            "mode=0620",
          ]);
        break;
      case "proc":
        proc = true;
        break;
      case "dir":
      case "symlink":
        break;
    }
  }
  if (proc) add("proc", at("/proc"), "proc", ["nosuid", "nodev", "noexec"]);
  return `${lines.join("\n")}\n`;
}

/** A container engine's `--volume` and `--tmpfs` arguments (its image is the root; it supplies /dev and /proc). */
export function containerMountArgs(mounts: readonly Mount[]): string[] {
  return mounts.flatMap((mount) => {
    if (mount.kind === "bind")
      return ["--volume", `${mount.source}:${mount.target}${mount.readOnly ? ":ro" : ""}`];
    if (mount.kind === "tmpfs") return ["--tmpfs", `${mount.target}:rw,nosuid,nodev,size=${mount.sizeMb}m`];
    return [];
  });
}

/** fstab fields are separated by whitespace; octal escapes keep any path one field. */
export function fstabEscape(path: string): string {
  return path.replace(/[\\\s]/g, (char) => `\\${char.charCodeAt(0).toString(8).padStart(3, "0")}`);
}
