/**
 * The Docker path offline (`tasks import-harbor --sandbox docker --image-map FILE|default`): a benchmark's Dockerfiles
 * often start FROM a prebuilt base of its own registry (`registry.example.com/bench/ubuntu-24-04:20250601`), which a
 * machine without that registry cannot pull. A mapping table turns each such FROM into a local base image (the ones
 * scripts/offline-base-images.sh makes, or any the engine has): the user's rules first, in their order, then the
 * defaults. A pattern is an image name where `*` matches any run of characters; the first that matches wins. An image
 * no rule matches is left as it is. On the namespace path FROM is ignored: any base is treated as the host's Debian.
 */
import { z } from "zod";
import { readPositioned, validateDocument } from "../../../config";
import { badInput } from "../../../core";
import { dockerInstructions } from "./dockerfile";

export interface BaseImageRule {
  pattern: string;
  image: string;
}

/**
 * The defaults, for images of a registry host (a first path segment with a dot or port, or localhost): by the
 * distribution the name says, the bases Terminal-Bench's own Dockerfiles use. Guesses, which a user's rule overrides.
 */
export const DEFAULT_BASE_IMAGES: readonly BaseImageRule[] = [
  { pattern: "*python*", image: "python:3.13-slim-bookworm" },
  { pattern: "*ubuntu*", image: "ubuntu:24.04" },
  { pattern: "*debian*", image: "debian:bookworm-slim" },
];

const IMAGE_NAME = /^[a-z0-9*][a-z0-9._:/@*-]*$/;
const imageMapSchema = z.record(
  z.string(),
  z.string().regex(/^[a-z0-9][a-z0-9._:/@-]*$/, "a local image name such as ubuntu:24.04"),
);

/** A user's table (YAML or JSON: `pattern: image`), errors naming the file, the key and its line. */
export function readImageMap(file: string): BaseImageRule[] {
  const doc = readPositioned(file);
  const table = validateDocument(imageMapSchema, doc);
  for (const pattern of Object.keys(table))
    if (!IMAGE_NAME.test(pattern)) {
      const line = doc.lineOf([pattern]);
      throw badInput(`'${pattern}' is not an image name or pattern (lower case; * matches any characters)`, {
        file,
        field: pattern,
        ...(line ? { line } : {}),
      });
    }
  return Object.entries(table).map(([pattern, image]) => ({ pattern, image }));
}

/** Does the image name a registry host (`host.tld/…`, `host:5000/…`, `localhost/…`)? */
export function isRegistryImage(image: string): boolean {
  const first = image.split("/")[0] ?? "";
  return image.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost");
}

/** The local image for `image`: the user's rules, then (registry images only) the defaults; undefined: unmapped. */
export function mapBaseImage(image: string, rules: readonly BaseImageRule[]): string | undefined {
  const matches = (rule: BaseImageRule) => globMatch(rule.pattern, image);
  const own = rules.find(matches);
  if (own) return own.image;
  return isRegistryImage(image) ? DEFAULT_BASE_IMAGES.find(matches)?.image : undefined;
}

/** The Dockerfile with each FROM of a mapped image rewritten (stages it builds itself are left alone). */
export function mapDockerfileBases(
  dockerfile: string,
  rules: readonly BaseImageRule[],
): { dockerfile: string; mapped: Array<{ from: string; to: string; line: number }> } {
  const lines = dockerfile.split("\n");
  const stages = new Set<string>();
  const mapped: Array<{ from: string; to: string; line: number }> = [];
  for (const { keyword, args, line } of dockerInstructions(dockerfile)) {
    if (keyword !== "FROM") continue;
    const parts = args.split(/\s+/);
    const image = parts.find((part) => !part.startsWith("--")) ?? "";
    const as = parts.findIndex((part) => part.toLowerCase() === "as");
    const earlierStage = stages.has(image.toLowerCase());
    if (as >= 0 && parts[as + 1]) stages.add((parts[as + 1] as string).toLowerCase());
    if (earlierStage) continue;
    const to = mapBaseImage(image, rules);
    if (to === undefined || to === image) continue;
    const text = lines[line - 1] ?? "";
    lines[line - 1] = text.replace(image, to);
    mapped.push({ from: image, to, line });
  }
  return { dockerfile: lines.join("\n"), mapped };
}

function globMatch(pattern: string, name: string): boolean {
  const source = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${source}$`).test(name);
}
