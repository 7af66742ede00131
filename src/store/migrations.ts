/**
 * SQLite cannot change a column's CHECK in place: the table is made anew with `columns`, the `copied` columns of
 * every row are copied over, and the new table takes the old one's name.
 */
function rebuildTable(table: string, columns: string, copied: readonly string[]): string {
  const list = copied.join(", ");
  return `
  CREATE TABLE ${table}_rebuilt (${columns});
  INSERT INTO ${table}_rebuilt (${list}) SELECT ${list} FROM ${table};
  DROP TABLE ${table};
  ALTER TABLE ${table}_rebuilt RENAME TO ${table};
  `;
}

/** The run table's leading columns, the same in every version (its first included). */
const RUN_IDENTITY_COLUMNS = `
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    created_at TEXT NOT NULL,
    config_json TEXT NOT NULL,
    config_hash TEXT NOT NULL,
    seed INTEGER NOT NULL`;

/** The run table from version 3 on; `objective` is the objective column's definition. */
function runColumns(objective: string): string {
  return `${RUN_IDENTITY_COLUMNS},
    ${objective},
    state TEXT NOT NULL CHECK (state IN ('running', 'finished', 'failed', 'budget_exhausted')),
    ended_at TEXT,
    error TEXT,
    active_ms INTEGER NOT NULL DEFAULT 0`;
}

const RUN_V1_COLUMNS = [
  "singleton",
  "id",
  "name",
  "created_at",
  "config_json",
  "config_hash",
  "seed",
  "objective",
  "state",
  "ended_at",
  "error",
];

