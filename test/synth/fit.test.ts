/** fit: column typing, guard rails, determinism, column order and input errors. */
import { describe, expect, it } from 'vitest';
import { writeModel } from '../../src/synth/index.js';
import { FitError, fitCsv, fitCsvToText } from '../../src/synth/fit/index.js';
import { generateCells } from '../../src/synth/fit/quality.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';

/** A seeded mixed table: id, name (free text), city (with one rare city), score, count, flag, day, blank. */
function mixedCsv(seed: bigint, rows = 400): string {
  const rng = new L64X128MixRandom(seed);
  const cities = ['Lyon', 'Porto', 'Graz'];
  const lines = ['id,name,city,score,visits,member,joined,note,constant'];
  for (let i = 0; i < rows; i++) {
    const city = i === 7 ? 'Zzyzx' : cities[Math.floor(rng.nextDouble() * 3)]!;
    const score = (50 + 10 * rng.nextGaussian()).toFixed(1);
    const visits = String(Math.floor(-Math.log(1 - rng.nextDouble()) * 3));
    const member = rng.nextDouble() < 0.3 ? 'yes' : 'no';
    const day = `20${20 + Math.floor(rng.nextDouble() * 4)}-0${1 + Math.floor(rng.nextDouble() * 9)}-1${Math.floor(rng.nextDouble() * 9)}`;
    const note = rng.nextDouble() < 0.2 ? '' : 'ok';
    lines.push(
      `${1000 + i},Person ${rng.nextLong().toString(36)},${city},${score},${visits},${member},${day},${note},7`,
    );
  }
  return lines.join('\n') + '\n';
}

describe('fit', () => {
  const seed = 20261201n;
  const csv = mixedCsv(seed);

  it('types each column', () => {
    const { report } = fitCsv(csv);
    const kinds = Object.fromEntries(report.columns.map((c) => [c.name, c.kind]));
    expect(kinds, `seed ${seed}`).toEqual({
      id: 'identifier',
      name: 'identifier',
      city: 'categorical',
      score: 'continuous',
      visits: 'integer',
      member: 'boolean',
      joined: 'date',
      note: 'constant',
      constant: 'constant',
    });
    const note = report.columns.find((c) => c.name === 'note')!;
    expect(note.missingRate).toBeGreaterThan(0.1);
    expect(note.missingRate).toBeLessThan(0.3);
  });

  it('writes category labels as the sample does, so two labels never print alike (0.00 and 0.0)', () => {
    const labels = ['0.00', '0.0', '007', '1.50', 'x'];
    const rows = Array.from({ length: 100 }, (_, i) => labels[i % labels.length]!);
    const { model } = fitCsv(['code', ...rows].join('\n'));
    const out = new Set(generateCells(model, 2n, 300).map(([c]) => c));
    expect([...out].sort()).toEqual([...labels].sort());
  });

  it('types a running number written as doubles (`12.0`, as grind writes it) as an identifier', () => {
    const small = (i: number): number => (i * 7) % 13;
    const rows = Array.from({ length: 60 }, (_, i) => `${i + 1}.0,${small(i)}.0,${3 * small(i) + (i % 2)}.0`);
    const { model, report } = fitCsv(['id,small,big', ...rows].join('\n'));
    expect(report.columns.map((c) => c.kind)).toEqual(['identifier', 'integer', 'integer']);
    expect(report.dependence.columns).toEqual(['small', 'big']);
    // and its output writes them the same way: whole numbers with a decimal point
    for (const cells of generateCells(model, 3n, 60)) for (const c of cells) expect(c).toMatch(/^\d+\.0$/);
  });

  it('keeps the sample column order, names its nodes after the columns and never copies identifiers or rare categories', () => {
    const { model, report, modelText } = fitCsvToText(csv, 'xml');
    expect(report.columns.map((c) => c.output)).toEqual(report.columns.map((_, i) => `dim${i}`));
    for (const name of ['score', 'city', 'visits'])
      expect(model.nodes.some((n) => n.name.startsWith(name))).toBe(true);
    expect(modelText).not.toMatch(/Person /);
    // `id` is a row index (1000, 1001, …): the model counts from its start, nothing else of it
    expect(modelText).not.toMatch(/1399/);
    expect(model.nodes.find((n) => n.name === 'id_seq')?.attributes).toMatchObject({
      start: '1000',
      step: '1',
    });
    expect(modelText).not.toMatch(/Zzyzx/);
    expect(report.generalised.join('\n')).toMatch(
      /city: 1 categories seen fewer than 5 times \(0.3% of cells\) left out/,
    );
    expect(report.generalised.join('\n')).toMatch(/name: identifier/);
  });

  it('writes a model whose output has the sample shape: same width, labels, missing cells', () => {
    const { model } = fitCsv(csv);
    const rows = generateCells(model, 3n, 2000);
    expect(rows[0]).toHaveLength(9);
    const col = (j: number): string[] => rows.map((r) => r[j]!);
    expect(new Set(col(2))).toEqual(new Set(['Lyon', 'Porto', 'Graz'])); // the rare city's share is spread
    expect(new Set(col(5))).toEqual(new Set(['yes', 'no']));
    expect(col(6).every((d) => /^202[0-3]-\d\d-\d\d$/.test(d))).toBe(true);
    const blank = col(7).filter((c) => c === '').length / rows.length;
    expect(blank).toBeGreaterThan(0.1);
    expect(blank).toBeLessThan(0.3);
    expect(col(3).every((c) => /^\d+\.\d$/.test(c))).toBe(true); // one decimal, as in the sample
    expect(col(4).every((c) => /^\d+$/.test(c))).toBe(true);
    expect(new Set(col(0)).size).toBe(rows.length); // identifiers stay unique
  });

  it('is deterministic: the same sample and options give the same text, another seed only changes the seed', () => {
    const a = fitCsvToText(csv, 'sgm', { seed: 9 }).modelText;
    expect(fitCsvToText(csv, 'sgm', { seed: 9 }).modelText).toBe(a);
    const b = fitCsvToText(csv, 'sgm', { seed: 10 }).modelText;
    expect(b.replace('dataset.seed = 10', 'dataset.seed = 9')).toBe(a);
  });

  it('writes all three syntaxes of the same model', () => {
    const { model } = fitCsv(csv);
    for (const f of ['xml', 'json', 'sgm'] as const) expect(writeModel(model, f).length).toBeGreaterThan(100);
  });

  it('refuses unreadable or too small samples with a stable code', () => {
    const code = (text: string, o = {}): string | undefined => {
      try {
        fitCsv(text, o);
        return undefined;
      } catch (err) {
        return err instanceof FitError ? err.code : 'other';
      }
    };
    expect(code('a,b\n1,2\n')).toBe('FIT_INPUT');
    expect(code('a,b\n1,2\n3\n')).toBe('FIT_INPUT');
    expect(code('a,"b\n1,2\n3,4\n')).toBe('FIT_INPUT');
    expect(code(csv, { maxRows: 100 })).toBe('FIT_LIMIT');
    expect(code(csv, { maxColumns: 3 })).toBe('FIT_LIMIT');
  });

  it('treats a header cell named __proto__ as an ordinary column name', () => {
    const { report, model } = fitCsv('__proto__,b\n1,2\n2,3\n3,5\n4,4\n');
    expect(report.columns[0]!.name).toBe('__proto__');
    expect(model.nodes.every((n) => n.name !== '__proto__')).toBe(true);
  });
});
