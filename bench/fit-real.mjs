// Acceptance 2 of issue 25 in one command: every CSV in a folder (default /work/data/fit, see
// docs/fit-datasets.md) is fitted, the fitted model grinds as many rows as the sample has
// (seed 7), and compare judges the output against the sample. Prints per data set: PASS/FAIL (no
// high finding), the high findings, the range of per-column KS distances (numeric and date
// columns) and of total variation distances (categories), and the worst correlation error (max |Δρ|
// of Spearman's ρ between sample and output, over column pairs). Needs dist/ (npm run build).
// Issue 40 adds, per data set: values outside a numeric column's sample range (must be 0), real
// identifiers copied (cells of an all-distinct sample column, not a row index and not dates, found
// in the output; must be 0), and per-column sampling noise: the sample is compared with B = 10
// bootstrap resamples of itself (same size), and a column is within noise when its KS D (or TVD)
// against the output is at most √2 × the largest bootstrap value (a resample shares its sample's
// values, so its distance is about 1/√2 of two independent draws').
// Also per data set: the fit report's privacy figure (generated rows equal to a sample row, and the
// nearest-neighbour distance ratio, docs/fit.md) and, with a date column, the month-vs-value
// Spearman ρ of the numeric column the months explain best, in the sample and in the output.
// Usage: node bench/fit-real.mjs [folder] [--verbose]
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fitCsv } from '../dist/synth/fit/index.js';
import { compareTables, outputTable, parseSampleCsv } from '../dist/synth/compare/index.js';
import { SynthRun } from '../dist/synth/index.js';
import { isMissingCell } from '../dist/synth/fit/missing.js';
import { isNumericKey, rowIndexOf } from '../dist/synth/fit/keys.js';
import { L64X128MixRandom } from '../dist/synth/random/l64x128-mix-random.js';

const BOOTSTRAPS = 10;
const NUMERIC = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}/;

/** Cells of column j that are present. */
const present = (rows, j) => rows.map((r) => r[j].trim()).filter((c) => !isMissingCell(c));

/** Generated numbers outside the sample's [min, max], over the all-numeric columns that are not keys. */
function outsideRange(sample, generated) {
  let outside = 0;
  sample.header.forEach((_, j) => {
    const s = present(sample.rows, j);
    // a key's fresh values lie outside the sample's range on purpose (never a real one)
    if (s.length === 0 || !s.every((c) => NUMERIC.test(c)) || isNumericKey(s)) return;
    let [lo, hi] = [Infinity, -Infinity];
    for (const c of s) [lo, hi] = [Math.min(lo, Number(c)), Math.max(hi, Number(c))];
    for (const c of present(generated.rows, j))
      if (NUMERIC.test(c) && (Number(c) < lo || Number(c) > hi)) outside++;
  });
  return outside;
}

/** Output cells equal to a value of an identifier-like sample column (all distinct, not a row index, not dates). */
function copiedIdentifiers(sample, generated) {
  let copied = 0;
  sample.header.forEach((_, j) => {
    const s = present(sample.rows, j);
    if (s.length < 20 || new Set(s).size !== s.length || s.every((c) => DATE.test(c))) return;
    if (s.every((c) => NUMERIC.test(c)) && rowIndexOf(s.map(Number))) return;
    if (!s.every((c) => NUMERIC.test(c) && /^[-+]?\d+$/.test(c)) && !s.every((c) => !NUMERIC.test(c))) return;
    const real = new Set(s);
    for (const c of present(generated.rows, j)) if (real.has(c)) copied++;
  });
  return copied;
}

/** Per column: the largest KS D or TVD of the sample against BOOTSTRAPS resamples of itself. */
function bootstrapNoise(sample) {
  const rng = new L64X128MixRandom(40n);
  const worst = new Map();
  for (let b = 0; b < BOOTSTRAPS; b++) {
    const rows = sample.rows.map(() => sample.rows[Math.floor(rng.nextDouble() * sample.rows.length)]);
    for (const c of compareTables(sample, { header: sample.header, rows }).columns) {
      const v = c.ks?.d ?? c.categories?.tvd;
      if (v !== undefined) worst.set(c.name, Math.max(worst.get(c.name) ?? 0, v));
    }
  }
  return worst;
}

