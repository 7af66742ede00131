/** The public entry of src/workers: what other modules of src/ import from it (src/README.md, the import rule). */

export type { QueueExecutor } from "./queue-executor";
export { connectQueueExecutor } from "./queue-executor";
export { reachRedis, redactRedisUrl } from "./redis-url";
export { DEFAULT_QUEUE } from "./rollout-job";
export type { RunningWorker, StopOutcome } from "./rollout-worker";
export { startRolloutWorker } from "./rollout-worker";
