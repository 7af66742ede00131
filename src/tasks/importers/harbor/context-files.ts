/**
 * Whether a task's build context holds what its Dockerfile needs: a file the snapshot of a published set lost (a large
 * file stored apart) makes the task incomplete on either path, which the importer reports as such, not as a failed
 * build or a malformed task.
 */
import { dockerInstructions } from "./dockerfile";

/** A data file that a `.sha256`/`.sha512`/`.md5` beside it names but that is not there. */
export function missingBesideChecksum(files: Iterable<string>): string | null {
  const paths = new Set(files);
  for (const path of paths) {
    const data = /^(.+)\.(sha256|sha512|md5)(sum)?$/.exec(path)?.[1];
    if (data !== undefined && !paths.has(data)) return data;
  }
  return null;
}

/** The context path that a `COPY` or `ADD` of the build context names, cleaned ("" for the whole context). */
export function cleanContextPath(source: string): string {
  return source
    .replace(/^(\.\/)+/, "")
    .replace(/(\/\.)+\/*$|\/+$/, "")
    .replace(/^\.$/, "");
}

/**
 * The first `COPY`/`ADD` source of the build context that matches no file of it (URLs, wildcards and copies from
 * another stage or image are not the context's), with its Dockerfile line.
 */
export function missingCopySource(
  dockerfile: string,
  files: Iterable<string>,
): { source: string; line: number } | null {
  const paths = [...files];
  for (const { keyword, args, line } of dockerInstructions(dockerfile)) {
    if (keyword !== "COPY" && keyword !== "ADD") continue;
    const parts = args.split(/\s+/);
    if (parts.some((part) => part.startsWith("--from"))) continue;
    const sources = parts.filter((part) => !part.startsWith("--")).slice(0, -1);
    for (const source of sources) {
      if (/^[a-z]+:\/\//.test(source) || /[*?[$]/.test(source) || source.startsWith("[")) continue;
      const clean = cleanContextPath(source);
      if (clean === "" || paths.some((path) => path === clean || path.startsWith(`${clean}/`))) continue;
      return { source: clean, line };
    }
  }
  return null;
}
