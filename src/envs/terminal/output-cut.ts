/**
 * Bounding command output. A command can print gigabytes; the harness keeps a bounded capture (head and tail, the
 * middle dropped) and shows the agent at most 10 KB, again head and tail, because the start (what ran) and the end
 * (the error, the result) are what an agent needs.
 */
import type { SandboxResult } from "./sandbox-types";

/** What an observation shows at most (docs/DESIGN.md §9: output limits). */
export const DISPLAY_LIMIT_BYTES = 10 * 1024;

/** The marker that replaces the omitted middle. */
export function omissionMarker(omittedBytes: number): string {
  return `\n[... ${omittedBytes} bytes omitted ...]\n`;
}

/** `text` if it fits in `maxBytes` (UTF-8), else its head and tail around an omission marker, within `maxBytes`. */
export function cutMiddle(text: string, maxBytes: number = DISPLAY_LIMIT_BYTES): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  // The marker's length depends on the count it prints; the largest count bounds it.
  const keep = Math.max(0, maxBytes - Buffer.byteLength(omissionMarker(bytes.length)));
  const headEnd = charBoundary(bytes, Math.ceil(keep / 2));
  const tailStart = charBoundary(bytes, bytes.length - Math.floor(keep / 2));
  const head = bytes.subarray(0, headEnd).toString("utf8");
  const tail = bytes.subarray(tailStart).toString("utf8");
  return head + omissionMarker(tailStart - headEnd) + tail;
}

/** The nearest index at or before `index` that starts a UTF-8 character (so a cut never splits one). */
function charBoundary(bytes: Buffer, index: number): number {
  let at = Math.max(0, Math.min(index, bytes.length));
  while (at > 0 && at < bytes.length && ((bytes[at] as number) & 0xc0) === 0x80) at--;
  return at;
}

/**
 * A bounded capture of a byte stream: keeps the first `maxBytes / 2` bytes and a rolling window of the last
 * `maxBytes / 2`, and counts everything, so memory stays bounded however much a command prints.
 */
export class BoundedCapture {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(maxBytes: number) {
    this.headLimit = Math.ceil(maxBytes / 2);
    this.tailLimit = Math.floor(maxBytes / 2);
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(this.headLimit - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.tailLimit === 0) return;
    if (rest.length >= this.tailLimit) {
      this.tail = [Buffer.from(rest.subarray(rest.length - this.tailLimit))];
      this.tailBytes = this.tailLimit;
      return;
    }
    this.tail.push(Buffer.from(rest));
    this.tailBytes += rest.length;
    while (this.tailBytes > this.tailLimit) {
      const first = this.tail[0] as Buffer;
      const excess = this.tailBytes - this.tailLimit;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
      }
    }
  }

  /** Bytes seen in total. */
  get totalBytes(): number {
    return this.total;
  }

  /** Bytes dropped from the middle. */
  get omittedBytes(): number {
    return this.total - this.headBytes - this.tailBytes;
  }

  /** The capture as text, with an omission marker where the middle was dropped. */
  text(): string {
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    if (this.omittedBytes === 0) return Buffer.concat([head, tail]).toString("utf8");
    const headEnd = completePrefixLength(head);
    const tailStart = firstCharStart(tail);
    const omitted = this.omittedBytes + (head.length - headEnd) + tailStart;
    return (
      head.subarray(0, headEnd).toString("utf8") +
      omissionMarker(omitted) +
      tail.subarray(tailStart).toString("utf8")
    );
  }
}

/** The length of the longest prefix of `bytes` that ends on a whole UTF-8 character. */
function completePrefixLength(bytes: Buffer): number {
  let start = bytes.length - 1;
  while (start > 0 && bytes.length - start < 4 && ((bytes[start] as number) & 0xc0) === 0x80) start--;
  if (start < 0) return 0;
  const lead = bytes[start] as number;
  const width = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return start + width <= bytes.length ? bytes.length : start;
}

/** Skip continuation bytes at the start of a window that began inside a character. */
function firstCharStart(bytes: Buffer): number {
  let at = 0;
  while (at < bytes.length && at < 4 && ((bytes[at] as number) & 0xc0) === 0x80) at++;
  return at;
}

/** A command's output as the sandbox keeps it: stdout, stderr and both interleaved, each bounded. */
export class CommandOutput {
  private readonly stdout: BoundedCapture;
  private readonly stderr: BoundedCapture;
  private readonly combined: BoundedCapture;

  constructor(maxBytes: number) {
    this.stdout = new BoundedCapture(maxBytes);
    this.stderr = new BoundedCapture(maxBytes);
    this.combined = new BoundedCapture(maxBytes);
  }

  push(stream: "stdout" | "stderr", chunk: Buffer): void {
    this[stream].push(chunk);
    this.combined.push(chunk);
  }

  stderrText(): string {
    return this.stderr.text();
  }

  /** The sandbox's result: a timed-out command has no exit code and was killed with SIGKILL. */
  result(
    outcome: {
      exitCode: number | null;
      timedOut: boolean;
      durationMs: number;
      mechanism: SandboxResult["mechanism"];
    },
    displayBytes: number = DISPLAY_LIMIT_BYTES,
  ): SandboxResult {
    return {
      exitCode: outcome.timedOut ? null : outcome.exitCode,
      signal: outcome.timedOut ? "SIGKILL" : null,
      stdout: this.stdout.text(),
      stderr: this.stderr.text(),
      output: cutMiddle(this.combined.text(), displayBytes),
      timedOut: outcome.timedOut,
      durationMs: outcome.durationMs,
      outputBytes: this.stdout.totalBytes + this.stderr.totalBytes,
      mechanism: outcome.mechanism,
    };
  }
}
