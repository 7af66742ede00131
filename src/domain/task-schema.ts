import { z } from "zod";
import { relativePathProblem } from "../core/contained-path";
import { FAMILIES, KINDS, SPLITS, SUITES } from "./task";

/** zod schema of one task file (docs/DESIGN.md §3); mirrors `Task` in src/domain/task.ts. */
const toolCall = z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) }).strict();

const blocker = z
  .object({
    id: z.string().min(1),
    label: z.enum(FAMILIES),
    description: z.string().min(1),
    keywords: z.array(z.string().min(1)).min(1),
    evidence: z.enum(["spec", "state", "execution"]),
    decisive_step: z.number().int().min(1),
  })
  .strict();

const customer = z
  .object({
    reason_for_call: z.string().min(1),
    known_info: z.string(),
    unknown_info: z.string().optional(),
    task_instructions: z.string().optional(),
  })
  .strict();

const retailEnv = z
  .object({
    overlay: z
      .array(
        z.object({ path: z.array(z.union([z.string(), z.number()])).min(1), value: z.unknown() }).strict(),
      )
      .optional(),
  })
  .strict();

const terminalEnv = z
  .object({
    files: z.record(z.string(), z.string()).optional(),
    setup: z.string().optional(),
    binary_files: z.record(z.string(), z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "base64")).optional(),
    env_vars: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a variable name"), z.string())
      .optional(),
    timeouts: z
      .object({
        agent_sec: z.number().positive().optional(),
        command_sec: z.number().positive().optional(),
        verifier_sec: z.number().positive().optional(),
        setup_sec: z.number().positive().optional(),
      })
      .strict()
      .optional(),
    requires: z
      .object({
        debian: z.array(z.string()),
        python: z.array(z.string()),
        network: z.array(z.string()),
        services: z.array(z.string()),
        root: z.array(z.string()),
      })
      .strict()
      .optional(),
    harbor_dir: z.string().optional(),
    sandbox: z.enum(["namespaces", "docker", "podman"]).optional(),
    limits: z
      .object({
        memory_mb: z.number().int().positive().optional(),
        address_space_mb: z.number().int().positive().optional(),
        max_procs: z.number().int().positive().optional(),
        max_file_mb: z.number().int().positive().optional(),
        cpu_seconds: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const retailReference = z.object({ actions: z.array(toolCall), communicate: z.array(z.string()) }).strict();
const terminalReference = z.object({ solution: z.string().min(1) }).strict();

const verify = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("retail_db") }).strict(),
  z.object({ kind: z.literal("terminal_test"), script: z.string().min(1) }).strict(),
]);

const simCues = z
  .object({
    steps: z.array(toolCall),
    evidence_after: z.number().int().min(0).optional(),
    evidence_text: z.string().optional(),
    right_reason: z.string().optional(),
    wrong_reason: z.string().optional(),
    say: z.array(z.string()).optional(),
  })
  .strict();

export const taskSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "a task id is letters, digits, '.', '_' or '-'"),
    suite: z.enum(SUITES),
    split: z.enum(SPLITS),
    kind: z.enum(KINDS),
    family: z.enum(FAMILIES).optional(),
    source: z.string().optional(),
    instruction: z.string().min(1),
    user: customer.optional(),
    env: z.union([retailEnv, terminalEnv]),
    reference: z.union([retailReference, terminalReference]),
    verify,
    blocker: blocker.optional(),
    forbidden: z
      .object({ tools: z.array(z.string()).optional(), paths: z.array(z.string()).optional() })
      .strict(),
    sim: simCues.optional(),
  })
  .strict()
  .superRefine((task, ctx) => {
    // A workspace file is a plain relative path: the same rule for `tasks validate`, `eval` and `run`.
    for (const path of Object.keys(("files" in task.env && task.env.files) || {})) {
      const problem = relativePathProblem(path);
      if (problem)
        ctx.addIssue({
          code: "custom",
          path: ["env", "files", path],
          message: `workspace path '${path}' refused: ${problem}`,
        });
    }
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
    const wantVerify = task.suite === "retail" ? "retail_db" : "terminal_test";
    if (task.verify.kind !== wantVerify)
      ctx.addIssue({
        code: "custom",
        path: ["verify", "kind"],
        message: `a ${task.suite} task is verified by ${wantVerify}`,
      });
    const hasActions = "actions" in task.reference;
    if ((task.suite === "retail") !== hasActions)
      ctx.addIssue({
        code: "custom",
        path: ["reference"],
        message:
          task.suite === "retail"
            ? "a retail reference has actions and communicate"
            : "a terminal reference has a solution",
      });
  });
