/**
 * Pure: a task's own image on the Docker path (an imported Harbor task with `sandbox: docker` and an `image`), as
 * command lines — the build of its Dockerfile (tagged by content hash, so an unchanged task is never built twice),
 * the layer that installs what its tests and reference solution would install at run time, and the episode's
 * `docker run`. image-build.ts runs them.
 *
 * The episode runs as Harbor runs it: in the image's own file system, as the image's user (root in Terminal-Bench's
 * images) with the engine's default capabilities, starting in the image's WORKDIR, with the task's cpus and memory.
 * hsearch adds what it needs to observe and score: no network at all, a process limit, /tests and /logs for the
 * verifier, and the control directory. The WORKDIR and /tmp (where long commands arrive as script files) must be
 * seen from the host: as root on an overlay engine they stay in the container's own file system, read by the host
 * in its merged root (`inPlace`, as in Harbor: a rename between them works); otherwise they are bound from the host,
 * their content first copied out of the image with owners kept (two mounts: a rename between them gives EXDEV). The supervisor is the entrypoint, so the image's ENTRYPOINT and CMD do not run.
 */
import { createHash } from "node:crypto";
import { HsearchError, shellQuote } from "../../core";
import type { Invocation } from "./sandbox-plan";
import { SANDBOX_PATHS } from "./sandbox-types";
import { CONTROL_PATH, type SessionPaths, supervisorScript } from "./session-plan";

export const BUILD_NETWORKS = ["default", "host", "none"] as const;
export type BuildNetwork = (typeof BUILD_NETWORKS)[number];

/** The repository of the images hsearch builds from task Dockerfiles. */
export const IMAGE_REPOSITORY = "hsearch-harbor";

/**
 * Where a task's image comes from when it names a prebuilt one (Harbor's `[environment].docker_image`): `auto`
 * runs the prebuilt image where the engine has it or can pull it and builds the Dockerfile otherwise, as Harbor
 * does; `prebuilt` and `dockerfile` force one (a prebuilt image that cannot be pulled is then the task's setup
 * error). A task without a prebuilt image always builds its Dockerfile.
 */
export const IMAGE_SOURCES = ["auto", "prebuilt", "dockerfile"] as const;
export type ImageSource = (typeof IMAGE_SOURCES)[number];

/** A task's image as the environment takes it (the task format's `image`, decoded). */
export interface DockerfileImage {
  dockerfile: string;
  /** The prebuilt image Harbor pulls instead of building (`[environment].docker_image`), when the task names one. */
  prebuilt?: string;
  /** The build context's files (not the Dockerfile), by relative path. */
  context: ReadonlyMap<string, Buffer>;
  /** Context files written executable. */
  executable: readonly string[];
  buildNetwork: BuildNetwork;
  /** Installed in one more layer after the Dockerfile (the tests' and the solution's run-time installs). */
  runPackages: { debian: readonly string[]; python: readonly string[] };
  resources: { cpus?: number; memoryMb?: number; storageMb?: number };
}

