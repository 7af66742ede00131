/**
 * How an episode's sandbox is started: one backend per path (sandbox-backends.ts is the list). A backend lays out
 * what its path needs, starts the supervisor and hands it to `SandboxSession.open`; framing commands and replies is
 * the session's, the same for every backend.
 */

import type { HostEntry } from "./sandbox-plan";
import type { SandboxSession, SessionOptions } from "./sandbox-session";
import type { SessionPaths } from "./session-plan";

/** What every backend starts from: the options, the episode's host paths (made) and the host's root entries. */
export interface BackendStart {
  options: SessionOptions;
  paths: SessionPaths;
  entries: HostEntry[];
  /** Whether the episode shows the host's /var/lib (see `startSandboxSession`). */
  hasVarLib: boolean;
}

export interface SandboxBackend {
  /** The path's name in messages and docs. */
  readonly name: string;
  /** Whether these options ask for this backend's path (the first backend of the list that accepts runs it). */
  accepts(options: SessionOptions): boolean;
  start(input: BackendStart): Promise<SandboxSession>;
}
