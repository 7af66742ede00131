import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  canonicalJsonOfMembers,
  frozenJson,
  hashJson,
  rememberedCanonicalJson,
} from "../../src/core/canonical-json";
import { retailToolSpecs } from "../../src/envs/retail/tool-specs";
import { requestCacheKey } from "../../src/models/cache";
import type { ChatRequest } from "../../src/models/types";

describe("canonicalJson", () => {
  it("sorts keys, drops undefined members and writes no whitespace", () => {
    expect(canonicalJson({ b: 1, a: [3, undefined, { d: undefined, c: "x" }] })).toBe(
      '{"a":[3,null,{"c":"x"}],"b":1}',
    );
    expect(hashJson({ b: 1, a: 2 })).toBe(hashJson({ a: 2, b: 1 }));
  });

  it("builds an object from its members' canonical texts as canonicalJson builds the whole", () => {
    const whole = { zeta: [1, { b: 2, a: 1 }], alpha: "x", gone: undefined, mid: { y: null, x: true } };
    const members: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(whole)) members[name] = canonicalJson(value);
    expect(canonicalJsonOfMembers(members)).toBe(canonicalJson(whole));
    expect(() => canonicalJsonOfMembers({ "1": "1" })).toThrow(/not a name/);
  });

  it("remembers the text of frozen data, which can no longer change", () => {
    const spec = frozenJson({ name: "t", parameters: { type: "object", required: ["a"] } });
    expect(rememberedCanonicalJson(spec)).toBe(canonicalJson(spec));
    expect(() => (spec.parameters.required as string[]).push("b")).toThrow(TypeError);
    // Anything not made by frozenJson is canonicalised as it stands.
    const open = { b: [1], a: 1 };
    expect(rememberedCanonicalJson(open)).toBe('{"a":1,"b":[1]}');
    open.b.push(2);
    expect(rememberedCanonicalJson(open)).toBe('{"a":1,"b":[1,2]}');
  });
});

describe("requestCacheKey", () => {
  const request = (tools: ChatRequest["tools"]): ChatRequest => ({
    messages: [
      { role: "system", content: "policy" },
      { role: "user", content: "hello" },
    ],
    tools,
    temperature: 0,
    seed: 3,
    repeat: 1,
  });
  // The key as every earlier version computed it: caches written before stay valid.
  const earlierKey = (modelId: string, endpoint: string, r: ChatRequest) =>
    hashJson({
      v: 1,
      model: modelId,
      endpoint,
      messages: r.messages,
      tools: r.tools,
      temperature: r.temperature,
      max_tokens: r.max_tokens,
      top_p: r.top_p,
      reasoning_effort: r.reasoning_effort,
      thinking_budget: r.thinking_budget,
      send_seed: r.send_seed,
      prompt_cache: r.prompt_cache,
      extra: r.extra,
      seed: r.seed,
      repeat: r.repeat ?? 0,
    });

  it("is the key earlier versions stored, with frozen specs and with any others", () => {
    const frozen = request(retailToolSpecs());
    expect(requestCacheKey("openai:m", "http://h/v1", frozen)).toBe(
      earlierKey("openai:m", "http://h/v1", frozen),
    );
    const open = request([{ name: "x", description: "d", parameters: { type: "object", b: 1, a: 2 } }]);
    open.max_tokens = 50;
    open.extra = { z: 1, a: [2] };
    expect(requestCacheKey("openai:m", "http://h/v1", open)).toBe(
      earlierKey("openai:m", "http://h/v1", open),
    );
    expect(requestCacheKey("m", "e", request([]))).toBe(earlierKey("m", "e", request([])));
  });

  it("changes with the tools offered", () => {
    const all = retailToolSpecs();
    expect(requestCacheKey("m", "e", request(all))).not.toBe(
      requestCacheKey("m", "e", request(all.slice(1))),
    );
  });
});
