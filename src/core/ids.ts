import { sha256 } from "./canonical-json";

/** A run id that sorts by time and stays readable: `20261129-2301-<name>-<4 hex>`. */
export function newRunId(name: string, now: Date, entropy: string): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 13);
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 32) || "run";
  return `${stamp}-${slug}-${sha256(entropy).slice(0, 4)}`;
}

/** The unique key of one rollout: the same candidate, task, seed and repeat always give the same key. */
export function rolloutKey(parts: { candidate: string; task: string; seed: number; repeat: number }): string {
  return `${parts.candidate.slice(0, 12)}:${parts.task}:${parts.seed}:${parts.repeat}`;
}
