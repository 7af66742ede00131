import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/core/canonical-json";
import { type HsearchError, isHsearchError } from "../../src/core/errors";
import {
  appendTrajectoryLines,
  readTrajectoryAt,
  readTrajectoryLog,
  TRAJECTORY_FORMAT,
  trajectoryHash,
} from "../../src/store/trajectory-log";
import { caught } from "../helpers/errors";
import { addSeedAndProposal, newStore, rollout, SEED, tempDir, trajectory } from "./fixtures";

describe("trajectory log", () => {
  it("appends lines and reads them back by pointer and as a whole", () => {
    const file = join(tempDir(), "c.jsonl");
    const first = appendTrajectoryLines(file, [{ key: "k1", trajectory: trajectory("t1") }]);
    const second = appendTrajectoryLines(file, [
      { key: "k2", trajectory: trajectory("t2") },
      { key: "k3", trajectory: trajectory("t3") },
    ]);
    expect(first[0]?.offset).toBe(0);
    expect(second[0]?.offset).toBe(first[0]?.length);
    expect(readTrajectoryAt(file, "k3", second[1] as (typeof second)[number]).task_id).toBe("t3");
    expect([...readTrajectoryLog(file).keys()]).toEqual(["k1", "k2", "k3"]);
    // Each line is the canonical JSON of the entry, and its pointer holds the hash of the trajectory's.
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines[1]).toBe(
      canonicalJson({ format: TRAJECTORY_FORMAT, key: "k2", trajectory: trajectory("t2") }),
    );
    expect(second[0]?.sha256).toBe(trajectoryHash(trajectory("t2")));
  });

  it("versions every line, reads unversioned lines as format 1, and refuses a format it does not know", () => {
    const file = join(tempDir(), "c.jsonl");
    appendTrajectoryLines(file, [{ key: "k1", trajectory: trajectory("t1") }]);
    expect(JSON.parse(readFileSync(file, "utf8")).format).toBe(TRAJECTORY_FORMAT);
    appendFileSync(file, `${JSON.stringify({ key: "k0", trajectory: trajectory("t0") })}\n`);
    expect([...readTrajectoryLog(file).keys()]).toEqual(["k1", "k0"]);
    appendFileSync(file, `${JSON.stringify({ format: 2, key: "k2", trajectory: trajectory("t2") })}\n`);
    const error = caught(() => readTrajectoryLog(file));
    expect(isHsearchError(error, "conflict")).toBe(true);
    expect((error as Error).message).toContain("format 2; this hsearch reads format 1");
  });

  it("checks every trajectory against its format: a renamed field is an error naming the file, the key and the field", () => {
    const file = join(tempDir(), "c.jsonl");
    const { reward, ...rest } = trajectory("t1");
    // Written by a build that called `reward` `native_reward`: read as undefined before, an error now.
    appendFileSync(
      file,
      `${JSON.stringify({ format: 1, key: "k1", trajectory: { ...rest, native_reward: reward } })}\n`,
    );
    const error = caught(() => readTrajectoryLog(file));
    expect(isHsearchError(error, "bad_input")).toBe(true);
    const { location, message } = error as HsearchError;
    expect(location.file).toBe(file);
    expect(location.field).toBe("trajectory.reward");
    expect(message).toContain("the trajectory of k1 (line at byte 0) does not match trajectory format 1");
    expect((error as HsearchError).describe()).toContain(`${file}: field 'trajectory.reward'`);

    // An unversioned line of format 1's shape still reads; one whose event changed its fields does not.
    const old = join(tempDir(), "old.jsonl");
    appendFileSync(old, `${JSON.stringify({ key: "k1", trajectory: trajectory("t1") })}\n`);
    expect(readTrajectoryLog(old).get("k1")).toEqual(trajectory("t1"));
    const events = [{ type: "message", step: 1, who: "agent", text: "x" }];
    appendFileSync(old, `${JSON.stringify({ key: "k2", trajectory: { ...trajectory("t2"), events } })}\n`);
    const eventError = caught(() => readTrajectoryLog(old)) as HsearchError;
    expect(eventError.location).toEqual({ file: old, field: "trajectory.events.0.author" });

    // A field the format does not have is named itself, not only the object that holds it.
    const extra = join(tempDir(), "extra.jsonl");
    appendFileSync(
      extra,
      `${JSON.stringify({ format: 1, key: "k1", trajectory: { ...trajectory("t1"), novel: 1 } })}\n`,
    );
    expect((caught(() => readTrajectoryLog(extra)) as HsearchError).location.field).toBe("trajectory.novel");
  });

  it("reads back every optional field a writer sets: a rollout answered from the request cache (from_cache)", () => {
    // Each optional field of Trajectory is in the schema: a field the writer adds and the reader refuses would fail
    // every resumed run that read its own trajectories back.
    const file = join(tempDir(), "c.jsonl");
    const cached = { ...trajectory("t1"), from_cache: true as const };
    const [pointer] = appendTrajectoryLines(file, [{ key: "k1", trajectory: cached }]);
    expect(readTrajectoryAt(file, "k1", pointer as NonNullable<typeof pointer>).from_cache).toBe(true);
  });

  it("reads a pointed-at line through the same check", () => {
    const file = join(tempDir(), "c.jsonl");
    const bad = { ...trajectory("t1"), end: { reason: "stopped", step: 4 } };
    appendFileSync(file, `${canonicalJson({ format: 1, key: "k1", trajectory: bad })}\n`);
    const length = readFileSync(file).length;
    const error = caught(() =>
      readTrajectoryAt(file, "k1", { offset: 0, length, sha256: trajectoryHash(bad as never) }),
    ) as HsearchError;
    expect(isHsearchError(error, "bad_input")).toBe(true);
    expect(error.location.field).toBe("trajectory.end.reason");
  });

  it("dedupes by key, the last line winning (the one a resumed run's row points at)", () => {
    const file = join(tempDir(), "c.jsonl");
    appendTrajectoryLines(file, [{ key: "k1", trajectory: trajectory("t1", { steps: 3 }) }]);
    appendTrajectoryLines(file, [{ key: "k1", trajectory: trajectory("t1", { steps: 5 }) }]);
    const log = readTrajectoryLog(file);
    expect(log.size).toBe(1);
    expect(log.get("k1")?.steps).toBe(5);
  });

  it("ignores a torn last line when reading and cuts it off before the next append", () => {
    const file = join(tempDir(), "c.jsonl");
    appendTrajectoryLines(file, [{ key: "k1", trajectory: trajectory("t1") }]);
    appendFileSync(file, '{"key":"k2","traj');
    expect([...readTrajectoryLog(file).keys()]).toEqual(["k1"]);
    const [pointer] = appendTrajectoryLines(file, [{ key: "k2", trajectory: trajectory("t2") }]);
    expect(readTrajectoryAt(file, "k2", pointer as NonNullable<typeof pointer>).task_id).toBe("t2");
    expect(
      readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line.length > 0),
    ).toHaveLength(2);
    expect([...readTrajectoryLog(file).keys()]).toEqual(["k1", "k2"]);
  });

  it("reports a malformed complete line, a wrong pointer and a changed line as conflicts", () => {
    const file = join(tempDir(), "c.jsonl");
    const [pointer] = appendTrajectoryLines(file, [{ key: "k1", trajectory: trajectory("t1") }]);
    const at = pointer as NonNullable<typeof pointer>;
    expect(
      isHsearchError(
        caught(() => readTrajectoryAt(file, "k9", at)),
        "conflict",
      ),
    ).toBe(true);
    expect(
      isHsearchError(
        caught(() => readTrajectoryAt(file, "k1", { ...at, sha256: "0" })),
        "conflict",
      ),
    ).toBe(true);
    expect(
      isHsearchError(
        caught(() => readTrajectoryAt(file, "k1", { ...at, offset: at.length })),
        "conflict",
      ),
    ).toBe(true);
    expect(
      isHsearchError(
        caught(() => readTrajectoryAt(join(tempDir(), "gone.jsonl"), "k1", at)),
        "conflict",
      ),
    ).toBe(true);
    writeFileSync(file, "not json\n");
    expect(
      isHsearchError(
        caught(() => readTrajectoryLog(file)),
        "conflict",
      ),
    ).toBe(true);
  });

  it("reads a missing file as an empty log", () => {
    expect(readTrajectoryLog(join(tempDir(), "none.jsonl")).size).toBe(0);
  });

  it("lets a store resume after a crash between the fsync and the commit without storing a rollout twice", () => {
    const store = newStore();
    addSeedAndProposal(store);
    const lost = rollout(SEED, "t1");
    // Crash simulation: the line reached disk, the row did not.
    store.appendTrajectories(SEED, "search", [{ key: lost.key, trajectory: lost.trajectory }]);
    expect(store.hasRollout("search", lost.key)).toBe(false);
    expect(store.recordRollouts(SEED, [lost])).toEqual({ inserted: 1, skipped: 0 });
    const [row] = store.listRollouts(SEED);
    expect(row?.trajectory_offset).toBeGreaterThan(0);
    expect(store.readTrajectory(row as NonNullable<typeof row>)).toEqual(lost.trajectory);
    expect(store.readTrajectoryLog(SEED, "search").size).toBe(1);
    expect(store.countRollouts()).toBe(1);
  });
});
