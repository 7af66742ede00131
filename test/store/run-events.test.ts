import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { isHsearchError } from "../../src/core/errors";
import { createRunDir, eventsOf, openRunStore, RUN_EVENT_KINDS, type RunEvent } from "../../src/store";
import { tempDir } from "./fixtures";

function runDir(): string {
  return createRunDir(tempDir(), "run").dir;
}

/** A row as an older hsearch (or a damaged file) left it: written straight into run.db. */
function insertRaw(dir: string, kind: string, json: string): void {
  const db = new Database(`${dir}/run.db`);
  db.prepare("INSERT INTO events (at, kind, json) VALUES (?, ?, ?)").run(
    "2026-01-01T00:00:00.000Z",
    kind,
    json,
  );
  db.close();
}

describe("run events", () => {
  it("reads back one kind, typed, in the order logged", () => {
    const dir = runDir();
    const store = openRunStore(dir);
    const events: RunEvent[] = [
      { kind: "race_order", data: { round: 1, order: ["b", "a"], weights: [0.5, 1.5] } },
      { kind: "operators_exhausted", data: { round: 1, incumbent: "c".repeat(40), proposals: 0 } },
      { kind: "race_order", data: { round: 2, order: ["a", "b"], weights: null } },
    ];
    for (const event of events) store.logEvent(event);
    const orders = store.eventsOf("race_order");
    expect(orders.map((e) => [e.data.round, e.data.order, e.data.weights])).toEqual([
      [1, ["b", "a"], [0.5, 1.5]],
      [2, ["a", "b"], null],
    ]);
    expect(store.eventsOf("operators_exhausted").map((e) => e.data.proposals)).toEqual([0]);
    expect(store.eventsOf("finished")).toEqual([]);
    store.close();
  });

  it("refuses to log data its kind's schema does not allow", () => {
    const store = openRunStore(runDir());
    const wrong = { kind: "race_order", data: { round: -1, order: [], weights: null } } as RunEvent;
    expect(() => store.logEvent(wrong)).toThrow(/race_order: round/);
    expect(store.listEvents()).toEqual([]);
    store.close();
  });

  it("an old run's rows read as they were: unknown kinds are listed, typed readers skip them", () => {
    const dir = runDir();
    openRunStore(dir).close();
    insertRaw(dir, "round_started", '{"round":1}');
    insertRaw(dir, "operators_exhausted", '{"incumbent":"abc","proposals":2,"round":3}');
    const store = openRunStore(dir, { readonly: true });
    expect(store.listEvents().map((e) => e.kind)).toEqual(["round_started", "operators_exhausted"]);
    expect(store.eventsOf("operators_exhausted")).toMatchObject([
      { kind: "operators_exhausted", data: { round: 3, incumbent: "abc", proposals: 2 } },
    ]);
    expect(RUN_EVENT_KINDS).not.toContain("round_started");
    store.close();
  });

  it("a known kind that does not validate is a damaged run.db, naming the event and field", () => {
    const dir = runDir();
    openRunStore(dir).close();
    insertRaw(dir, "race_order", '{"order":"b,a","round":1,"weights":null}');
    const store = openRunStore(dir, { readonly: true });
    let caught: unknown;
    try {
      store.eventsOf("race_order");
    } catch (error) {
      caught = error;
    }
    expect(isHsearchError(caught, "bad_input")).toBe(true);
    expect(String((caught as Error).message)).toMatch(/event 1 \(race_order\) does not validate at order/);
    expect(() => eventsOf(store.listEvents(), "race_order", "x/run.db")).toThrow(/run\.db is damaged/);
    store.close();
  });
});
