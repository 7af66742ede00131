/**
 * CONVOLVE (`meta_model: convolve`, src/search/proposers/convolve.ts): stopping rules reflected from trajectories and curated into the playbook by
 * deltas, with helpful/harmful counters per entry. docs/guide/convolve.md describes it for users.
 */
export {
  CONVOLVE,
  type ConvolveOptions,
  type ConvolveResult,
  convolveChange,
  proposeByConvolve,
} from "./convolve";
export { advanceCounters, inView } from "./counters";
export { type ConvolveEpisode, convolveEpisode, drawTrajectories, type Outcome } from "./episodes";
export { type Lesson, lessonSchema } from "./lessons";
export { ROLE_ATTEMPTS, type RoleName } from "./llm-roles";
export { offlineCurate, offlineReflect } from "./offline-roles";
export { applyDeltas, describeDelta, type PlaybookDelta, playbookDeltaSchema } from "./playbook-delta";
