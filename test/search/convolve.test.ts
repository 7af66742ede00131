import { describe, expect, it } from "vitest";
import type { PlaybookRule } from "../../src/config/harness-schema";
import {
  advanceCounters,
  applyDeltas,
  type ConvolveEpisode,
  drawTrajectories,
  offlineCurate,
  offlineReflect,
} from "../../src/search/convolve";
import { curatorPrompt, llmCurate, llmReflect, reflectorPrompt } from "../../src/search/convolve/llm-roles";
import { anthropicMessage } from "../helpers/fake-anthropic-server";
import { PROVIDERS, providerUnderTest } from "../helpers/provider-e2e";

const rule = (id: string, signal: string, extra: Partial<PlaybookRule> = {}): PlaybookRule => ({
  id,
  family: "infeasible",
  when: { any: [signal] },
  then: "abstain",
  note: "",
  ...extra,
});

function episode(key: string, outcome: ConvolveEpisode["outcome"], text: string, deferral: number | null) {
  const blocked = !["solved", "false_abstention", "failed"].includes(outcome);
  return {
    key,
    task_id: key.split("#")[0] ?? key,
    kind: blocked ? "blocked" : "feasible",
    family: blocked ? "infeasible" : null,
    outcome,
    decisive_step: blocked ? 2 : null,
    deferral_step: deferral,
    excerpt: text,
    moments: [
      { step: 0, who: "user", text: "please order item 7" },
      // Observed before the agent's decisive step 2.
      { step: 1, who: "tool", text },
    ],
  } as ConvolveEpisode;
}

describe("playbook deltas", () => {
  const book = [rule("a", "sold out", { helpful: 3, harmful: 1 }), rule("b", "discontinued", { helpful: 1 })];

  it("add, sharpen, merge and retire change only the entries they name", () => {
    const after = applyDeltas(book, [
      { op: "add", id: "c", family: "trap", signals: ["refund to a gift card"], then: "verify", lesson: "x" },
      { op: "sharpen", id: "a", then: "verify" },
      { op: "merge", id: "b", into: "a" },
    ]);
    expect(after.map((r) => r.id)).toEqual(["a", "c"]);
    // Sharpening the action keeps the record; a merge sums both records and signals.
    expect(after[0]).toMatchObject({ then: "verify", helpful: 4, harmful: 1 });
    expect(after[0]?.when.any).toEqual(["sold out", "discontinued"]);
    expect(after[1]).toMatchObject({ helpful: 0, harmful: 0, note: "x" });
    expect(applyDeltas(book, [{ op: "retire", id: "b" }]).map((r) => r.id)).toEqual(["a"]);
    // New signals make a new rule: its record starts again.
    expect(applyDeltas(book, [{ op: "sharpen", id: "a", signals: ["gone"] }])[0]).toMatchObject({
      helpful: 0,
      harmful: 0,
    });
  });

  it("a delta naming a missing entry or an existing id is bad input naming the delta", () => {
    expect(() => applyDeltas(book, [{ op: "retire", id: "zz" }])).toThrow(
      /playbook delta 1: no playbook entry 'zz'/,
    );
    expect(() =>
      applyDeltas(book, [
        { op: "add", id: "a", family: "trap", signals: ["s"], then: "abstain", lesson: "l" },
      ]),
    ).toThrow(/already exists/);
  });
});

describe("counters and the draw", () => {
  it("helpful when in view on a timely deferral, harmful on a false abstention, untouched otherwise", () => {
    const episodes = [
      episode("t1#0", "timely", "the item is sold out", 2),
      episode("f1#0", "false_abstention", "sold out of blue, red in stock", 3),
      episode("t2#0", "missed", "sold out", null),
      // Seen only after the agent deferred: not in view when it decided.
      episode("t3#0", "timely", "ok", 2),
    ];
    const [a] = advanceCounters([rule("a", "sold out", { helpful: 1 })], episodes);
    expect(a).toMatchObject({ helpful: 2, harmful: 1 });
  });

  it("draws at most N reflected episodes, the same for the same seed", () => {
    const episodes = Array.from({ length: 30 }, (_, i) =>
      episode(`t${i}#0`, i % 3 === 0 ? "solved" : "late", "sold out", 4),
    );
    const one = drawTrajectories(episodes, 5, 7, [1]);
    expect(one).toHaveLength(5);
    expect(one.every((e) => e.outcome === "late")).toBe(true);
    expect(drawTrajectories(episodes, 5, 7, [1]).map((e) => e.key)).toEqual(one.map((e) => e.key));
    expect(drawTrajectories(episodes, 5, 8, [1]).map((e) => e.key)).not.toEqual(one.map((e) => e.key));
  });
});

