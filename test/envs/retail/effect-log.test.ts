// EffectLog lives in src/envs/effect-log.ts (shared with the terminal env); its test sits with the retail tests.
import { describe, expect, it } from "vitest";
import { EffectLog } from "../../../src/envs/effect-log";
import type { EffectRecord } from "../../../src/envs/types";

const record = (step: number, ok: boolean, wrote: boolean, tool = "t"): EffectRecord => ({
  step,
  author: "agent",
  tool,
  arguments: { n: step, list: ["a"] },
  ok,
  wrote,
});

describe("EffectLog", () => {
  it("keeps records in order and filters successful writes", () => {
    const log = new EffectLog();
    log.append(record(1, true, false));
    log.append(record(2, false, false));
    log.append(record(3, true, true, "w"));
    expect(log.size).toBe(3);
    expect(log.list().map((r) => r.step)).toEqual([1, 2, 3]);
    expect(log.writes().map((r) => r.tool)).toEqual(["w"]);
    expect(log.filter((r) => !r.ok).map((r) => r.step)).toEqual([2]);
  });

  it("stores frozen copies: neither the caller nor a reader can rewrite history", () => {
    const log = new EffectLog();
    const original = record(1, true, true);
    log.append(original);
    (original.arguments.list as string[]).push("b");
    original.step = 99;
    const stored = log.list()[0] as EffectRecord;
    expect(stored.step).toBe(1);
    expect(stored.arguments.list).toEqual(["a"]);
    expect(() => {
      (stored.arguments.list as string[]).push("c");
    }).toThrow(TypeError);
    expect(() => {
      (log.list() as EffectRecord[]).push(record(2, true, true));
    }).toThrow(TypeError);
    expect(log.size).toBe(1);
  });
});
