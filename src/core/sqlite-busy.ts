/**
 * SQLite returns SQLITE_BUSY without calling its busy handler where waiting could deadlock — for instance when two
 * processes create one new database and both switch it to WAL. Such a step is retried here, briefly and
 * synchronously (like better-sqlite3 itself), until `timeoutMs` has passed.
 */
const sleeper = new Int32Array(new SharedArrayBuffer(4));

export function retryWhileBusy<T>(step: () => T, timeoutMs = 10_000): T {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      return step();
    } catch (error) {
      const busy = (error as { code?: unknown }).code === "SQLITE_BUSY";
      if (!busy || Date.now() >= deadline) throw error;
      Atomics.wait(sleeper, 0, 0, wait);
    }
  }
}
