import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { HsearchError } from "./errors";

/**
 * Reads a file that must be a regular file: a FIFO would block forever, a device or socket never ends, a directory
 * is not a file. Opened non-blocking and checked on the open descriptor (no race with a swapped path), and its size
 * checked before a byte is read when `maxBytes` is given. bad_input or not_found naming the file otherwise.
 */
export function readRegularFile(file: string, maxBytes = Number.POSITIVE_INFINITY): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new HsearchError(code === "ENOENT" ? "not_found" : "bad_input", `cannot read: ${code ?? error}`, {
      file,
      cause: error,
    });
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new HsearchError("bad_input", "not a regular file (refused)", { file });
    if (stat.size > maxBytes)
      throw new HsearchError("bad_input", `${stat.size} bytes, over the limit of ${maxBytes} bytes`, {
        file,
      });
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}
