import { planStudy, resumeStudy, runStudy, STUDY_ROLES, type StudyEvent, type StudyPlan } from "../api";
import { defineCommand } from "./command-list";
import type { CliIO } from "./io";
import { fileAndOutOptions } from "./shared";
import { createLiveLine } from "./text/progress";
import { formatTable } from "./text/table";
import { checkWholeNumber, usageError } from "./usage-error";

export const register = defineCommand("study", {
  options: (yargs) =>
    fileAndOutOptions(
      yargs,
      "study",
      "the study file (YAML)",
      "the study directory (default: runs/study-<name>-…)",
    )
      .option("only", {
        type: "string",
        array: true,
        describe: "only these benchmarks, by name (retail, terminal, …); repeatable",
      })
      .option("plan", {
        type: "boolean",
        default: false,
        describe: "print every step's rollouts and model calls at most and run nothing",
      })
      .option("resume", { type: "string", describe: "continue the study in this directory" })
      .option("steps-at-once", {
        type: "number",
        default: 2,
        describe: "steps that do not depend on each other run this many at once",
      })
      .option("json", { type: "boolean", default: false, describe: "print the plan or the result as JSON" })
      .check((argv) => {
        if (argv.resume !== undefined && (argv.study !== undefined || argv.out !== undefined))
          throw usageError("--resume takes the study from its directory; give no study file or --out");
        if (argv.resume !== undefined && argv.plan)
          throw usageError("--plan takes a study file, not --resume");
        checkWholeNumber("steps-at-once", argv["steps-at-once"], 1);
        return true;
      }),
  run: async (argv, io) => {
    const only = argv.only?.map(String);
    if (argv.plan) {
      const plan = await planStudy(argv.study, { cwd: io.cwd, ...(only ? { only } : {}) });
      io.out(argv.json ? JSON.stringify(plan, null, 2) : renderPlan(plan));
      return;
    }
    const options = {
      cwd: io.cwd,
      env: io.env,
      ...(only ? { only } : {}),
      stepsAtOnce: argv["steps-at-once"],
    };
    const handle =
      argv.resume !== undefined
        ? resumeStudy(argv.resume, options)
        : runStudy(argv.study, { ...options, ...(argv.out !== undefined ? { out: argv.out } : {}) });
    const live = createLiveLine(io);
    handle.on(printer(io, live));
    let result: Awaited<typeof handle.result>;
    try {
      result = await handle.result;
    } finally {
      live.clear();
    }
    if (argv.json) {
      const { tables, ...rest } = result;
      io.out(JSON.stringify({ ...rest, tables: tables.map((t) => t.id) }, null, 2));
      return;
    }
    io.out(
      [
        `study finished: ${result.tables.length} tables and figures in ${result.reportDir}`,
        `  report: ${result.reportDir}/index.html · steps: ${result.reportDir}/steps.html`,
        `  content hash ${result.hash}`,
        `  spent: ${result.spent.reduce((sum, s) => sum + s.rollouts, 0)} rollouts (planned at most ${result.plan.total.rollouts})`,
      ].join("\n"),
    );
  },
});

function printer(io: CliIO, live: ReturnType<typeof createLiveLine>): (event: StudyEvent) => void {
  // The latest share and time left, printed with each finished step so a log (no terminal) shows them too.
  let whole = "";
  return (event) => {
    switch (event.type) {
      case "started":
        live.print(
          `hsearch study: ${event.steps} steps in ${event.dir}${event.alreadyDone ? ` (${event.alreadyDone} done before)` : ""}; at most ${event.plan.total.rollouts} rollouts`,
        );
        return;
      case "step":
        if (event.state === "finished") live.print(`  done: ${event.step} (${event.label})${whole}`);
        return;
      case "progress": {
        const left = event.secondsLeft === null ? "" : ` · ${formatSeconds(event.secondsLeft)} left`;
        whole = ` · ${(event.share * 100).toFixed(1)} % of the study${left}`;
        if (io.isTTY) live.show(`${event.step}${whole}`);
        return;
      }
      case "message":
        if (!io.isTTY) io.err(event.text);
        return;
      case "finished":
        return;
    }
  };
}

function formatSeconds(seconds: number): string {
  const s = Math.round(seconds);
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

export function renderPlan(plan: StudyPlan): string {
  const { total } = plan;
  // CONVOLVE's reflector and curator get columns when a study has them on models.
  const roles = STUDY_ROLES.filter(
    (role) => (role !== "reflector" && role !== "curator") || total.calls[role] > 0,
  );
  const rows = [...plan.steps, { id: "total", ...total }].map((step) => [
    step.id,
    String(step.rollouts),
    ...roles.map((role) => String(step.calls[role])),
  ]);
  return [
    `study ${plan.name} (${plan.file}): ${plan.steps.length} steps, at most:`,
    formatTable(["step", "rollouts", ...roles.map((role) => `${role} calls`)], rows),
    "",
    `steps that can run together: ${plan.waves.map((wave) => wave.length).join(" → ")}`,
    "Bounds: no run of the study spends more; a step after a search bounds the selected harness by the harness schema's step limits.",
  ].join("\n");
}
