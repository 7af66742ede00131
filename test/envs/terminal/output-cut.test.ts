import { describe, expect, it } from "vitest";
import { BoundedCapture, cutMiddle, omissionMarker } from "../../../src/envs/terminal/output-cut";

describe("cutMiddle", () => {
  it("keeps text that fits", () => {
    expect(cutMiddle("short", 10)).toBe("short");
    expect(cutMiddle("", 0)).toBe("");
  });

  it("keeps the head and the tail within the limit and says how much was omitted", () => {
    const text = `HEAD${"x".repeat(50_000)}TAIL`;
    const cut = cutMiddle(text, 10 * 1024);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(10 * 1024);
    expect(cut.startsWith("HEADxxx")).toBe(true);
    expect(cut.endsWith("xxxTAIL")).toBe(true);
    const omitted = Number(/\[\.\.\. (\d+) bytes omitted \.\.\.\]/.exec(cut)?.[1]);
    const kept = Buffer.byteLength(cut) - Buffer.byteLength(omissionMarker(omitted));
    expect(kept + omitted).toBe(Buffer.byteLength(text));
  });

  it("never splits a multi-byte character", () => {
    const text = "é".repeat(10_000);
    const cut = cutMiddle(text, 1001);
    expect(cut).not.toContain("\uFFFD");
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(1001);
  });
});

describe("BoundedCapture", () => {
  it("returns everything while under the limit", () => {
    const capture = new BoundedCapture(100);
    capture.push(Buffer.from("hello "));
    capture.push(Buffer.from("world"));
    expect(capture.text()).toBe("hello world");
    expect(capture.totalBytes).toBe(11);
    expect(capture.omittedBytes).toBe(0);
  });

  it("keeps the first and the last half of the limit, however the stream is chunked", () => {
    const stream = Array.from({ length: 1000 }, (_, i) => `line ${i}\n`).join("");
    for (const chunkSize of [1, 7, 100, stream.length]) {
      const capture = new BoundedCapture(200);
      for (let at = 0; at < stream.length; at += chunkSize)
        capture.push(Buffer.from(stream.slice(at, at + chunkSize)));
      expect(capture.totalBytes).toBe(stream.length);
      expect(capture.omittedBytes).toBe(stream.length - 200);
      expect(capture.text()).toBe(
        stream.slice(0, 100) + omissionMarker(stream.length - 200) + stream.slice(stream.length - 100),
      );
    }
  });

  it("drops partial characters at the cut instead of garbling them", () => {
    const capture = new BoundedCapture(11);
    capture.push(Buffer.from("€".repeat(100)));
    const text = capture.text();
    expect(text).not.toContain("\uFFFD");
    expect(text.startsWith("€€")).toBe(true);
    expect(text.endsWith("€")).toBe(true);
  });
});