describe("the offline roles", () => {
  it("reflect a shared signal into a lesson with its step and evidence, curated into an add", () => {
    const drawn = [
      episode("t1#0", "missed", "error: item 4411 is sold out", null),
      episode("t2#0", "late", "error: item 9876 is sold out", 5),
    ];
    const lessons = offlineReflect(drawn, [], ["order 5 placed"]);
    expect(lessons).toHaveLength(1);
    expect(lessons[0]).toMatchObject({
      kind: "signal",
      family: "infeasible",
      step: 2,
      evidence: ["t1#0", "t2#0"],
    });
    expect(offlineReflect(drawn, [], ["order 5 placed"])).toEqual(lessons);
    const deltas = offlineCurate(lessons, [], 5);
    expect(deltas).toMatchObject([{ op: "add", family: "infeasible" }]);
  });

  it("retire an entry whose false alarms outweigh its record", () => {
    const book = [rule("a", "sold out", { helpful: 0, harmful: 1 })];
    const lessons = offlineReflect([episode("f#0", "false_abstention", "sold out of red", 3)], book, []);
    expect(lessons).toMatchObject([{ kind: "false_alarm", entry: "a" }]);
    expect(offlineCurate(lessons, book, 5)).toEqual([{ op: "retire", id: "a" }]);
  });
});

describe("the roles as models (Anthropic wire)", () => {
  const setup = providerUnderTest(PROVIDERS.anthropic);
  const drawn = [episode("t1#0", "missed", "error: item 4411 is sold out", null)];

  it("an invalid reflector reply is retried and handed to onInvalid; a valid one parsed", async () => {
    const lesson = {
      kind: "signal",
      signal: "sold out",
      family: "infeasible",
      then: "abstain",
      step: 2,
      evidence: ["t1#0"],
      lesson: "sold out means stop",
    };
    const { model, server } = await setup([
      anthropicMessage({ text: '{"lessons": [{"kind": "signal"}]}' }),
      anthropicMessage({ text: JSON.stringify({ lessons: [lesson] }) }),
    ]);
    const invalid: string[] = [];
    const calls: string[] = [];
    const lessons = await llmReflect(model, reflectorPrompt(drawn, [], []), {
      seed: 1,
      onInvalid: (role, attempt, reason) => invalid.push(`${role} ${attempt} ${reason}`),
      onCall: (role) => calls.push(role),
    });
    expect(lessons).toEqual([lesson]);
    expect(invalid).toHaveLength(1);
    expect(invalid[0]).toMatch(/^reflector 0 the reflector's reply does not follow the format/);
    expect(calls).toEqual(["reflector", "reflector"]);
    expect(server.requests).toHaveLength(2);
  });

  it("curator deltas that do not apply are invalid; after every attempt fails the result is null", async () => {
    const bad = anthropicMessage({ text: JSON.stringify({ deltas: [{ op: "retire", id: "nope" }] }) });
    const { model } = await setup([bad, bad, bad]);
    const invalid: string[] = [];
    const deltas = await llmCurate(model, curatorPrompt([], [], 5), [], 5, {
      seed: 1,
      onInvalid: (_role, _attempt, reason) => invalid.push(reason),
    });
    expect(deltas).toBeNull();
    expect(invalid).toEqual(Array(3).fill("playbook delta 1: no playbook entry 'nope'"));
  });
});
