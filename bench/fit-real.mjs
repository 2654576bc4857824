// Acceptance 2 of issue 25 in one command: every CSV in a folder (default /work/data/fit, see
// docs/fit-datasets.md) is fitted, the fitted model grinds as many rows as the sample has
// (seed 7), and compare judges the output against the sample. Prints per data set: PASS/FAIL (no
// high finding), the high findings, the range of per-column KS distances (numeric and date
// columns) and of total variation distances (categories), and the worst correlation error (max |Δρ|
// of Spearman's ρ between sample and output, over column pairs). Needs dist/ (npm run build).
// Usage: node bench/fit-real.mjs [folder] [--verbose]
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fitCsv } from '../dist/synth/fit/index.js';
import { compareTables, outputTable, parseSampleCsv } from '../dist/synth/compare/index.js';
import { SynthRun } from '../dist/synth/index.js';

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const folder = args.find((a) => !a.startsWith('--')) ?? '/work/data/fit';

const range = (xs) => (xs.length === 0 ? '-' : `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}`);

let failed = 0;
const files = readdirSync(folder)
  .filter((f) => f.endsWith('.csv'))
  .sort();
for (const file of files) {
  const text = readFileSync(join(folder, file), 'utf8');
  const t0 = Date.now();
  const { model, report: fit } = fitCsv(text);
  const ms = Date.now() - t0;
  const sample = parseSampleCsv(text, 'yes');
  const generated = outputTable(new SynthRun(model, 7n), sample.rows.length);
  const report = compareTables(sample, generated);
  const ks = report.columns.filter((c) => c.ks).map((c) => c.ks.d);
  const tvd = report.columns.filter((c) => c.categories).map((c) => c.categories.tvd);
  const pass = report.highCount === 0;
  if (!pass) failed++;
  console.log(
    `${pass ? 'PASS' : 'FAIL'} ${file}: ${sample.rows.length} rows, fit ${ms} ms, high ${report.highCount}, ` +
      `medium ${report.mediumCount}, KS ${range(ks)}, TVD ${range(tvd)}, ` +
      `worst |Δρ| ${report.correlation.maxDifference.toFixed(3)}, duplicates ${report.duplicateRate.sample}/${report.duplicateRate.generated}, ` +
      `copula ${fit.dependence.columns.length} columns`,
  );
  if (verbose)
    console.log(
      '   ' +
        report.columns
          .map(
            (c) =>
              `${c.name} ${c.ks ? `ks=${c.ks.d.toFixed(3)}` : c.categories ? `tvd=${c.categories.tvd.toFixed(3)}` : c.treatedAs}`,
          )
          .join(', '),
    );
  for (const f of report.findings.filter(
    (x) => x.severity === 'high' || (verbose && x.severity === 'medium'),
  ))
    console.log(`   ${f.severity.toUpperCase()} ${f.kind} ${f.column ?? ''}: ${f.message}`);
}
console.log(`${files.length - failed}/${files.length} data sets pass compare with no high finding`);
process.exitCode = failed === 0 ? 0 : 1;