/** Spearman's ρ (average ranks for ties). */
function spearman(x, y) {
  const ranks = (v) => {
    const order = v.map((_, i) => i).sort((a, b) => v[a] - v[b]);
    const r = new Array(v.length);
    for (let i = 0; i < order.length;) {
      let j = i;
      while (j + 1 < order.length && v[order[j + 1]] === v[order[i]]) j++;
      for (let k = i; k <= j; k++) r[order[k]] = (i + j) / 2;
      i = j + 1;
    }
    return r;
  };
  const [a, b] = [ranks(x), ranks(y)];
  const mean = (a.length - 1) / 2;
  let [sab, saa, sbb] = [0, 0, 0];
  for (let i = 0; i < a.length; i++) {
    sab += (a[i] - mean) * (b[i] - mean);
    saa += (a[i] - mean) ** 2;
    sbb += (b[i] - mean) ** 2;
  }
  return sab / Math.sqrt(saa * sbb);
}

/** Share of a numeric column's variance its rows' months explain (η²). */
function monthShare(months, values) {
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const groups = new Map();
  values.forEach((v, k) => {
    const g = groups.get(months[k]) ?? [0, 0];
    groups.set(months[k], [g[0] + v, g[1] + 1]);
  });
  let between = 0;
  for (const [s, c] of groups.values()) between += c * (s / c - mean) ** 2;
  const total = values.reduce((s, v) => s + (v - mean) ** 2, 0);
  return total > 0 ? between / total : 0;
}

/**
 * With a complete date column: the numeric column (complete in both tables) the months explain
 * best in the sample, and its month-vs-value ρ in the sample and the output.
 */
function seasonality(sample, generated) {
  const d = sample.header.findIndex((_, j) => sample.rows.every((r) => DATE.test(r[j].trim())));
  if (d < 0) return undefined;
  let best;
  sample.header.forEach((name, j) => {
    if (j === d) return;
    const complete = (t) => t.rows.every((r) => NUMERIC.test(r[j].trim()));
    if (!complete(sample) || !complete(generated)) return;
    const months = (t) => t.rows.map((r) => Number(r[d].trim().slice(5, 7)));
    const values = (t) => t.rows.map((r) => Number(r[j]));
    const share = monthShare(months(sample), values(sample));
    if (best && share <= best.share) return;
    best = {
      name,
      share,
      sample: spearman(months(sample), values(sample)),
      output: spearman(months(generated), values(generated)),
      outputShare: monthShare(months(generated), values(generated)),
    };
  });
  return best;
}

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
  const outside = outsideRange(sample, generated);
  const copied = copiedIdentifiers(sample, generated);
  const noise = bootstrapNoise(sample);
  const noisy = report.columns.filter((c) => {
    const v = c.ks?.d ?? c.categories?.tvd;
    return v !== undefined && noise.has(c.name) && v > Math.SQRT2 * noise.get(c.name);
  });
  const judged = report.columns.filter(
    (c) => (c.ks?.d ?? c.categories?.tvd) !== undefined && noise.has(c.name),
  );
  const pass = report.highCount === 0 && outside === 0 && copied === 0;
  if (!pass) failed++;
  console.log(
    `${pass ? 'PASS' : 'FAIL'} ${file}: ${sample.rows.length} rows, fit ${ms} ms, high ${report.highCount}, ` +
      `medium ${report.mediumCount}, KS ${range(ks)}, TVD ${range(tvd)}, ` +
      `worst |Δρ| ${report.correlation.maxDifference.toFixed(3)}, duplicates ${report.duplicateRate.sample}/${report.duplicateRate.generated}, ` +
      `copula ${fit.dependence.columns.length} columns, outside range ${outside}, ids copied ${copied}, ` +
      `within noise ${judged.length - noisy.length}/${judged.length}`,
  );
  const p = fit.privacy;
  console.log(
    `   privacy: ${p.copies} of ${p.generatedRows} rows (${(p.copyShare * 100).toFixed(1)}%) equal a sample row; ` +
      `nearest-neighbour ratio ${p.distanceRatio === null ? 'none (sample median 0)' : p.distanceRatio.toFixed(2)} ` +
      `(${p.generatedMedian.toFixed(3)} / ${p.sampleMedian.toFixed(3)}, ${p.distanceRows.generated} × ${p.distanceRows.sample} rows, ${p.columns.length} columns)`,
  );
  const season = seasonality(sample, generated);
  if (season)
    console.log(
      `   month vs ${season.name}: ρ sample ${season.sample.toFixed(3)}, output ${season.output.toFixed(3)}; ` +
        `months explain ${(season.share * 100).toFixed(0)}% of its variance in the sample, ${(season.outputShare * 100).toFixed(0)}% in the output`,
    );
  for (const c of noisy) {
    const v = c.ks?.d ?? c.categories?.tvd;
    console.log(`   beyond noise ${c.name}: ${v.toFixed(3)} > √2 × ${noise.get(c.name).toFixed(3)}`);
  }
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
console.log(
  `${files.length - failed}/${files.length} data sets pass: no high finding, nothing outside a range, no identifier copied`,
);
process.exitCode = failed === 0 ? 0 : 1;
