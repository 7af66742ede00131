import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { HsearchError } from "../core/errors";

/**
 * One process at a time per run: `run.lock` holds the owner's pid. A lock whose process is gone (a killed run) is
 * taken over, so `--resume` after SIGKILL just works.
 */
export function acquireRunLock(runDir: string): () => void {
  const path = join(runDir, "run.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number(readFileSync(path, "utf8").trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner))
        throw new HsearchError("conflict", `run ${runDir} is in use by process ${owner}`, { file: path });
      rmSync(path, { force: true });
    }
  }
  throw new HsearchError("conflict", `cannot lock run ${runDir}`, { file: path });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
