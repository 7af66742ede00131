/**
 * The task image backend (image-plan.ts): the episode runs in the task's own image, built from its Dockerfile
 * unless the engine has it; its WORKDIR and /tmp are copied out to the host directories the container binds there,
 * and the supervisor runs as the image's user.
 */
import { randomBytes } from "node:crypto";
import { HsearchError } from "../../core/errors";
import { openContainer } from "./container-supervisor";
import { copyOutOfImage, engineCommand, ensureDockerfileImage, openTmp } from "./image-build";
import { imageRunInvocation, workspaceMountPoint } from "./image-plan";
import type { SandboxBackend } from "./sandbox-backend";
import { findTool } from "./sandbox-host";
import { DEFAULT_LIMITS } from "./sandbox-plan";
import { SANDBOX_PATHS } from "./sandbox-types";

/** A task image's build without a limit of its own (Harbor's default build_timeout_sec). */
const DEFAULT_BUILD_TIMEOUT_MS = 600_000;

export const imageBackend: SandboxBackend = {
  name: "task image",
  accepts: (options) => options.container?.image !== undefined,
  async start({ options, paths }) {
    const image = options.container?.image;
    if (!image) throw new HsearchError("sandbox", "the task image backend needs a task image");
    const engine = options.container?.engine ?? "docker";
    const binary = findTool(engine);
    if (!binary)
      throw new HsearchError("sandbox", `the task asks for ${engine}, which is not installed here`);
    const built = await ensureDockerfileImage(
      binary,
      engine,
      image,
      options.dir,
      options.container?.buildTimeoutMs ?? DEFAULT_BUILD_TIMEOUT_MS,
      options.container?.imageSource ?? "auto",
    );
    const workspace = workspaceMountPoint(built.config);
    await copyOutOfImage(binary, built.tag, [
      ...(workspace === built.config.workdir ? [{ from: workspace, to: paths.workspace }] : []),
      { from: SANDBOX_PATHS.tmp, to: paths.tmp, optional: true },
    ]);
    await openTmp(paths.tmp);
    const name = `hsearch-${randomBytes(8).toString("hex")}`;
    const invocation = imageRunInvocation({
      binary,
      image: built.tag,
      name,
      config: built.config,
      paths,
      readOnlyWorkspace: options.readOnlyWorkspace ?? false,
      resources: image.resources,
      maxProcs: options.limits?.maxProcs ?? DEFAULT_LIMITS.maxProcs,
      storageLimits: built.storageLimits,
      ...(options.network ? { network: true } : {}),
    });
    // Without root, what the container's root made in the bound directories is handed back before it goes.
    const uid = process.geteuid?.();
    const handBack =
      uid !== undefined && uid !== 0
        ? async () => {
            const owner = `${uid}:${process.getegid?.() ?? uid}`;
            const dirs = [workspaceMountPoint(built.config), SANDBOX_PATHS.tmp, SANDBOX_PATHS.logs];
            await engineCommand(binary, ["exec", "--user", "0", name, "chown", "-R", owner, ...dirs]).catch(
              () => {},
            );
          }
        : undefined;
    return openContainer(options, paths, invocation, {
      name,
      binary,
      ownLimitsOnly: true,
      image: built.origin,
      ...(handBack ? { beforeRemove: handBack } : {}),
    });
  },
};
