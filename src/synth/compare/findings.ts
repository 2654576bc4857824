/**
 * Collects test results and fixed findings, then judges severities: every p-value is multiplied
 * by the number of tests run (Bonferroni), so the chance that a sample drawn from the model
 * itself gets any high finding is at most `highP` per report, however many columns it has.
 * An effect must also be large enough to matter (the floors), so a huge sample does not turn a
 * negligible difference into a high finding.
 */
import type { Finding, FindingKind, Severity } from './types.js';

export interface Thresholds {
  highP: number;
  mediumP: number;
  lowP: number;
}

/** Effect floors per kind: [high, medium]. See docs/compare.md for what each measure is. */
export const FLOORS: Readonly<Record<FindingKind, readonly [number, number]>> = {
  shape: [0, 0],
  type: [0.05, 0.02], // total variation distance between the kinds of values
  precision: [0, 0],
  'date-format': [0, 0],
  distribution: [0.05, 0.02], // KS D, or total variation distance for categories
  tail: [0.15, 0.1], // |share of the pooled tail from the sample − share expected|
  spike: [0.01, 0.005], // |share in sample − share in output| of one value
  coverage: [0.005, 0.001], // share of the category where it occurs
  identifier: [3, 1], // values shared beyond what chance gives
  correlation: [0.1, 0.05], // |ρ sample − ρ output|
  duplicates: [0.02, 0.01], // |duplicate-row rate difference|
  'copied-rows': [3, 1], // rows shared beyond what chance gives
};

interface Tested {
  kind: FindingKind;
  column?: string;
  p: number;
  effect: number;
  message: string;
}

export class Findings {
  private readonly tested: Tested[] = [];
  private readonly fixed: Finding[] = [];
  /** Tests run, significant or not: the Bonferroni factor. */
  tests = 0;

  /** A test's outcome; it becomes a finding only if it passes the thresholds at the end. */
  test(kind: FindingKind, column: string | undefined, p: number, effect: number, message: string): void {
    this.tests++;
    if (p < 0.05) this.tested.push({ kind, column, p, effect, message });
  }

  /** A finding that needs no test (a structural or format difference). */
  add(
    severity: Severity,
    kind: FindingKind,
    column: string | undefined,
    message: string,
    measure?: number,
  ): void {
    this.fixed.push({
      severity,
      kind,
      ...(column === undefined ? {} : { column }),
      message,
      ...(measure === undefined ? {} : { measure }),
    });
  }

  judge(t: Thresholds): Finding[] {
    const out: Finding[] = [...this.fixed];
    for (const r of this.tested) {
      const p = Math.min(1, r.p * Math.max(1, this.tests));
      const [highFloor, mediumFloor] = FLOORS[r.kind];
      let severity: Severity | undefined;
      if (p < t.highP && r.effect >= highFloor) severity = 'high';
      else if (p < t.mediumP && r.effect >= mediumFloor) severity = 'medium';
      else if (p < t.lowP) severity = 'low';
      if (severity === undefined) continue;
      out.push({
        severity,
        kind: r.kind,
        ...(r.column === undefined ? {} : { column: r.column }),
        message: r.message,
        measure: round(r.effect),
        p,
      });
    }
    const rank: Record<Severity, number> = { high: 0, medium: 1, low: 2 };
    return out.sort((a, b) => rank[a.severity] - rank[b.severity]);
  }
}

/** Four significant digits: enough to read, stable to compare. */
export function round(x: number): number {
  return Number.isFinite(x) ? Number(x.toPrecision(4)) : x;
}

export function pct(share: number): string {
  const v = share * 100;
  return `${v >= 10 || v === 0 ? v.toFixed(0) : v.toPrecision(2)}%`;
}

export function num(x: number | undefined): string {
  if (x === undefined) return '-';
  return Math.abs(x) >= 1e6 || (Math.abs(x) < 1e-3 && x !== 0) ? x.toExponential(3) : String(round(x));
}
