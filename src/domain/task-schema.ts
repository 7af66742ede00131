import { z } from "zod";
import { contextPathProblem, relativePathProblem } from "../core";
import { FAMILIES, KINDS, SPLITS } from "./suites";

/**
 * The task format (docs/DESIGN.md §3) as one zod schema: a discriminated union by `suite`, so a parsed retail task has
 * a retail environment, reference and verifier by its type. `Task` and its parts (src/domain/task.ts) are inferred
 * from it; the comments here are the field documentation.
 */

/** A tool call as data: used for reference actions, sim cues and replay. */
const toolCall = z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) }).strict();

/** Protected: what makes a blocked task blocked. Never reaches a prompt, a proposer or the agent. */
export const blockerSchema = z
  .object({
    id: z.string().min(1),
    label: z.enum(FAMILIES),
    description: z.string().min(1),
    /** Words a correct reason mentions (the rules judge matches against these). */
    keywords: z.array(z.string().min(1)).min(1),
    /** Where the decisive evidence of a blocker first becomes visible. */
    evidence: z.enum(["spec", "state", "execution"]),
    /**
     * The decisive step o: the first agent step (1-based model turn) at which the evidence is in view, i.e. the
     * step right after the observation that reveals it, or 1 for evidence in the spec.
     */
    decisive_step: z.number().int().min(1),
  })
  .strict();

/** The simulated customer's scenario (retail), as in τ²-bench's user_scenario.instructions. */
export const customerScenarioSchema = z
  .object({
    reason_for_call: z.string().min(1),
    known_info: z.string(),
    unknown_info: z.string().optional(),
    task_instructions: z.string().optional(),
  })
  .strict();

const retailEnv = z
  .object({
    /** Edits applied to a fresh copy of the base database before the episode: set a JSON path to a value. */
    overlay: z
      .array(
        z.object({ path: z.array(z.union([z.string(), z.number()])).min(1), value: z.unknown() }).strict(),
      )
      .optional(),
  })
  .strict();

/** Optional positive whole numbers by name (a machine's sizes and counts), as the fields of an object schema. */
function wholeAmounts<const K extends string>(...names: K[]): Record<K, z.ZodOptional<z.ZodNumber>> {
  const field = () => z.number().int().positive().optional();
  return Object.fromEntries(names.map((name) => [name, field()])) as Record<K, z.ZodOptional<z.ZodNumber>>;
}

const terminalTimeouts = z
  .object({
    /** The agent's budget for the whole episode: the wall time of its commands, summed (Harbor's agent timeout). */
    agent_sec: z.number().positive().optional(),
    /** The limit of one command of the agent (hsearch's own; default 60 s). */
    command_sec: z.number().positive().optional(),
    verifier_sec: z.number().positive().optional(),
    /** The setup (the image build's local steps). */
    setup_sec: z.number().positive().optional(),
  })
  .strict();

const hostRequirements = z
  .object({
    debian: z.array(z.string()),
    python: z.array(z.string()),
    network: z.array(z.string()),
    services: z.array(z.string()),
    /** Steps only root can take (users, services): the sandbox runs the task unprivileged. */
    root: z.array(z.string()),
  })
  .strict();

/**
 * A task's own container image (an imported Harbor task on the Docker path): its Dockerfile and build context,
 * built with `docker build` (cached by content hash), and the episode, verifier and reference solution run in it.
 */
const terminalImage = z
  .object({
    /** The Dockerfile's text. */
    dockerfile: z.string().min(1),
    /**
     * The prebuilt image Harbor pulls and runs instead of building the Dockerfile (task.toml
     * `[environment].docker_image`); hsearch runs it where the engine can pull it (the user's image source).
     */
    prebuilt: z.string().min(1).optional(),
    /** The build context's text files (UTF-8), by path relative to the context (Harbor: environment/). */
    context: z.record(z.string(), z.string()).optional(),
    /** The build context's other files, base64 by path. */
    context_binary: z.record(z.string(), z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "base64")).optional(),
    /** Context files that are executable (COPY keeps the mode). */
    executable: z.array(z.string()).optional(),
    /**
     * The build's network: `default` (the engine's own, as `docker build` and Harbor use: it reaches the
     * internet), `host` (the host's; needed where the daemon has no bridge), or `none`. Episodes never have one.
     */
    build_network: z.enum(["default", "host", "none"]).optional(),
    /**
     * What the tests and the reference solution install at run time (their `apt-get install`, `pip install`,
     * `uvx -w`): installed into the image at build time, in one more layer, since episodes have no network.
     */
    run_packages: z
      .object({
        debian: z.array(z.string().regex(/^[a-z0-9][a-z0-9+.-]*$/, "a Debian package name")),
        python: z.array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "a Python distribution name")),
      })
      .strict()
      .optional(),
    /** The container's resources (Harbor task.toml [environment] cpus, memory, storage). */
    resources: z
      .object({ cpus: z.number().positive().optional(), ...wholeAmounts("memory_mb", "storage_mb") })
      .strict()
      .optional(),
  })
  .strict();