/**
 * The run database schema as ordered migrations: migration i (0-based) brings the database to version i + 1. Append
 * new steps; never change what a released one does, since old run.db files replay only the steps they have not seen.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE run (${RUN_IDENTITY_COLUMNS},
    objective TEXT NOT NULL CHECK (objective IN ('sa-only', 'joint')),
    state TEXT NOT NULL CHECK (state IN ('running', 'finished', 'failed')),
    ended_at TEXT,
    error TEXT
  );

  CREATE TABLE candidates (
    commit_sha TEXT PRIMARY KEY,
    round INTEGER NOT NULL CHECK (round >= 0),
    proposal INTEGER NOT NULL CHECK (proposal >= 0),
    parent_commit TEXT REFERENCES candidates (commit_sha),
    branch TEXT NOT NULL,
    proposer TEXT NOT NULL,
    rationale TEXT NOT NULL,
    tree_hash TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending'
      CHECK (state IN ('pending', 'evaluated', 'rejected', 'skipped_duplicate', 'invalid')),
    rejected_reason TEXT,
    duplicate_of TEXT REFERENCES candidates (commit_sha),
    score REAL,
    summary_json TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (round, proposal)
  );
  CREATE INDEX candidates_tree ON candidates (tree_hash);

  -- Proposals that never became a commit (a refused path, an invalid model reply): memory for the proposer.
  CREATE TABLE proposal_failures (
    round INTEGER NOT NULL,
    proposal INTEGER NOT NULL,
    proposer TEXT NOT NULL,
    rationale TEXT NOT NULL,
    reason TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (round, proposal)
  );

  CREATE TABLE rounds (
    round INTEGER PRIMARY KEY CHECK (round >= 0),
    incumbent_before TEXT NOT NULL REFERENCES candidates (commit_sha),
    incumbent_after TEXT REFERENCES candidates (commit_sha),
    accepted_commit TEXT REFERENCES candidates (commit_sha),
    decision_json TEXT,
    started_at TEXT NOT NULL,
    ended_at TEXT
  );

  -- One row per rollout. (purpose, key) is unique so a resumed run never stores a rollout twice. A search rollout
  -- is always on the search split: the search view relies on it.
  CREATE TABLE rollouts (
    key TEXT NOT NULL,
    purpose TEXT NOT NULL CHECK (purpose IN ('search', 'heldout', 'independent', 'diagnostic')),
    candidate_commit TEXT NOT NULL REFERENCES candidates (commit_sha),
    task_id TEXT NOT NULL,
    split TEXT NOT NULL CHECK (split IN ('search', 'heldout', 'independent')),
    kind TEXT NOT NULL CHECK (kind IN ('feasible', 'blocked')),
    family TEXT,
    model TEXT NOT NULL,
    seed INTEGER NOT NULL,
    repeat INTEGER NOT NULL,
    scores_json TEXT NOT NULL,
    reward REAL,
    end_reason TEXT NOT NULL,
    steps INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    usd REAL NOT NULL,
    model_calls INTEGER NOT NULL,
    infra_error TEXT,
    trajectory_file TEXT NOT NULL,
    trajectory_offset INTEGER NOT NULL,
    trajectory_length INTEGER NOT NULL,
    trajectory_sha256 TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (purpose, key),
    CHECK ((purpose = 'search') = (split = 'search')),
    CHECK (purpose IN ('search', 'diagnostic') OR purpose = split)
  );
  CREATE INDEX rollouts_candidate ON rollouts (candidate_commit, purpose);

  -- Held-out, independent and diagnostic summaries; search scores live on candidates.
  CREATE TABLE evaluations (
    candidate_commit TEXT NOT NULL REFERENCES candidates (commit_sha),
    purpose TEXT NOT NULL CHECK (purpose IN ('heldout', 'independent', 'diagnostic')),
    split TEXT NOT NULL CHECK (split IN ('heldout', 'independent')),
    round INTEGER,
    summary_json TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (candidate_commit, purpose, split)
  );

  -- Model calls outside rollouts (proposer, judge, probes); the task model's usage is summed from rollouts.
  CREATE TABLE model_calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    call_key TEXT UNIQUE,
    role TEXT NOT NULL,
    model TEXT NOT NULL,
    round INTEGER,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    usd REAL NOT NULL,
    created_at TEXT NOT NULL
  );

  CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    json TEXT NOT NULL
  );
  `,
  `
  -- Acceptance verdicts apart from candidate states: an indecisive paired test or a screened-out proposal is not
  -- the same as a rejection (docs/DESIGN.md §7).
  ALTER TABLE candidates ADD COLUMN verdict TEXT
    CHECK (verdict IS NULL OR verdict IN ('accepted', 'rejected', 'indecisive', 'screened_out'));
  `,
  `
  -- A run that hit a budget limit stops in its own state (resumable with a larger budget), and the run counts its
  -- active time over sessions for budget.max_minutes.
  ${rebuildTable("run", runColumns("objective TEXT NOT NULL CHECK (objective IN ('sa-only', 'joint'))"), RUN_V1_COLUMNS)}
  `,
  `
  -- The objective is checked where it is defined (scoring/objective.ts, a zod enum) when the run is read back, so
  -- that adding an objective touches one file: the column no longer carries its own copy of the list.
  ${rebuildTable("run", runColumns("objective TEXT NOT NULL"), [...RUN_V1_COLUMNS, "active_ms"])}
  `,
  `
  -- Usage per role (agent, proposer, judge, customer) and model, per session of the run (each start or resume is a
  -- session): calls that reached the provider with their tokens and cost, calls answered by the request cache
  -- apart, and provider prompt-cache tokens. usd is NULL when the model has no price: unknown, not 0.
  CREATE TABLE role_usage (
    session INTEGER NOT NULL,
    role TEXT NOT NULL,
    model TEXT NOT NULL,
    calls INTEGER NOT NULL,
    cached_calls INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    usd REAL,
    PRIMARY KEY (session, role, model)
  );
  -- Runs from before: the task model's usage as its rollouts recorded it, the rest from model_calls (session 0).
  INSERT OR IGNORE INTO role_usage
    SELECT 0, 'agent', model, SUM(model_calls), 0, SUM(input_tokens), SUM(output_tokens), 0, 0, SUM(usd)
      FROM rollouts GROUP BY model;
  INSERT OR IGNORE INTO role_usage
    SELECT 0, role, model, COUNT(*), 0, SUM(input_tokens), SUM(output_tokens), 0, 0, SUM(usd)
      FROM model_calls GROUP BY role, model;
  `,
  `
  -- A run directory holds a search (hsearch run) or an evaluation (hsearch eval, probe beliefs, probe challenge):
  -- the column kind says which, checked in code (store/records.ts) like the objective. An evaluation has no objective.
  ${rebuildTable("run", `${runColumns("objective TEXT")},\n    kind TEXT NOT NULL DEFAULT 'search'`, [...RUN_V1_COLUMNS, "active_ms"])}

  -- A probe's episodes (belief, challenge): the task, the probe's result for it as JSON, and where its trajectory
  -- line is; (probe, key) is unique, so a resumed probe never stores an episode twice.
  CREATE TABLE probe_episodes (
    probe TEXT NOT NULL,
    key TEXT NOT NULL,
    candidate_commit TEXT NOT NULL REFERENCES candidates (commit_sha),
    task_id TEXT NOT NULL,
    split TEXT NOT NULL,
    kind TEXT NOT NULL,
    family TEXT,
    model TEXT NOT NULL,
    seed INTEGER NOT NULL,
    repeat INTEGER NOT NULL,
    result_json TEXT NOT NULL,
    trajectory_file TEXT NOT NULL,
    trajectory_offset INTEGER NOT NULL,
    trajectory_length INTEGER NOT NULL,
    trajectory_sha256 TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (probe, key)
  );
  `,
  `
  -- Parameters a model's provider rejected during the run (models/parameter-fallback.ts): left out of (or renamed
  -- in) every later call of that model, and on a resume from its first call. One row per model and parameter.
  CREATE TABLE rejected_parameters (
    model TEXT NOT NULL,
    parameter TEXT NOT NULL,
    replacement TEXT,
    role TEXT NOT NULL,
    message TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (model, parameter)
  );
  `,
  `
  -- A rollout whose every model call (the agent's and the retail customer's) the request cache answered cost
  -- nothing: budget.max_rollouts counts the other (paid) rollouts, and status shows both. Rollouts from before: 0.
  ALTER TABLE rollouts ADD COLUMN from_cache INTEGER NOT NULL DEFAULT 0 CHECK (from_cache IN (0, 1));
  `,
  `
  -- The suite of a rollout's task (a built-in suite or a plug-in's), from its trajectory: comparisons group by it
  -- instead of guessing from the task id. NULL in rows stored before; the store reads those from the trajectory line.
  ALTER TABLE rollouts ADD COLUMN suite TEXT;
  `,
];
