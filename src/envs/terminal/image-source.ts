/**
 * The user's choice of where a task's image comes from (image-plan.ts `ImageSource`): `HSEARCH_IMAGE_SOURCE` in the
 * environment of the process that runs episodes (`eval --image-source` and a search config's `image_source` set
 * it; a worker takes its own). Default `auto`, as Harbor runs a task.
 */
import { badInput } from "../../core";
import { IMAGE_SOURCES, type ImageSource } from "./image-plan";

export const IMAGE_SOURCE_VARIABLE = "HSEARCH_IMAGE_SOURCE";

export function imageSourceChosen(env: NodeJS.ProcessEnv = process.env): ImageSource {
  const value = (env[IMAGE_SOURCE_VARIABLE] ?? "").trim();
  if (value === "") return "auto";
  const source = IMAGE_SOURCES.find((name) => name === value);
  if (!source)
    throw badInput(
      `${IMAGE_SOURCE_VARIABLE} must be one of ${IMAGE_SOURCES.join(", ")}, got '${env[IMAGE_SOURCE_VARIABLE]}'`,
      { field: IMAGE_SOURCE_VARIABLE },
    );
  return source;
}

/**
 * Run `work` with `source` as the image source of the episodes this process makes (the variable restored after);
 * without a source, the environment's own choice stands.
 */
export async function withImageSource<T>(
  source: ImageSource | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (source === undefined) return work();
  const before = process.env[IMAGE_SOURCE_VARIABLE];
  process.env[IMAGE_SOURCE_VARIABLE] = source;
  try {
    return await work();
  } finally {
    if (before === undefined) delete process.env[IMAGE_SOURCE_VARIABLE];
    else process.env[IMAGE_SOURCE_VARIABLE] = before;
  }
}