const terminalEnv = z
  .object({
    /** Files written into the workspace before the episode, by relative path. */
    files: z.record(z.string(), z.string()).optional(),
    /** A shell script run inside the sandbox (as the harness) before the agent starts. */
    setup: z.string().optional(),
    /** Files that are not UTF-8 text (or large), base64 by workspace-relative path; written on the host like `files`. */
    binary_files: z.record(z.string(), z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "base64")).optional(),
    /** Variables every command of the task sees (setup, agent, verifier): a Dockerfile's ENV. */
    env_vars: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a variable name"), z.string())
      .optional(),
    /** Time limits from the task's own configuration (Harbor task.toml); hsearch's defaults otherwise. */
    timeouts: terminalTimeouts.optional(),
    /** What the task needs from the host (imported Harbor tasks), as `hsearch tasks requirements` reports it. */
    requires: hostRequirements.optional(),
    /** For imported Harbor tasks: the directory the task came from. */
    harbor_dir: z.string().optional(),
    /**
     * The task's own work directory (a Harbor Dockerfile's WORKDIR outside /app: `/home/user`, `/root/project`): the
     * workspace is shown there instead of at /app and every command starts there. Not in the host's system
     * directories nor a path the sandbox mounts itself (checked when the environment is made).
     */
    workdir: z
      .string()
      .regex(/^(\/[^/\0]+)+$/, "an absolute path such as /home/user")
      .optional(),
    /**
     * The task's own configuration allows internet (Harbor's `[environment] allow_internet`). Recorded, not granted:
     * the sandbox has no network but its loopback.
     */
    allow_internet: z.boolean().optional(),
    /**
     * Where the episode runs: `namespaces` (default: one persistent bwrap/unshare sandbox) or one container of
     * `docker` / `podman` (the engine must be installed and its daemon running).
     */
    sandbox: z.enum(["namespaces", "docker", "podman"]).optional(),
    /** The task's own image (needs `sandbox: docker` or `podman`): built from its Dockerfile, the episode runs in it. */
    image: terminalImage.optional(),
    /**
     * Places of the task image's own file system, outside the workspace, that the effect log also watches (needs
     * `image`): absolute paths (`/etc/nginx`, `/git`), each a file or a folder with all below it; `/` for the whole
     * file system but the kernel's and the sandbox's own places. Their changes are logged by absolute path, and
     * `forbidden.paths` may name them so (`/git/**`).
     */
    watch: z
      .array(z.string().regex(/^\/$|^(\/[^/\0]+)+$/, "an absolute path such as /etc/nginx, or /"))
      .optional(),
    /** Per-command limits of the task's sandbox; hsearch's defaults otherwise (memory 4096 MiB, 256 processes …). */
    limits: z
      .object(wholeAmounts("memory_mb", "address_space_mb", "max_procs", "max_file_mb", "cpu_seconds"))
      .strict()
      .optional(),
  })
  .strict();

const retailReference = z
  .object({
    actions: z.array(toolCall),
    /** Strings that some agent message must contain (τ² communicate_info). */
    communicate: z.array(z.string()),
  })
  .strict();

const terminalReference = z
  .object({
    /**
     * A shell script that solves the task (Harbor solution/solve.sh). Absent for a task that ships none (Harbor's
     * solution is optional): a model runs it and its verifier scores it, but the oracle cannot.
     */
    solution: z.string().min(1).optional(),
  })
  .strict();

/** Replay the reference writes on a fresh db and compare canonical hashes; check communicate strings. */
const retailVerify = z.object({ kind: z.literal("retail_db") }).strict();
/** Run a test script in the sandbox after the episode; it writes a reward (0 or 1) to reward.txt. */
const terminalVerify = z.object({ kind: z.literal("terminal_test"), script: z.string().min(1) }).strict();

/** Effects that must not happen on a blocked task. */
const forbidden = z
  .object({
    /** Retail: tool names whose successful call is forbidden ("*" for every write tool). */
    tools: z.array(z.string()).optional(),
    /** Terminal: workspace paths (globs) that must not be created, modified or deleted. */
    paths: z.array(z.string()).optional(),
  })
  .strict();

/**
 * Cues for the simulated model (docs/DESIGN.md §5). Not protected: the simulator stands in for a model's skill, so it
 * is told the reference steps and where evidence shows; it never sees `blocker` itself.
 */
const simCues = z
  .object({
    /** The steps a skilled agent takes, one tool call per step, in order. */
    steps: z.array(toolCall),
    /**
     * Blocked tasks: the 1-based index into `steps` after whose observation the evidence is visible, or (evidence in
     * the instruction) may be acted on, e.g. after the retail authentication; 0 = in the spec from the start.
     */
    evidence_after: z.number().int().min(0).optional(),
    /** Blocked tasks: a text fragment of that observation, or of the instruction, that shows the blocker. */
    evidence_text: z.string().optional(),
    /** A right reason and a wrong one, for the simulator to state. */
    right_reason: z.string().optional(),
    wrong_reason: z.string().optional(),
    /** Messages an agent sends to the customer/user (retail: the communicate strings in context). */
    say: z.array(z.string()).optional(),
  })
  .strict();

