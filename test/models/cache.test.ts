import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { HsearchError } from "../../src/core/errors";
import { PACKAGE_ROOT } from "../../src/core/paths";
import {
  closeRequestCaches,
  endpointOf,
  openRequestCache,
  RequestCache,
  requestCacheFile,
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

const TSX_IMPORT = [
  "--import",
  pathToFileURL(createRequire(join(PACKAGE_ROOT, "package.json")).resolve("tsx")).href,
];

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

describe("a cache shared by processes", () => {
  it("two processes opening and filling one new cache file at once both succeed and see each other's answers", async () => {
    const path = tempCachePath();
    // Each child opens the (not yet existing) file, writes 200 answers and reads them all back, racing the other.
    const child = (name: string) => {
      const script = `
        import { RequestCache } from ${JSON.stringify(join(PACKAGE_ROOT, "src", "models", "cache.ts"))};
        const cache = new RequestCache(${JSON.stringify(path)});
        const response = (i) => ({ content: "answer " + i, tool_calls: [], usage: { input_tokens: 1, output_tokens: 1 }, model: "m" });
        for (let i = 0; i < 200; i++) cache.put("${name}-" + i, "openai:m", response(i));
        for (let i = 0; i < 200; i++) if (cache.get("${name}-" + i)?.content !== "answer " + i) throw new Error("lost " + i);
        cache.close();
      `;
      return execa(process.execPath, [...TSX_IMPORT, "--input-type=module", "-e", script], { reject: false });
    };
    const results = await Promise.all([child("a"), child("b")]);
    for (const result of results) expect(result.exitCode, result.stderr).toBe(0);
    expect(openRequestCache(path).size()).toBe(400);
  }, 60_000);
});

describe("requestCacheFile", () => {
  const env = { HOME: "/home/u" };
  it("run: the run directory; user: $XDG_CACHE_HOME/hsearch when absolute, else ~/.cache/hsearch; else a directory", () => {
    expect(requestCacheFile("run", { runDir: "/r/run-1", base: "/c", env })).toBe("/r/run-1/cache.db");
    expect(requestCacheFile("user", { base: "/c", env: { ...env, XDG_CACHE_HOME: "/x" } })).toBe(
      "/x/hsearch/cache.db",
    );
    expect(requestCacheFile("user", { base: "/c", env: { ...env, XDG_CACHE_HOME: "relative" } })).toBe(
      "/home/u/.cache/hsearch/cache.db",
    );
    expect(requestCacheFile("user", { base: "/c", env })).toBe("/home/u/.cache/hsearch/cache.db");
    expect(requestCacheFile("shared", { base: "/c/configs", env })).toBe("/c/configs/shared/cache.db");
    expect(requestCacheFile("/abs", { base: "/c", env })).toBe("/abs/cache.db");
  });

  it("a cache that cannot be opened is bad input naming the file", () => {
    const dir = mkdtempSync(join(tmpdir(), "hsearch-cache-"));
    writeFileSync(join(dir, "file"), "x");
    expect(() => new RequestCache(join(dir, "file", "cache.db"))).toThrow(
      expect.objectContaining({
        code: "bad_input",
        message: expect.stringContaining("cannot open the request cache"),
      }),
    );
  });
});
