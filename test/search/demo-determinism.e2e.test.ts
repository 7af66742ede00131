import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { demoFingerprint, runDemo } from "../helpers/demo-run";

/**
 * Same config and seed ⇒ the same run, commit for commit. The expected fingerprint of the demo config is in
 * test/fixtures/demo-run.json: a change that moves the demo's result on purpose (a new proposer, new tasks)
 * regenerates it (its `regenerate` command) and says why in the commit message; a refactor never does.
 */
describe("the demo run is reproducible", () => {
  let cleanup = () => {};
  afterAll(() => cleanup());

  it("selects the same tree with the same scores, every candidate the same commit", async () => {
    const expected = JSON.parse(readFileSync(new URL("../fixtures/demo-run.json", import.meta.url), "utf8"));
    const demo = await runDemo();
    cleanup = demo.cleanup;
    expect({ regenerate: expected.regenerate, ...demoFingerprint(demo.status, demo.runDir) }).toEqual(
      expected,
    );
    // A whole search of 25 candidates: about 30 s on an idle machine, several times that on a loaded one.
  }, 300_000);
});