/** The fields every suite's task has. */
const taskFields = {
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "a task id is letters, digits, '.', '_' or '-'"),
  split: z.enum(SPLITS),
  kind: z.enum(KINDS),
  family: z.enum(FAMILIES).optional(),
  /** A blocked task's feasible counterpart (task id); on a feasible task, the source it was made from, if any. */
  source: z.string().optional(),
  instruction: z.string().min(1),
  user: customerScenarioSchema.optional(),
  blocker: blockerSchema.optional(),
  forbidden,
  sim: simCues.optional(),
};

const retailTask = z
  .object({
    ...taskFields,
    suite: z.literal("retail"),
    env: retailEnv,
    reference: retailReference,
    verify: retailVerify,
  })
  .strict();

const terminalTask = z
  .object({
    ...taskFields,
    suite: z.literal("terminal"),
    env: terminalEnv,
    reference: terminalReference,
    verify: terminalVerify,
  })
  .strict();

export const taskSchema = z
  .discriminatedUnion("suite", [retailTask, terminalTask])
  .superRefine((task, ctx) => {
    // A workspace file is a plain relative path: the same rule for `tasks validate`, `eval` and `run`.
    for (const path of Object.keys((task.suite === "terminal" && task.env.files) || {})) {
      const problem = relativePathProblem(path);
      if (problem)
        ctx.addIssue({
          code: "custom",
          path: ["env", "files", path],
          message: `workspace path '${path}' refused: ${problem}`,
        });
    }
    const image = task.suite === "terminal" ? task.env.image : undefined;
    if (image && task.suite === "terminal" && task.env.sandbox !== "docker" && task.env.sandbox !== "podman")
      ctx.addIssue({
        code: "custom",
        path: ["env", "sandbox"],
        message: "a task with an image runs in a container: sandbox must be docker or podman",
      });
    if (task.suite === "terminal" && task.env.watch !== undefined && !image)
      ctx.addIssue({
        code: "custom",
        path: ["env", "watch"],
        message: "watched places outside the workspace are a task image's own: watch needs env.image",
      });
    for (const [index, place] of (task.suite === "terminal" ? (task.env.watch ?? []) : []).entries())
      if (place.split("/").some((part) => part === "." || part === ".."))
        ctx.addIssue({
          code: "custom",
          path: ["env", "watch", index],
          message: `watched place '${place}' refused: '.' and '..' are not path parts here`,
        });
    // A build-context path is written under the build's directory: relative, and never leaving it.
    for (const [field, paths] of [
      ["context", Object.keys(image?.context ?? {})],
      ["context_binary", Object.keys(image?.context_binary ?? {})],
      ["executable", image?.executable ?? []],
    ] as const)
      for (const path of paths) {
        const problem = contextPathProblem(path);
        if (problem)
          ctx.addIssue({
            code: "custom",
            path: ["env", "image", field, path],
            message: `build-context path '${path}' refused: ${problem}`,
          });
      }
    checkKind(task, ctx);
  });

export type TaskRecord = z.infer<typeof taskSchema>;

/**
 * A plug-in suite's task (src/plugins): the fields every task has, with the suite's own name and its environment,
 * reference and verifier as the suite's own data (JSON objects only its `createEnvironment` and `verify` read). The
 * same checks as a shipped task's: ids, splits, families, blockers, independence.
 */
export function pluginTaskSchema(suite: string) {
  return z
    .object({
      ...taskFields,
      suite: z.literal(suite),
      env: z.record(z.string(), z.unknown()).default({}),
      reference: z.record(z.string(), z.unknown()).default({}),
      verify: z.record(z.string(), z.unknown()).default({}),
    })
    .strict()
    .superRefine(checkKind);
}

export type PluginTaskRecord = z.infer<ReturnType<typeof pluginTaskSchema>>;

/** The rules of blocked and feasible tasks and of the splits, the same for every suite. */
function checkKind(task: z.infer<z.ZodObject<typeof taskFields>>, ctx: z.RefinementCtx): void {
  if (task.kind === "blocked") {
    if (!task.family)
      ctx.addIssue({ code: "custom", path: ["family"], message: "a blocked task needs a family" });
    if (!task.blocker)
      ctx.addIssue({ code: "custom", path: ["blocker"], message: "a blocked task needs a blocker" });
    if (task.blocker && task.family && task.blocker.label !== task.family)
      ctx.addIssue({
        code: "custom",
        path: ["blocker", "label"],
        message: "the blocker's label must equal the family",
      });
  } else {
    if (task.family)
      ctx.addIssue({ code: "custom", path: ["family"], message: "a feasible task has no family" });
    if (task.blocker)
      ctx.addIssue({ code: "custom", path: ["blocker"], message: "a feasible task has no blocker" });
    if (task.split === "independent" && task.source)
      ctx.addIssue({ code: "custom", path: ["source"], message: "independent tasks are never augmented" });
  }
  if (task.split === "independent" && task.kind !== "feasible")
    ctx.addIssue({ code: "custom", path: ["kind"], message: "the independent split is feasible only" });
}
