/**
 * The user's default of where a task's image comes from (image-plan.ts `ImageSource`): `HSEARCH_IMAGE_SOURCE`,
 * read once where a command or library call starts (`eval`, a search without `image_source`, a worker, a probe) and
 * passed on as data to the episodes it makes; nothing sets it. Default `auto`, as Harbor runs a task.
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
