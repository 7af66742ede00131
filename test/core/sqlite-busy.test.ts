import { describe, expect, it } from "vitest";
import { retryWhileBusy } from "../../src/core/sqlite-busy";

const busy = () => Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });

describe("retryWhileBusy", () => {
  it("retries a step SQLite answered SQLITE_BUSY until it succeeds", () => {
    let calls = 0;
    const result = retryWhileBusy(() => {
      calls += 1;
      if (calls < 3) throw busy();
      return "done";
    });
    expect(result).toBe("done");
    expect(calls).toBe(3);
  });

  it("rethrows any other error at once", () => {
    let calls = 0;
    const other = Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR" });
    expect(() =>
      retryWhileBusy(() => {
        calls += 1;
        throw other;
      }),
    ).toThrow(other);
    expect(calls).toBe(1);
  });

  it("gives up with the busy error once its time is over", () => {
    let calls = 0;
    expect(() =>
      retryWhileBusy(() => {
        calls += 1;
        throw busy();
      }, 30),
    ).toThrow("database is locked");
    expect(calls).toBeGreaterThan(1);
  });
});
