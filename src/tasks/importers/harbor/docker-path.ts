/**
 * Which way a Harbor task can run, for the importer's messages: a task the namespace sandbox skips (files or a
 * WORKDIR outside /app, root steps, `COPY --from`, packages outside this machine's archive, a prebuilt image) may
 * run on the Docker path, where the task's own Dockerfile is built (image-spec.ts).
 */
import type { Split } from "../../../domain";
import type { HarborPathOptions } from "./image-spec";
import { convertTaskDir, unrunnableReason } from "./import-harbor";

export const HARBOR_SANDBOXES = ["namespaces", "docker", "podman"] as const;

/** The importer's options from `--sandbox` and `--build-network`. */
export function harborPathOptions(argv: {
  sandbox: (typeof HARBOR_SANDBOXES)[number];
  buildNetwork: NonNullable<HarborPathOptions["buildNetwork"]>;
}): HarborPathOptions {
  return argv.sandbox === "namespaces" ? {} : { sandbox: argv.sandbox, buildNetwork: argv.buildNetwork };
}

/** " (the Docker path runs it: --sandbox docker)" for a task the namespace path skipped and the Docker path imports. */
export function dockerPathNote(dir: string, split: Split, options: HarborPathOptions): string {
  if (options.sandbox) return "";
  try {
    const converted = convertTaskDir(dir, split, { sandbox: "docker" });
    if (!converted.ok || unrunnableReason(converted.requires, null)) return "";
  } catch {
    return "";
  }
  return " (the Docker path runs it: --sandbox docker)";
}
