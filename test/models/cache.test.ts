import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HsearchError } from "../../src/core/errors";
import {
  closeRequestCaches,
  endpointOf,
  openRequestCache,
  RequestCache,
  requestCacheKey,
  withCache,
} from "../../src/models/cache";
import { MockChatModel, textReply, toolCallReply } from "../../src/models/mock";
import type { ChatRequest } from "../../src/models/types";
import { simContext } from "../sim/context-fixture";

const base: ChatRequest = {
  messages: [
    { role: "system", content: "be brief" },
    { role: "user", content: "hi" },
  ],
  tools: [{ name: "lookup", description: "look up", parameters: { type: "object", properties: {} } }],
  temperature: 0.7,
  max_tokens: 100,
  seed: 1,
  repeat: 0,
};

const tempCachePath = () => join(mkdtempSync(join(tmpdir(), "hsearch-cache-")), "nested", "cache.db");

afterEach(() => closeRequestCaches());

describe("requestCacheKey", () => {
  const key = (request: ChatRequest, model = "openai:m", endpoint = "http://h/v1") =>
    requestCacheKey(model, endpoint, request);

  it("ignores the simulator context and treats a missing repeat as 0", () => {
    expect(key({ ...base, providerOptions: { sim: simContext("t1") } })).toBe(key(base));
    expect(key({ ...base, repeat: undefined })).toBe(key(base));
  });

  it("changes with every part of the canonical request, the seed, the repeat, the model and the endpoint", () => {
    const reference = key(base);
    const variants = [
      key({ ...base, repeat: 1 }),
      key({ ...base, seed: 2 }),
      key({ ...base, temperature: 0 }),
      key({ ...base, max_tokens: 101 }),
      key({ ...base, tools: [] }),
      key({ ...base, messages: [{ role: "user", content: "hi" }] }),
      key(base, "openai:other"),
      key(base, "openai:m", "http://elsewhere/v1"),
    ];
    expect(new Set([reference, ...variants]).size).toBe(variants.length + 1);
  });

  it("does not depend on the order of object keys", () => {
    const reordered: ChatRequest = {
      seed: 1,
      repeat: 0,
      max_tokens: 100,
      temperature: 0.7,
      tools: [{ parameters: { properties: {}, type: "object" }, description: "look up", name: "lookup" }],
      messages: base.messages,
    };
    expect(key(reordered)).toBe(key(base));
  });
});

describe("endpointOf", () => {
  it("drops credentials, query, fragment and a trailing slash", () => {
    expect(endpointOf("https://user:secret@example.com:8443/v1/?key=abc#x")).toBe(
      "https://example.com:8443/v1",
    );
  });
});

describe("withCache", () => {
  it("answers an identical request from the cache, and asks again when the repeat index differs", async () => {
    const mock = new MockChatModel(
      [toolCallReply([{ name: "lookup", arguments: { id: 7 } }]), textReply("second")],
      {
        id: "openai:m",
      },
    );
    const model = withCache(openRequestCache(tempCachePath()), "http://h/v1")(mock);

    const first = await model.generate(base);
    const again = await model.generate({ ...base, providerOptions: { sim: simContext("t") } });
    const otherRepeat = await model.generate({ ...base, repeat: 1 });

    expect(first.cached).toBeUndefined();
    expect(again).toEqual({ ...first, cached: true });
    expect(otherRepeat.content).toBe("second");
    expect(otherRepeat.cached).toBeUndefined();
    expect(mock.requests).toHaveLength(2);
  });

  it("keeps answers across a reopen, in a WAL-mode file", async () => {
    const path = tempCachePath();
    const writer = withCache(openRequestCache(path), "e")(new MockChatModel([textReply("stored")]));
    await writer.generate(base);
    expect(existsSync(`${path}-wal`)).toBe(true);
    closeRequestCaches();

    const reader = new MockChatModel([]);
    const response = await withCache(openRequestCache(path), "e")(reader).generate(base);
    expect(response.content).toBe("stored");
    expect(response.cached).toBe(true);
    expect(reader.requests).toHaveLength(0);
  });

  it("never stores a failure", async () => {
    const cache = openRequestCache(tempCachePath());
    const mock = new MockChatModel([new HsearchError("provider", "down"), textReply("up")]);
    const model = withCache(cache, "e")(mock);
    await expect(model.generate(base)).rejects.toThrow("down");
    expect(cache.size()).toBe(0);
    expect((await model.generate(base)).content).toBe("up");
    expect(cache.size()).toBe(1);
  });

  it("shares one connection per file", () => {
    const path = tempCachePath();
    expect(openRequestCache(path)).toBe(openRequestCache(path));
    const direct = new RequestCache(path);
    direct.close();
    // Closing another handle on the same file leaves the shared one registered and open.
    expect(openRequestCache(path).size()).toBe(0);
  });
});
