import { relative } from "node:path";
import type { CliIO } from "../io";

/** A path as the user would type it from their working directory. */
export function displayPath(path: string, io: Pick<CliIO, "cwd">): string {
  const shown = relative(io.cwd, path);
  return shown === "" ? "." : shown.startsWith("..") ? path : shown;
}
