import type { Argv } from "yargs";
import { openRunStore } from "../store";
import { type RunStatus, runStatus } from "../store/run-status";
import type { CliIO } from "./io";
import type { SetExitCode } from "./shared";
import { locateRun } from "./shared";
import { fmtRate, formatTable } from "./table";

export function register(parser: Argv, io: CliIO, _setExitCode: SetExitCode): void {
  parser.command(
    "status <run>",
    "Rounds, proposals, scores, incumbent, held-out results and usage of a run",
    (yargs) =>
      yargs
        .positional("run", { type: "string", demandOption: true, describe: "run id or directory" })
        .option("json", { type: "boolean", default: false }),
    async (argv) => {
      const store = openRunStore(locateRun(argv.run, io.cwd), { readonly: true });
      try {
        const status = runStatus(store);
        io.out(argv.json ? JSON.stringify(status, null, 2) : renderStatus(status));
      } finally {
        store.close();
      }
    },
  );
}

/** The round table as `hsearch run` and `hsearch status` print it. */
export function renderStatus(status: RunStatus): string {
  const lines = [
    `run ${status.run} · ${status.state} · objective ${status.objective} · seed ${status.seed}`,
    "",
  ];
  const rows: string[][] = [];
  for (const round of status.rounds) {
    for (const p of round.proposals) {
      const verdict = p.accepted
        ? round.round === 0
          ? "seed"
          : "ACCEPTED"
        : (p.verdict ?? (p.state === "evaluated" ? "pending" : p.state));
      rows.push([
        String(round.round),
        p.id,
        p.commit.slice(0, 10),
        fmtRate(p.score),
        verdict,
        truncate(p.rejected_reason ? `${p.rationale} [${p.rejected_reason}]` : p.rationale, 90),
      ]);
    }
    if (round.proposals.length === 0 && round.failures.length === 0)
      rows.push([String(round.round), "-", "-", "-", "none", "no new proposal from this incumbent"]);
    for (const f of round.failures)
      rows.push([
        String(round.round),
        `r${round.round}p${f.proposal}`,
        "-",
        "-",
        "refused",
        truncate(`${f.rationale} [${f.reason}]`, 90),
      ]);
  }
  lines.push(formatTable(["round", "proposal", "commit", "score", "verdict", "rationale"], rows), "");
  if (status.incumbent)
    lines.push(`incumbent ${status.incumbent.commit.slice(0, 12)} score ${fmtRate(status.incumbent.score)}`);
  if (status.selected)
    lines.push(
      `selected  ${status.selected.commit.slice(0, 12)} score ${fmtRate(status.selected.score)} (tag 'selected')`,
    );
  const heldRows: string[][] = [];
  for (const role of ["selected", "seed"]) {
    const entry = status.heldout[role] as Record<string, SummaryLike> | undefined;
    if (!entry) continue;
    for (const purpose of ["heldout", "independent"]) {
      const summary = entry[purpose];
      if (!summary) continue;
      heldRows.push([
        role,
        purpose,
        fmtRate(summary.objective),
        fmtRate(summary.blocked?.strict_sa),
        fmtRate(summary.blocked?.absrec?.["1"]),
        fmtRate(summary.feasible?.solve),
        fmtRate(summary.feasible?.false_abstention),
      ]);
    }
  }
  if (heldRows.length > 0)
    lines.push(
      "",
      formatTable(
        ["harness", "split", "objective", "strict SA", "AbsRec@1", "solve", "false abst."],
        heldRows,
      ),
    );
  const u = status.usage;
  lines.push(
    "",
    `usage: ${u.rollouts} rollouts, ${u.model_calls} model calls, ${u.input_tokens} + ${u.output_tokens} tokens, $${u.usd.toFixed(4)}`,
  );
  return lines.join("\n");
}

interface SummaryLike {
  objective?: number | null;
  blocked?: { strict_sa?: number; absrec?: Record<string, number> } | null;
  feasible?: { solve?: number; false_abstention?: number } | null;
}

function truncate(text: string, width: number): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}
