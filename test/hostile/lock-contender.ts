// One contender for the run lock (spawned by run-lock.test.ts): says "ready", waits for the `go` file, tries to
// take the lock, prints "held" or "refused", and a holder keeps the lock until the `done` file appears.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { acquireRunLock } from "../../src/store/run-lock";

const [runDir = "", signals = ""] = process.argv.slice(2);
const waitFor = async (name: string) => {
  while (!existsSync(join(signals, name))) await new Promise((resolve) => setTimeout(resolve, 1));
};
console.log("ready");
await waitFor("go");
let release: (() => void) | undefined;
try {
  release = acquireRunLock(runDir);
  console.log("held");
} catch (error) {
  console.log(`refused ${(error as Error).message}`);
}
if (release) {
  await waitFor("done");
  release();
}
