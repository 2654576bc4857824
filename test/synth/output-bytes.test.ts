/**
 * Rows written straight to bytes (renderRangeBytes, what grind and the worker batches write) are
 * exactly the UTF-8 encoding of the text path (renderRange): generated rows of every kind and
 * value (edge numbers, quotes, separators, non-ASCII text, lone surrogates) in every format, and
 * real models' rows.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GraphRun } from '../../src/synth/engine/graph-run.js';
import { COMPOSITE, DOUBLE, INT, Row, STRING } from '../../src/synth/engine/row.js';
import type { Composite } from '../../src/synth/engine/row.js';
import { SynthRun } from '../../src/synth/engine/run.js';
import { parseModel } from '../../src/synth/model/io.js';
import { ByteWriter, renderRangeBytes } from '../../src/synth/output/bytes.js';
import { OUTPUT_FORMATS } from '../../src/synth/output/format.js';
import type { OutputFormat } from '../../src/synth/output/format.js';
import { renderRange } from '../../src/synth/output/range.js';
import { xmlModel } from './helpers.js';

const encoder = new TextEncoder();

type Cell =
  | { kind: typeof DOUBLE | typeof INT; num: number }
  | { kind: typeof STRING | typeof COMPOSITE; text: string };

const number = fc.oneof(
  fc.constantFrom(-0, 0, 0.5, 1, 7, 1023, 1023.5, 1024, -1, 1e7, -1e7, 1e21, 2 ** 53, 2 ** 63, NaN, Infinity),
  fc.integer({ min: -2000, max: 2000 }),
  fc.double(),
);
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }), // lone surrogates included
  fc.constantFrom('', 'a,b', 'say "hi"', 'two\nlines', '\r', 'é', '😀', '\ud800'),
);
const cell: fc.Arbitrary<Cell> = fc.oneof(
  fc.record({ kind: fc.constantFrom(DOUBLE, INT), num: number }) as fc.Arbitrary<Cell>,
  fc.record({ kind: fc.constantFrom(STRING, COMPOSITE), text }) as fc.Arbitrary<Cell>,
);

function toRow(cells: Cell[]): Row {
  const row = new Row(cells.length);
  cells.forEach((c, i) => {
    if ('num' in c) {
      row.kinds[i] = c.kind;
      // an INT data point holds a finite whole number (the engine narrows before it marks one)
      row.nums[i] = c.kind !== INT ? c.num : Number.isFinite(c.num) ? Math.trunc(c.num) : 0;
    } else if (c.kind === STRING) row.setText(i, c.text);
    else {
      const composite: Composite = {
        type: 'T',
        text: c.text,
        numeric: NaN,
        fieldNames: [],
        field: () => undefined,
      };
      row.setComposite(i, composite);
    }
  });
  return row;
}

/** A run that hands out the given rows: the row source, not the rendering under test. */
function rowsRun(rows: Row[], dimension: number): GraphRun {
  let at = 0;
  return { dimension, next: () => rows[at++ % rows.length]! } as unknown as GraphRun;
}

function names(dimension: number): string[] {
  return Array.from({ length: dimension }, (_, i) => `dim${i}`);
}

describe('rows as bytes', () => {
  it('are the UTF-8 of the text path for generated rows, in every format, with the right row ends', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 6 })
          .chain((dim) =>
            fc.tuple(
              fc.constant(dim),
              fc.array(fc.array(cell, { minLength: dim, maxLength: dim }), { minLength: 1, maxLength: 6 }),
            ),
          ),
        fc.constantFrom(...OUTPUT_FORMATS),
        fc.nat(3),
        ([dim, cells], format: OutputFormat, from) => {
          const rows = cells.map(toRow);
          const to = from + rows.length;
          const text = renderRange(rowsRun(rows, dim), from, to, format, names(dim));
          const ends = new Uint32Array(rows.length);
          const bytes = renderRangeBytes(rowsRun(rows, dim), from, to, format, names(dim), ends);
          expect(Buffer.from(bytes).equals(Buffer.from(encoder.encode(text)))).toBe(true);
          expect(ends[rows.length - 1]).toBe(bytes.length);
          // each row end falls where that row's own text ends
          const firstEnd = encoder.encode(
            renderRange(rowsRun(rows, dim), from, from + 1, format, names(dim)),
          ).length;
          expect(ends[0]).toBe(firstEnd);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('are the UTF-8 of the text path for real models, from a small first guess at the size', () => {
    const models = [
      `dataset.root = Scores
Roll = Uniform(1, 7)
Die = ToInteger(Roll, mode="floor")
Three = Redimension(Die, dimension=3)
Total = Calculate(Three, expression="y[0] = x[0] + x[1] + x[2]")
Score = Arrange(Total, columns=(0))
Scores = Redimension(Score, dimension=6)
`,
      xmlModel(
        'Row',
        '<Append name="Row"><input name="U"/><input name="N"/><input name="I"/></Append>' +
          '<Uniform name="U" min="-1000000" max="1000000"/><Normal name="N" mean="0" stdDev="1e-7"/>' +
          '<IPAddress name="I"/>',
      ),
    ];
    for (const model of models)
      for (const format of OUTPUT_FORMATS) {
        const a = new SynthRun(parseModel(model), 3n);
        const b = new SynthRun(parseModel(model), 3n);
        const text = renderRange(a, 0, 3000, format, a.header());
        const bytes = renderRangeBytes(b, 0, 3000, format, b.header());
        expect(Buffer.from(bytes).toString('utf8')).toBe(text);
        expect(bytes.length).toBe(Buffer.byteLength(text));
      }
  });

  it('grow past their first capacity without losing a byte', () => {
    const out = new ByteWriter(1);
    const parts = ['abc', 'é😀', 'x'.repeat(5000), '\ud800', ''];
    for (const p of parts) out.text(p);
    expect(Buffer.from(out.bytes()).toString('utf8')).toBe(parts.join('').replace('\ud800', '\ufffd'));
  });
});
