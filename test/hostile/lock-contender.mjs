// One contender for the run lock (spawned by run-lock.test.ts): says "ready", waits for the `go` file, tries to
// take the lock, prints "held" or "refused", and a holder keeps the lock until the `done` file appears. Plain
// JavaScript over the compiled store/run-lock.js (its path is the first argument): a dozen start at once.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [runLock = "", runDir = "", signals = ""] = process.argv.slice(2);
const { acquireRunLock } = await import(pathToFileURL(runLock).href);
const waitFor = async (name) => {
  while (!existsSync(join(signals, name))) await new Promise((resolve) => setTimeout(resolve, 1));
};
console.log("ready");
await waitFor("go");
let release;
try {
  release = acquireRunLock(runDir);
  console.log("held");
} catch (error) {
  console.log(`refused ${error.message}`);
}
if (release) {
  await waitFor("done");
  release();
}
