import { describe, expect, it } from "vitest";
import { niceTicks, type PlotRound, scoreDomain, scorePlotSvg } from "../../src/report/html/score-plot";

const ROUNDS: PlotRound[] = [
  { round: 0, incumbent: 0.6, proposals: [{ id: "seed", score: 0.6, verdict: "seed" }] },
  {
    round: 1,
    incumbent: 0.75,
    proposals: [
      { id: "r1p1", score: 0.75, verdict: "accepted" },
      { id: "r1p2", score: 0.55, verdict: "rejected" },
    ],
  },
  {
    round: 2,
    incumbent: 0.75,
    proposals: [
      { id: "r2p1", score: 0.7, verdict: "indecisive" },
      { id: "r2p2", score: null, verdict: "rejected" },
    ],
  },
];

function attr(markup: string, pattern: RegExp): number[] {
  return [...markup.matchAll(pattern)].map((match) => Number(match[1]));
}

function circle(svg: string, id: string): { cx: number; cy: number } {
  const match = new RegExp(
    `<circle class="proposal [a-z_]+" cx="([\\d.]+)" cy="([\\d.]+)"[^>]*><title>${id}:`,
  ).exec(svg);
  if (!match) throw new Error(`no circle for ${id}`);
  return { cx: Number(match[1]), cy: Number(match[2]) };
}

describe("niceTicks and scoreDomain", () => {
  it("steps by 1, 2 or 5 × 10^k and covers the range", () => {
    expect(niceTicks(0.5, 0.9, 5)).toEqual([0.5, 0.6, 0.7, 0.8, 0.9]);
    expect(niceTicks(0, 1, 5)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(0, 8, 10)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(niceTicks(0.3, 0.3)).toEqual([0.3]);
    expect(niceTicks(Number.NaN, 1)).toEqual([]);
  });

  it("pads the data, snaps to round values and stays inside [0, 1] for rates", () => {
    const [lo, hi] = scoreDomain([0.648, 0.836]);
    expect(lo).toBeLessThan(0.648);
    expect(hi).toBeGreaterThan(0.836);
    expect(lo).toBeGreaterThanOrEqual(0);
    expect(hi).toBeLessThanOrEqual(1);
    expect(scoreDomain([0, 1])).toEqual([0, 1]);
    const [same0, same1] = scoreDomain([0.5, 0.5]);
    expect(same1).toBeGreaterThan(same0);
    expect(scoreDomain([])).toEqual([0, 1]);
  });
});

describe("scorePlotSvg", () => {
  const svg = scorePlotSvg(ROUNDS, { width: 600, height: 300, title: "plot <of> run" });

  it("is an SVG with the given size and an escaped title", () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 300"')).toBe(true);
    expect(svg.endsWith("</svg>")).toBe(true);
    expect(svg).toContain("<title>plot &lt;of&gt; run</title>");
  });

  it("labels both axes: one x tick per round, y ticks over the score range", () => {
    expect(attr(svg, /<text class="x-tick"[^>]*>(\d+)<\/text>/g)).toEqual([0, 1, 2]);
    const yTicks = attr(svg, /<text class="y-tick"[^>]*>([\d.]+)<\/text>/g);
    expect(yTicks.length).toBeGreaterThanOrEqual(3);
    expect(Math.min(...yTicks)).toBeLessThanOrEqual(0.55);
    expect(Math.max(...yTicks)).toBeGreaterThanOrEqual(0.75);
    expect(svg).toContain(">round</text>");
    expect(svg).toContain(">search score</text>");
  });

  it("draws one dot per scored proposal (not the seed, not unscored ones) and one incumbent point per round", () => {
    expect(svg.match(/<circle class="proposal /g)?.length).toBe(3);
    expect(svg).toContain('class="proposal accepted"');
    expect(svg).toContain('class="proposal indecisive"');
    expect(svg.match(/<circle class="incumbent"/g)?.length).toBe(3);
    expect(svg).not.toContain("r2p2");
  });

  it("puts higher scores higher and later rounds further right, inside the canvas", () => {
    const accepted = circle(svg, "r1p1");
    const rejected = circle(svg, "r1p2");
    const later = circle(svg, "r2p1");
    expect(accepted.cy).toBeLessThan(rejected.cy);
    expect(later.cx).toBeGreaterThan(accepted.cx);
    const xs = attr(svg, /cx="([\d.-]+)"/g);
    const ys = attr(svg, /cy="([\d.-]+)"/g);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThanOrEqual(600);
    expect(Math.min(...ys)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...ys)).toBeLessThanOrEqual(300);
  });

  it("draws the incumbent as a step line that rises in the accepting round", () => {
    const path = /<path d="([^"]+)" fill="none" stroke="#3b4a5a"/.exec(svg)?.[1] ?? "";
    expect(path).toMatch(/^M[\d.]+ [\d.]+(H[\d.]+V[\d.]+){2}$/);
    const verticals = attr(path, /V([\d.]+)/g);
    const start = Number(/^M[\d.]+ ([\d.]+)/.exec(path)?.[1]);
    expect(verticals[0]).toBeLessThan(start);
    expect(verticals[1]).toBe(verticals[0]);
  });

  it("never writes NaN, Infinity or undefined, whatever the data", () => {
    const awkward: PlotRound[][] = [
      [],
      [{ round: 0, incumbent: null, proposals: [] }],
      [{ round: 3, incumbent: 0.5, proposals: [{ id: "a", score: 0.5, verdict: "rejected" }] }],
      [
        { round: 0, incumbent: 0.4, proposals: [] },
        { round: 1, incumbent: 0.4, proposals: [{ id: "b", score: Number.NaN, verdict: "pending" }] },
      ],
      ROUNDS.map((round) => ({ ...round, incumbent: round.round === 2 ? null : round.incumbent })),
    ];
    for (const rounds of awkward) expect(scorePlotSvg(rounds)).not.toMatch(/NaN|Infinity|undefined/);
    expect(scorePlotSvg([])).toContain("no scores yet");
    expect(scorePlotSvg([{ round: 0, incumbent: null, proposals: [] }])).toContain("no scores yet");
  });

  it("shows the held-out diagnostic as a dashed line only when there is one", () => {
    expect(svg).not.toContain("held-out diagnostic");
    const withHeldout = scorePlotSvg(ROUNDS.map((round) => ({ ...round, heldout: 0.5 + round.round / 10 })));
    expect(withHeldout).toContain("held-out diagnostic");
    expect(withHeldout).toContain('stroke-dasharray="4 3"');
  });

  it("escapes proposal ids in tooltips", () => {
    const out = scorePlotSvg([
      { round: 1, incumbent: 0.5, proposals: [{ id: "<x>", score: 0.6, verdict: "rejected" }] },
    ]);
    expect(out).toContain("<title>&lt;x&gt;: 0.600 (rejected)</title>");
  });
});
