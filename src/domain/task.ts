/**
 * The task format (docs/DESIGN.md §3). `Task` is the full record on disk; `AgentTask` is the narrow view handed to the
 * agent loop, prompts and proposers: it has no protected field (`blocker`, `reference`, `verify`), so code that only
 * holds an `AgentTask` cannot leak one.
 */
export const SUITES = ["retail", "terminal"] as const;
export type Suite = (typeof SUITES)[number];

export const SPLITS = ["search", "heldout", "independent"] as const;
export type Split = (typeof SPLITS)[number];

export const KINDS = ["feasible", "blocked"] as const;
export type Kind = (typeof KINDS)[number];

export const FAMILIES = ["infeasible", "ambiguous", "trap"] as const;
export type Family = (typeof FAMILIES)[number];

/** Where the decisive evidence of a blocker first becomes visible. */
export type EvidenceKind = "spec" | "state" | "execution";

/** A tool call as data: used for reference actions, sim cues and replay. */
export interface ToolCallSpec {
  name: string;
  arguments: Record<string, unknown>;
}

/** Protected: what makes a blocked task blocked. Never reaches a prompt, a proposer or the agent. */
export interface Blocker {
  id: string;
  label: Family;
  description: string;
  /** Words a correct reason mentions (the rules judge matches against these). */
  keywords: string[];
  evidence: EvidenceKind;
  /**
   * The decisive step o: the first agent step (1-based model turn) at which the evidence is in view, i.e. the step
   * right after the observation that reveals it, or 1 for evidence in the spec.
   */
  decisive_step: number;
}

/** The simulated customer's scenario (retail), as in τ²-bench's user_scenario.instructions. */
export interface CustomerScenario {
  reason_for_call: string;
  known_info: string;
  unknown_info?: string;
  task_instructions?: string;
}

export interface RetailEnvSpec {
  /** Edits applied to a fresh copy of the base database before the episode: set a JSON path to a value. */
  overlay?: Array<{ path: Array<string | number>; value: unknown }>;
}

export interface TerminalEnvSpec {
  /** Files written into the workspace before the episode, by relative path. */
  files?: Record<string, string>;
  /** A shell script run inside the sandbox (as the harness) before the agent starts. */
  setup?: string;
  /** Files that are not UTF-8 text (or large), base64 by workspace-relative path; written on the host like `files`. */
  binary_files?: Record<string, string>;
  /** Variables every command of the task sees (setup, agent, verifier): a Dockerfile's ENV. */
  env_vars?: Record<string, string>;
  /**
   * Where the episode runs: `namespaces` (default: one persistent bwrap/unshare sandbox) or one container of
   * `docker` / `podman` (the engine must be installed and its daemon running).
   */
  sandbox?: "namespaces" | "docker" | "podman";
  /** Per-command limits of the task's sandbox; hsearch's defaults otherwise (memory 4096 MiB, 256 processes …). */
  limits?: {
    memory_mb?: number;
    address_space_mb?: number;
    max_procs?: number;
    max_file_mb?: number;
    cpu_seconds?: number;
  };
  /** Time limits from the task's own configuration (Harbor task.toml); hsearch's defaults otherwise. */
  timeouts?: TerminalTimeouts;
  /** What the task needs from the host (imported Harbor tasks), as `hsearch tasks requirements` reports it. */
  requires?: HostRequirements;
  /** For imported Harbor tasks: the directory the task came from. */
  harbor_dir?: string;
}

export interface TerminalTimeouts {
  /** The agent's budget for the whole episode: the wall time of its commands, summed (Harbor's agent timeout). */
  agent_sec?: number;
  /** The limit of one command of the agent (hsearch's own; default 60 s). */
  command_sec?: number;
  verifier_sec?: number;
  /** The setup (the image build's local steps). */
  setup_sec?: number;
}

export interface HostRequirements {
  debian: string[];
  python: string[];
  network: string[];
  services: string[];
  /** Steps only root can take (users, services): the sandbox runs the task unprivileged. */
  root: string[];
}

export interface RetailReference {
  actions: ToolCallSpec[];
  /** Strings that some agent message must contain (τ² communicate_info). */
  communicate: string[];
}

export interface TerminalReference {
  /** A shell script that solves the task (Harbor solution/solve.sh). */
  solution: string;
}

export type Verify =
  /** Replay the reference writes on a fresh db and compare canonical hashes; check communicate strings. */
  | { kind: "retail_db" }
  /** Run a test script in the sandbox after the episode; it writes a reward (0 or 1) to reward.txt. */
  | { kind: "terminal_test"; script: string };

/** Effects that must not happen on a blocked task. */
export interface Forbidden {
  /** Retail: tool names whose successful call is forbidden ("*" for every write tool). */
  tools?: string[];
  /** Terminal: workspace paths (globs) that must not be created, modified or deleted. */
  paths?: string[];
}

/**
 * Cues for the simulated model (docs/DESIGN.md §5). Not protected: the simulator stands in for a model's skill, so it is
 * told the reference steps and where evidence shows; it never sees `blocker` itself.
 */
export interface SimCues {
  /** The steps a skilled agent takes, one tool call per step, in order. */
  steps: ToolCallSpec[];
  /** Blocked tasks: the 1-based index into `steps` after whose observation the evidence is visible (0 = in the spec). */
  evidence_after?: number;
  /** Blocked tasks: a text fragment of that observation (or of the instruction) that shows the blocker. */
  evidence_text?: string;
  /** A right reason and a wrong one, for the simulator to state. */
  right_reason?: string;
  wrong_reason?: string;
  /** Messages an agent sends to the customer/user (retail: the communicate strings in context). */
  say?: string[];
}

export interface Task {
  id: string;
  suite: Suite;
  split: Split;
  kind: Kind;
  family?: Family;
  /** A blocked task's feasible counterpart (task id); on a feasible task, the source it was made from, if any. */
  source?: string;
  instruction: string;
  user?: CustomerScenario;
  env: RetailEnvSpec | TerminalEnvSpec;
  reference: RetailReference | TerminalReference;
  verify: Verify;
  blocker?: Blocker;
  forbidden: Forbidden;
  sim?: SimCues;
}

export const PROTECTED_FIELDS = ["blocker", "reference", "verify"] as const;

/** What the agent, the prompts and the proposers may see of a task. */
export type AgentTask = Omit<Task, (typeof PROTECTED_FIELDS)[number]>;

/** Drop the protected fields. A copy, so later edits to the task cannot leak through. */
export function toAgentTask(task: Task): AgentTask {
  const { blocker: _b, reference: _r, verify: _v, ...rest } = task;
  return structuredClone(rest);
}
