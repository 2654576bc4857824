/**
 * Rows written straight to bytes (renderRangeBytes, what grind and the worker batches write) are
 * exactly the UTF-8 encoding of the text path (renderChunks, what the Service and the corpus
 * replay write): generated rows of every kind and value (edge numbers, quotes, separators,
 * non-ASCII text, lone surrogates) in every format, and real models' rows.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GraphRun } from '../../src/synth/engine/graph-run.js';
import { COMPOSITE, DOUBLE, INT, Row, STRING } from '../../src/synth/engine/row.js';
import type { Composite } from '../../src/synth/engine/row.js';
import { SynthRun } from '../../src/synth/engine/run.js';
import { parseModel } from '../../src/synth/model/io.js';
import { ByteWriter, renderRangeBytes } from '../../src/synth/output/bytes.js';
import { OUTPUT_FORMATS, renderChunks } from '../../src/synth/output/format.js';
import type { OutputFormat } from '../../src/synth/output/format.js';
import { outputEnd, outputStart } from '../../src/synth/output/range.js';
import { DICE_MODEL, xmlModel } from './helpers.js';

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

function names(dimension: number): string[] {
  return Array.from({ length: dimension }, (_, i) => `dim${i}`);
}

/** A run that hands out the given rows: the row source, not the rendering under test. */
function rowsRun(rows: Row[], dimension: number): SynthRun {
  let at = 0;
  const run = { dimension, next: () => rows[at++ % rows.length]!, header: () => names(dimension) };
  return run as unknown as SynthRun;
}

/** The text path's whole output of `count` rows (no CSV header). */
function textOf(run: SynthRun, count: number, format: OutputFormat): string {
  return [...renderChunks(run, { count, format, header: false, chunkRows: 3 })].join('');
}

/** Rows [0, count) as bytes, with the text around them, as one string. */
function bytesOf(run: GraphRun, count: number, format: OutputFormat, ends?: Uint32Array): string {
  const rows = Buffer.from(renderRangeBytes(run, 0, count, format, run.header(), ends));
  return outputStart(format, false, run.header()) + rows.toString('utf8') + outputEnd(format, count);
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
        ([dim, cells], format: OutputFormat) => {
          const rows = cells.map(toRow);
          const text = textOf(rowsRun(rows, dim), rows.length, format);
          const ends = new Uint32Array(rows.length);
          const bytes = renderRangeBytes(rowsRun(rows, dim), 0, rows.length, format, names(dim), ends);
          const start = Buffer.from(outputStart(format, false, names(dim)));
          const whole = Buffer.concat([start, bytes, Buffer.from(outputEnd(format, rows.length))]);
          // Buffer.from encodes as TextEncoder does (a lone surrogate becomes U+FFFD)
          expect(whole.equals(Buffer.from(text))).toBe(true);
          // each row ends where the text of the rows up to it ends
          for (let k = 1; k <= rows.length; k++) {
            const upTo = Buffer.byteLength(textOf(rowsRun(rows, dim), k, format));
            expect(start.length + ends[k - 1]! + Buffer.byteLength(outputEnd(format, k))).toBe(upTo);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('are the UTF-8 of the text path for real models, from a small first guess at the size', () => {
    const models = [
      DICE_MODEL,
      xmlModel(
        'Row',
        '<Append name="Row"><input name="U"/><input name="N"/><input name="I"/></Append>' +
          '<Uniform name="U" min="-1000000" max="1000000"/><Normal name="N" mean="0" stdDev="1e-7"/>' +
          '<IPAddress name="I"/>',
      ),
    ];
    for (const model of models)
      for (const format of OUTPUT_FORMATS) {
        const text = textOf(new SynthRun(parseModel(model), 3n), 3000, format);
        expect(bytesOf(new SynthRun(parseModel(model), 3n), 3000, format)).toBe(text);
      }
  });

  it('grow past their first capacity without losing a byte', () => {
    const out = new ByteWriter(1);
    const parts = ['abc', 'é😀', 'x'.repeat(5000), '\ud800', ''];
    for (const p of parts) out.text(p);
    expect(Buffer.from(out.bytes()).toString('utf8')).toBe(parts.join('').replace('\ud800', '\ufffd'));
  });
});
