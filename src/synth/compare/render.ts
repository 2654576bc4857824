/** The report as text for people: the findings, then one line per column. */
import { num } from './findings.js';
import type { CompareReport } from './types.js';

function pad(cells: string[][]): string {
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function renderReport(r: CompareReport): string {
  const lines: string[] = [];
  lines.push(`Sample ${r.sampleRows} rows, output ${r.generatedRows} rows, ${r.tests} tests.`);
  lines.push(`Findings: ${r.highCount} high, ${r.mediumCount} medium, ${r.lowCount} low.`);
  if (r.findings.length > 0) {
    lines.push('');
    lines.push(
      pad([
        ['SEVERITY', 'KIND', 'COLUMN', 'FINDING'],
        ...r.findings.map((f) => [f.severity, f.kind, f.column ?? '-', f.message]),
      ]),
    );
  }
  lines.push('');
  lines.push(
    pad([
      ['COLUMN', 'AS', 'SAMPLE MEAN', 'OUTPUT MEAN', 'SAMPLE MIN..MAX', 'OUTPUT MIN..MAX', 'KS D', 'TVD'],
      ...r.columns.map((c) => [
        c.name,
        c.treatedAs,
        num(c.sample.mean),
        num(c.generated.mean),
        `${num(c.sample.min)}..${num(c.sample.max)}`,
        `${num(c.generated.min)}..${num(c.generated.max)}`,
        c.ks === undefined ? '-' : String(c.ks.d),
        c.categories === undefined ? '-' : String(c.categories.tvd),
      ]),
    ]),
  );
  lines.push('');
  lines.push(
    `Duplicate rows: sample ${num(r.duplicateRate.sample)}, output ${num(r.duplicateRate.generated)}; sample rows found in the output: ${r.duplicateRate.sampleRowsInOutput}.`,
  );
  lines.push(
    `Largest rank-correlation difference: ${num(r.correlation.maxDifference)} over ${r.correlation.columns.length} numeric column(s).`,
  );
  return `${lines.join('\n')}\n`;
}
