// Fit speed and quality. Part 1: a synthetic 10-column table (Normal, Lognormal, Gamma, Weibull,
// Exponential, Poisson, NegativeBinomial, two categoricals, an id) drawn by the engine, fitted at
// 10^4 and 10^5 rows (growth ratio in the same run). Part 2 (`node bench/fit.mjs <folder>`): every
// CSV in the folder is fitted, regenerated at the sample's size and judged by compare; prints the
// per-column KS distances, the correlation-matrix error and compare's high findings.
// Needs dist/ (npm run build).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fitCsv, fitTable } from '../dist/synth/fit/index.js';
import { generateCells, quality } from '../dist/synth/fit/quality.js';
import { compareTables, outputTable, parseSampleCsv } from '../dist/synth/compare/index.js';
import { SynthRun, parseModel } from '../dist/synth/index.js';

const TABLE = `dataset.root = T
A = Normal(mean=50, sigma=8)
B = Lognormal(mu=2, sigma=0.6)
C = Gamma(shape=2.5, scale=3)
D = Weibull(shape=1.7, scale=10)
E = Exponential(lambda=0.2)
F = Poisson(lambda=6)
G = NegativeBinomial(r=2, p=0.3)
H = Categorical(weights="5, 3, 2")
I = Categorical(weights="1, 1, 1, 1")
J = Sequence(start=1, step=1)
T = Append(A, B, C, D, E, F, G, H, I, J)
`;

function timeFit(rows) {
  const header = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'id'];
  const cells = generateCells(parseModel(TABLE), 42n, rows);
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const { report } = fitTable(header, cells);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const c1 = process.cpuUsage(c0);
  // CPU time too: on a shared box the wall time mostly measures the other processes
  return {
    ms,
    cpuMs: (c1.user + c1.system) / 1000,
    families: report.columns.map((c) => `${c.name}:${c.family ?? c.kind}`).join(' '),
  };
}

function speed() {
  const small = timeFit(10_000);
  const large = timeFit(100_000);
  const line = (label, r) =>
    `fit ${label} rows x 10 columns: ${(r.ms / 1000).toFixed(2)} s wall, ${(r.cpuMs / 1000).toFixed(2)} s CPU  [${r.families}]`;
  console.log(line('10^4', small));
  console.log(line('10^5', large));
  console.log(
    `growth 10^4 -> 10^5: x${(large.ms / small.ms).toFixed(1)} wall, x${(large.cpuMs / small.cpuMs).toFixed(1)} CPU`,
  );
}

function real(folder) {
  for (const file of readdirSync(folder)
    .filter((f) => f.endsWith('.csv'))
    .sort()) {
    const text = readFileSync(join(folder, file), 'utf8');
    const t0 = Date.now();
    const { model } = fitCsv(text);
    const ms = Date.now() - t0;
    const sample = parseSampleCsv(text, 'yes');
    const generated = outputTable(new SynthRun(model, 7n), sample.rows.length);
    const report = compareTables(sample, generated);
    const q = quality(sample.header, sample.rows, generated.rows);
    console.log(
      `${file}: ${sample.rows.length} rows, fit ${ms} ms, high ${report.highCount}, medium ${report.mediumCount}, ` +
        `correlation error (max |Δρ| Spearman) ${q.correlationError.toFixed(3)}`,
    );
    console.log('   ' + q.columns.map((c) => `${c.name} ${c.measure}=${c.distance.toFixed(3)}`).join(', '));
    for (const f of report.findings.filter((x) => x.severity === 'high'))
      console.log(`   HIGH ${f.kind} ${f.column ?? ''}: ${f.message}`);
  }
}

if (process.argv[2]) real(process.argv[2]);
else speed();
