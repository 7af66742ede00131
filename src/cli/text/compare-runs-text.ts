/** `hsearch compare` as terminal text: who is compared, what each spent, paired outcomes per split, config, diff. */
import {
  metricLabel,
  type PairedRow,
  type PairedSplit,
  pairedIntervalText,
  pValueText,
  type RunComparison,
} from "../../api";
import { colourDiff, fitDiff } from "./diff-text";
import { fitLines, formatTable, type Paint } from "./table";

const SPLIT_LABEL: Record<string, string> = {
  search: "search",
  heldout: "held-out",
  independent: "independent",
};

/** "+0.083 [-0.03, +0.19]", green/red only when the interval excludes 0. */
function deltaCell(row: PairedRow, paint: Paint): string {
  const text = pairedIntervalText(row);
  if (text === null || row.delta === null) return "-";
  if (!row.clear) return text;
  return (row.lowerIsBetter ? row.delta < 0 : row.delta > 0) ? paint.good(text) : paint.bad(text);
}

/** "3 vs 9 p = 0.146": pairs only A had, only B had, and McNemar's exact p. */
function mcnemarCell(row: PairedRow): string {
  const m = row.mcnemar;
  return `${m.b} vs ${m.c} p = ${pValueText(m.p_value)}`;
}

export function pairedSplitText(
  split: PairedSplit,
  paint: Paint,
  maxWidth: number | undefined,
  flipLimit: number,
): string {
  const n = (row: PairedRow) =>
    row.table.both + row.table.firstOnly + row.table.secondOnly + row.table.neither;
  const rows = split.rows.map((row) => [
    row.group,
    metricLabel(row.metric, "short"),
    `${row.a}/${n(row)}`,
    `${row.b}/${n(row)}`,
    deltaCell(row, paint),
    mcnemarCell(row),
  ]);
  const unpaired = split.onlyA + split.onlyB > 0 ? `; not paired: A ${split.onlyA}, B ${split.onlyB}` : "";
  const lines = [
    paint.bold(
      fitLines(
        `${SPLIT_LABEL[split.purpose] ?? split.purpose}: ${split.paired} episodes on ${split.tasks} tasks run by both${unpaired}`,
        maxWidth,
      ),
    ),
    formatTable(["group", "metric", "A", "B", "Δ B−A [95%]", "A only vs B only"], rows, {
      maxWidth,
      flexColumn: 0,
    }),
  ];
  if (split.flips.length > 0) {
    const gains = split.flips.filter((f) => f.direction === "gain").length;
    lines.push(
      fitLines(
        `flipped: ${split.flips.length} (${gains} fail → pass under B, ${split.flips.length - gains} pass → fail)${split.flips.length > flipLimit ? `, the first ${flipLimit} (--flips N shows more)` : ""}`,
        maxWidth,
      ),
      ...split.flips
        .slice(0, flipLimit)
        .map((f) =>
          fitLines(
            `  ${f.direction === "gain" ? paint.good("fail → pass") : paint.bad("pass → fail")}  ${f.task_id} #${f.repeat}  ${f.kind}${f.family ? ` ${f.family}` : ""}`,
            maxWidth,
            "    ",
          ),
        ),
    );
  }
  return lines.join("\n");
}

const usd = (v: number) => `$${v.toFixed(2)}`;
const minutes = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;

export function runComparisonText(
  c: RunComparison,
  paint: Paint,
  options: { maxWidth?: number; flips?: number } = {},
): string {
  const { maxWidth } = options;
  const who = (label: string, side: RunComparison["a"]) =>
    fitLines(
      `${paint.bold(label)}  ${side.dir} · ${side.kind === "search" ? `search ${side.objective ?? ""}` : side.kind} · ${side.state} · ${side.role === side.candidate ? side.candidate : `${side.role} ${side.candidate}`} ${side.commit.slice(0, 12)}${side.score === null ? "" : ` · search score ${side.score.toFixed(4)}`}`,
      maxWidth,
      "   ",
    );
  const splits = ["search", "heldout", "independent", "diagnostic"] as const;
  const spentRows: string[][] = [
    ["rounds", String(c.a.spent.rounds), String(c.b.spent.rounds)],
    ["candidates", String(c.a.spent.candidates), String(c.b.spent.candidates)],
    ...splits
      .filter((s) => c.a.spent.rollouts[s] !== undefined || c.b.spent.rollouts[s] !== undefined)
      .map((s) => [
        `rollouts ${SPLIT_LABEL[s] ?? s}`,
        String(c.a.spent.rollouts[s] ?? 0),
        String(c.b.spent.rollouts[s] ?? 0),
      ]),
    ["cost", usd(c.a.spent.usd), usd(c.b.spent.usd)],
    ["time worked", minutes(c.a.spent.active_ms), minutes(c.b.spent.active_ms)],
  ];
  const sections = [
    [who("A", c.a), who("B", c.b)].join("\n"),
    formatTable(["spent", "A", "B"], spentRows, { maxWidth, flexColumn: null }),
    ...c.splits.map((split) => pairedSplitText(split, paint, maxWidth, options.flips ?? 10)),
    c.config.length === 0
      ? "config: the same"
      : [
          paint.bold(`config: ${c.config.length} field${c.config.length === 1 ? "" : "s"} differ`),
          formatTable(
            ["field", "A", "B"],
            c.config.map((d) => [d.field, d.a ?? "(absent)", d.b ?? "(absent)"]),
            { maxWidth, flexColumn: null },
          ),
        ].join("\n"),
    c.sameHarness
      ? "harness: the same files"
      : [paint.bold("harness diff (A → B):"), colourDiff(fitDiff(c.diff.trimEnd(), maxWidth), paint)].join(
          "\n",
        ),
  ];
  return sections.join("\n\n");
}