/** `hsearch-harbor:<16 hex>`: the hash of the Dockerfile and every context file (path, mode, bytes). */
export function imageTag(image: Pick<DockerfileImage, "dockerfile" | "context" | "executable">): string {
  const hash = createHash("sha256");
  const executable = new Set(image.executable);
  hash.update(`dockerfile\0${image.dockerfile}\0`);
  for (const path of [...image.context.keys()].sort()) {
    const bytes = image.context.get(path) as Buffer;
    hash.update(`${path}\0${executable.has(path) ? "x" : "-"}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return `${IMAGE_REPOSITORY}:${hash.digest("hex").slice(0, 16)}`;
}

/** `hsearch-harbor:prebuilt-<16 hex>`: the local tag of a pulled prebuilt image (a reference may carry a digest). */
export function prebuiltTag(reference: string): string {
  return `${IMAGE_REPOSITORY}:prebuilt-${createHash("sha256").update(reference).digest("hex").slice(0, 16)}`;
}

/** The tag of `base` with the run-time packages layer on top: `<base>-<8 hex>`; `base` itself when there are none. */
export function runLayerTag(base: string, packages: DockerfileImage["runPackages"]): string {
  if (packages.debian.length === 0 && packages.python.length === 0) return base;
  const key = JSON.stringify([[...packages.debian].sort(), [...packages.python].sort()]);
  return `${base}-${createHash("sha256").update(key).digest("hex").slice(0, 8)}`;
}

/** `docker build` of a context directory holding the Dockerfile at its top (as Harbor's environment/ does). */
export function buildInvocation(
  binary: string,
  input: { tag: string; contextDir: string; network: BuildNetwork },
): Invocation {
  return {
    file: binary,
    args: [
      "build",
      // A failed step's container goes too (the legacy builder keeps it otherwise).
      "--force-rm",
      ...(input.network === "default" ? [] : ["--network", input.network]),
      "--tag",
      input.tag,
      "--file",
      `${input.contextDir}/Dockerfile`,
      input.contextDir,
    ],
  };
}

/** Where the layer's script is copied in the image while it runs (then removed). */
export const RUN_LAYER_SCRIPT = "/tmp/hsearch-run-packages.sh";

/**
 * The layer's build context: a Dockerfile and a script that, as root, installs the Debian packages the image's
 * archive has (the others are named in the build log, and the tests that need them fail), then — where python3 is
 * not the distribution's own (the python:* images keep theirs in /usr/local) — the Python distributions with that
 * Python's pip, as Harbor's `uvx -w` would give the tests; then the image's own user again.
 */
export function runLayerContext(
  base: string,
  user: string,
  packages: DockerfileImage["runPackages"],
): { dockerfile: string; script: string } {
  const debian = [...packages.debian].sort().map(shellQuote).join(" ");
  const python = [...packages.python].sort().map(shellQuote).join(" ");
  const steps: string[] = ["set -e"];
  if (debian !== "")
    steps.push(
      "if command -v apt-get >/dev/null 2>&1; then",
      "  export DEBIAN_FRONTEND=noninteractive",
      "  apt-get update",
      '  found=""; missing=""',
      `  for name in ${debian}; do`,
      // A name only referred to (python3-transformers) is shown by `apt-cache show` too, but has no candidate.
      '    if LC_ALL=C apt-cache policy "$name" 2>/dev/null | grep -q "Candidate: [^(]"; then found="$found $name"; else missing="$missing $name"; fi',
      "  done",
      '  if [ -n "$found" ]; then apt-get install -y --no-install-recommends $found; fi',
      '  if [ -n "$missing" ]; then echo "hsearch: not in this image\'s archive:$missing" >&2; fi',
      "  rm -rf /var/lib/apt/lists/*",
      "else",
      `  echo "hsearch: no apt-get in this image; not installed: ${debian.replace(/'/g, "")}" >&2`,
      "fi",
    );
  if (python !== "")
    steps.push(
      'python="$(command -v python3 || true)"',
      'if [ -n "$python" ] && [ "$python" != /usr/bin/python3 ]; then',
      `  "$python" -m pip install --no-cache-dir ${python} || echo "hsearch: pip could not install ${python.replace(/'/g, "")}" >&2`,
      "fi",
    );
  const lines = [
    `FROM ${base}`,
    "USER root",
    `COPY hsearch-run-packages.sh ${RUN_LAYER_SCRIPT}`,
    `RUN sh ${RUN_LAYER_SCRIPT} && rm -f ${RUN_LAYER_SCRIPT}`,
  ];
  // Back to the image's user (root needs no line).
  if (user !== "" && user !== "root" && user !== "0" && !user.startsWith("0:")) lines.push(`USER ${user}`);
  return { dockerfile: `${lines.join("\n")}\n`, script: `${steps.join("\n")}\n` };
}

/** What `docker image inspect` says of a built image that the episode needs. */
export interface ImageConfig {
  /** The image's WORKDIR ("/" when it has none). */
  workdir: string;
  /** The image's USER ("" for root). */
  user: string;
}

export function parseImageConfig(json: string): ImageConfig {
  let config: { WorkingDir?: string | null; User?: string | null } | null;
  try {
    config = JSON.parse(json) as typeof config;
  } catch {
    throw new HsearchError(
      "sandbox",
      `the engine described the image in a way hsearch cannot read: ${json.slice(0, 200)}`,
    );
  }
  const workdir = (config?.WorkingDir ?? "").replace(/\/+$/, "");
  return { workdir: workdir === "" ? "/" : workdir, user: config?.User ?? "" };
}

/** Where the episode's workspace is bound: the WORKDIR, or /workspace when the image has none. */
export function workspaceMountPoint(config: ImageConfig): string {
  return config.workdir === "/" ? SANDBOX_PATHS.workspace : config.workdir;
}

export interface ImageRunInput {
  binary: string;
  image: string;
  name: string;
  config: ImageConfig;
  paths: Omit<SessionPaths, "root">;
  readOnlyWorkspace: boolean;
  resources: DockerfileImage["resources"];
  maxProcs: number;
  /** The engine can cap a container's writable layer (`--storage-opt size=`: btrfs, zfs, overlay2 on xfs). */
  storageLimits: boolean;
  /** The engine's default network instead of none (a task's allow_internet, granted by the user). */
  network?: boolean;
  /**
   * The WORKDIR and /tmp stay in the container's own file system, as in Harbor's (a rename between them works):
   * the container is created, not run, so the host can find them in its merged root before it starts.
   */
  inPlace?: boolean;
}

/** `docker run` of the episode: the image's file system and user, the supervisor as its first process. */
export function imageRunInvocation(input: ImageRunInput): Invocation {
  const { paths, resources } = input;
  const verb = input.inPlace ? "create" : "run";
  const args = [verb, "-i", "--rm", "--name", input.name, "--network", input.network ? "bridge" : "none"];
  if (resources.cpus !== undefined) args.push("--cpus", String(resources.cpus));
  if (resources.memoryMb !== undefined) args.push("--memory", `${resources.memoryMb}m`);
  if (resources.storageMb !== undefined && input.storageLimits)
    args.push("--storage-opt", `size=${resources.storageMb}m`);
  // The episode's own limit plus the supervisor and its helpers, as in the other container backend.
  args.push("--pids-limit", String(input.maxProcs + 16));
  const mount = workspaceMountPoint(input.config);
  if (!input.inPlace) {
    args.push("--volume", `${paths.workspace}:${mount}${input.readOnlyWorkspace ? ":ro" : ""}`);
    args.push("--volume", `${paths.tmp}:${SANDBOX_PATHS.tmp}`);
  }
  args.push("--volume", `${paths.tests}:${SANDBOX_PATHS.tests}:ro`);
  args.push("--volume", `${paths.logs}:${SANDBOX_PATHS.logs}`);
  args.push("--volume", `${paths.control}:${CONTROL_PATH}:ro`);
  args.push("--workdir", input.config.workdir, "--entrypoint", "/bin/bash", input.image);
  // No fd 4 in a container: replies follow each command's marker on stdout. Commands run as the image's user.
  args.push("-c", `exec 4>&1\n${supervisorScript(input.config.workdir)}`, "hsearch-supervisor", "timeout");
  return { file: input.binary, args };
}

/** Storage drivers whose containers `--storage-opt size=` can cap (overlay2 only on xfs with pquota, unseen here). */
export function engineLimitsStorage(driver: string): boolean {
  return ["btrfs", "zfs", "devicemapper", "windowsfilter"].includes(driver.trim());
}
