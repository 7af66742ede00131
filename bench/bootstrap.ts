/**
 * Bootstrap cost: `npx tsx bench/bootstrap.ts [resamples]`. Prints wall time of the calibration report (AUROC,
 * Brier, ECE with intervals), the paired calibration difference and the paired mean-difference bootstrap at the
 * study's sizes (96 blocked + 96 feasible beliefs, 64+64 search tasks).
 */
import { performance } from "node:perf_hooks";
import { createRng } from "../src/core/rng";
import {
  type BeliefReport,
  calibrationReport,
  pairedBootstrapMeanDifference,
  pairedCalibrationDifference,
} from "../src/scoring";

const resamples = Number(process.argv[2] ?? 10_000);
const rng = createRng(1, "bench-bootstrap");

function beliefs(pairs: number, sharpness: number): BeliefReport[] {
  const out: BeliefReport[] = [];
  for (let i = 0; i < pairs; i++) {
    const noise = () => (rng.next() - 0.5) * (1 - sharpness);
    out.push({
      task_id: `f${i}`,
      pair: `s${i}`,
      feasible: true,
      p_feasible: clamp(0.5 + sharpness / 2 + noise()),
    });
    out.push({
      task_id: `b${i}`,
      pair: `s${i}`,
      feasible: false,
      p_feasible: clamp(0.5 - sharpness / 2 + noise()),
    });
  }
  return out;
}

function clamp(p: number): number {
  return Math.min(1, Math.max(0, p));
}

function time<T>(label: string, run: () => T): T {
  const start = performance.now();
  const result = run();
  console.log(`${label.padEnd(44)} ${(performance.now() - start).toFixed(1).padStart(8)} ms`);
  return result;
}

const a = beliefs(96, 0.4);
const b = beliefs(96, 0.2);
console.log(`resamples: ${resamples}, reports per harness: ${a.length}`);
const report = time("calibrationReport (3 metrics)", () => calibrationReport(a, { seed: 1, resamples }));
time("pairedCalibrationDifference (auroc)", () =>
  pairedCalibrationDifference(a, b, "auroc", { seed: 1, resamples }),
);
time("pairedCalibrationDifference (ece)", () =>
  pairedCalibrationDifference(a, b, "ece", { seed: 1, resamples }),
);
const first = Array.from({ length: 128 }, () => (rng.chance(0.55) ? 1 : 0));
const second = Array.from({ length: 128 }, () => (rng.chance(0.45) ? 1 : 0));
const diff = time("pairedBootstrapMeanDifference (128 tasks)", () =>
  pairedBootstrapMeanDifference(first, second, { seed: 1, resamples }),
);
console.log(JSON.stringify({ auroc: report.auroc, brier: report.brier, ece: report.ece, paired_mean: diff }));
