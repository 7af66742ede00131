import type { Forbidden } from "../domain";

/**
 * Glob (`*` within a path segment, `**` across segments, `?` one character) to a RegExp over paths: relative ones
 * of the workspace, absolute ones of a task image's watched places (`/git/**`).
 */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === "*" && glob[i + 1] === "*") {
      source += ".*";
      i++;
      if (glob[i + 1] === "/") i++;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/** Is a successful write forbidden by the task? Retail: by tool name ("*" = any write); terminal: by path. */
export function isForbiddenEffect(
  forbidden: Forbidden,
  tool: string,
  files: readonly string[] = [],
): boolean {
  if (forbidden.tools?.some((name) => name === "*" || name === tool)) return true;
  const patterns = (forbidden.paths ?? []).map(globToRegExp);
  return files.some((file) => patterns.some((pattern) => pattern.test(file.replace(/^\.\//, ""))));
}
