/** A comparison of two harnesses as terminal text: rates with k/n and 95% intervals, Δ, flips, McNemar. */
import {
  type Comparison,
  type Difference,
  metricLabel,
  type PairedDelta,
  pairedIntervalText,
  pValueText,
  type Rate,
} from "../../api";
import { fitLines, formatTable, type Paint } from "./table";

const PURPOSE_LABEL: Record<string, string> = {
  search: "search",
  heldout: "held-out",
  independent: "independent",
  diagnostic: "held-out diagnostic",
};

export function rateText(rate: Rate): string {
  if (rate.rate === null) return "-";
  return `${rate.rate.toFixed(3)} ${rate.k}/${rate.n} [${rate.low?.toFixed(2)}, ${rate.high?.toFixed(2)}]`;
}

/** "+0.125 [-0.10, 0.35]", green/red only when the interval excludes 0. */
export function deltaText(d: Difference, lowerIsBetter: boolean, paint: Paint): string {
  const text = pairedIntervalText(d);
  if (text === null || d.delta === null) return "-";
  if (!d.clear) return text;
  return (lowerIsBetter ? d.delta < 0 : d.delta > 0) ? paint.good(text) : paint.bad(text);
}

/** "Δ +0.031 [-0.012, +0.074]": an objective's paired Δ, green/red only when its interval excludes 0. */
export function pairedDeltaText(d: PairedDelta, paint: Paint): string {
  const sign = (v: number) => `${v >= 0 ? "+" : "-"}${Math.abs(v).toFixed(3)}`;
  const text = `Δ ${sign(d.delta)} [${sign(d.low)}, ${sign(d.high)}]`;
  if (!d.clear) return text;
  return d.delta > 0 ? paint.good(text) : paint.bad(text);
}

export function comparisonText(
  c: Comparison,
  labels: { before: string; after: string },
  paint: Paint,
  options: { flips?: boolean; maxWidth?: number } = {},
): string {
  const rows = [...c.bySuite, ...c.byFamily].map((g) => [
    g.group,
    metricLabel(g.metric, "short"),
    rateText(g.before),
    rateText(g.after),
    deltaText(g, g.lowerIsBetter, paint),
  ]);
  const lines = [
    fitLines(
      `${PURPOSE_LABEL[c.purpose] ?? c.purpose}: ${c.paired} episodes run by both; McNemar on flips: ${c.mcnemar.gains} fail→pass, ${c.mcnemar.losses} pass→fail, p = ${pValueText(c.mcnemar.p_value)}`,
      options.maxWidth,
    ),
    formatTable(["group", "metric", labels.before, labels.after, "Δ [95%]"], rows, {
      maxWidth: options.maxWidth,
      flexColumn: 0,
    }),
  ];
  if (options.flips && c.flips.length > 0)
    lines.push(
      "flipped:",
      ...c.flips.map((f) =>
        fitLines(
          `  ${f.direction === "gain" ? paint.good("fail → pass") : paint.bad("pass → fail")}  ${f.task_id} #${f.repeat}  ${f.suite} ${f.kind}${f.family ? ` ${f.family}` : ""}`,
          options.maxWidth,
          "    ",
        ),
      ),
    );
  return lines.join("\n");
}
