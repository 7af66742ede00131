/**
 * Retail environment speed: rollout setup, read tool throughput, write + hash throughput, on one core.
 * Run: npx tsx bench/retail-env.ts   (prints figures; asserts nothing)
 */
import { performance } from "node:perf_hooks";
import type { ToolCallSpec } from "../src/domain/task";
import { createRetailEnv, loadRetailData, retailDbHash } from "../src/envs/retail";

const ctx = { step: 1, author: "agent" as const };

function time<T>(run: () => T): { ms: number; value: T } {
  const start = performance.now();
  const value = run();
  return { ms: performance.now() - start, value };
}

const load = time(() => loadRetailData());
const db = load.value;
const firstHash = time(() => retailDbHash(db));
console.log(`load + validate + freeze db.json: ${load.ms.toFixed(1)} ms (once per process)`);
console.log(`first hash (base record digests, once per process): ${firstHash.ms.toFixed(1)} ms`);

// Setup: a fresh environment per rollout, with a small task overlay as blocked variants use.
const overlay = { overlay: [{ path: ["orders", "#W2378156", "user_id"], value: "yusuf_rossi_9620" }] };
for (let i = 0; i < 1000; i++) createRetailEnv(overlay); // warm up
const setupRuns = 10_000;
const setupPlain = time(() => {
  for (let i = 0; i < setupRuns; i++) createRetailEnv();
});
const setupOverlay = time(() => {
  for (let i = 0; i < setupRuns; i++) createRetailEnv(overlay);
});
console.log(
  `setup per rollout env: ${((setupPlain.ms * 1000) / setupRuns).toFixed(2)} µs (no overlay), ${((setupOverlay.ms * 1000) / setupRuns).toFixed(2)} µs (one overlay edit); mean over ${setupRuns}`,
);

// Reads: a mix of the four common read tools over real ids, through the async `call` an agent loop uses.
const orderIds = Object.keys(db.orders);
const userIds = Object.keys(db.users);
const productIds = Object.keys(db.products);
const emails = userIds.map((id) => (db.users[id] as { email: string }).email);
const reads: ToolCallSpec[] = [];
for (let i = 0; i < 4000; i++) {
  const k = i % 4;
  if (k === 0)
    reads.push({ name: "get_order_details", arguments: { order_id: orderIds[(i * 7) % orderIds.length] } });
  if (k === 1)
    reads.push({ name: "get_user_details", arguments: { user_id: userIds[(i * 11) % userIds.length] } });
  if (k === 2)
    reads.push({ name: "get_product_details", arguments: { product_id: productIds[i % productIds.length] } });
  if (k === 3)
    reads.push({ name: "find_user_id_by_email", arguments: { email: emails[(i * 13) % emails.length] } });
}

async function readThroughput(label: string, env: ReturnType<typeof createRetailEnv>): Promise<void> {
  for (const call of reads.slice(0, 2000)) await env.call(call.name, call.arguments, ctx); // warm up
  const rounds = 25;
  const start = performance.now();
  for (let r = 0; r < rounds; r++) for (const call of reads) await env.call(call.name, call.arguments, ctx);
  const seconds = (performance.now() - start) / 1000;
  console.log(`${label}: ${Math.round((rounds * reads.length) / seconds).toLocaleString("en-US")} calls/s`);
}

await readThroughput("reads (4-tool mix, base records)", createRetailEnv());
// The same mix on an environment that has written: changed records are re-rendered on every read.
const written = createRetailEnv();
written.callSync("cancel_pending_order", { order_id: "#W2611340", reason: "no longer needed" }, ctx);
for (const id of orderIds.slice(0, 20)) {
  written.callSync(
    "modify_pending_order_address",
    {
      order_id: id,
      address1: "1 Main St",
      address2: "",
      city: "Austin",
      state: "TX",
      country: "USA",
      zip: "73301",
    },
    ctx,
  );
}
await readThroughput("reads (same mix, env with ~20 changed orders)", written);

// Write + hash: a fresh env, one write, its canonical hash, as a verifier does per rollout.
const pending = orderIds.filter((id) => (db.orders[id] as { status: string }).status === "pending");
const writeRuns = 5000;
const writeHash = time(() => {
  for (let i = 0; i < writeRuns; i++) {
    const env = createRetailEnv();
    const order = pending[i % pending.length] as string;
    env.callSync("cancel_pending_order", { order_id: order, reason: "ordered by mistake" }, ctx);
    env.hash();
  }
});
console.log(
  `fresh env + write + hash: ${Math.round(writeRuns / (writeHash.ms / 1000)).toLocaleString("en-US")} /s (${((writeHash.ms * 1000) / writeRuns).toFixed(1)} µs each)`,
);

const snapshotHash = time(() => retailDbHash(written.snapshot()));
console.log(`snapshot + retailDbHash of a materialised db: ${snapshotHash.ms.toFixed(2)} ms`);
