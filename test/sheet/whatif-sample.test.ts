// What-if edits a seeded sample of a long input column's cells per round (whatif.ts): the sample is
// bounded, in sheet order, without repeats, the same for a seed, and spread over the whole column.
import { describe, expect, it } from 'vitest';
import { EDITED_CELLS_PER_INPUT, sampleCells } from '../../src/sheet/whatif.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';

describe('what-if: the cells edited in a round', () => {
  it('edits every cell of a column up to the bound', () => {
    const cells = Array.from({ length: EDITED_CELLS_PER_INPUT }, (_, i) => i);
    expect(sampleCells(cells, new L64X128MixRandom(1n))).toEqual(cells);
  });

  it('samples a longer column: bounded, in order, no repeats, seeded, spread over the rows', () => {
    const cells = Array.from({ length: 10_000 }, (_, i) => i);
    const a = sampleCells(cells, new L64X128MixRandom(7n));
    expect(a).toHaveLength(EDITED_CELLS_PER_INPUT);
    expect(new Set(a).size).toBe(a.length);
    expect([...a].sort((x, y) => x - y)).toEqual(a);
    expect(sampleCells(cells, new L64X128MixRandom(7n))).toEqual(a);
    expect(sampleCells(cells, new L64X128MixRandom(8n))).not.toEqual(a);
    // each tenth of the column holds about a tenth of the sample (50 expected; binomial sd ~6.7)
    for (let k = 0; k < 10; k++) {
      const inTenth = a.filter((i) => i >= k * 1000 && i < (k + 1) * 1000).length;
      expect(inTenth).toBeGreaterThan(20);
      expect(inTenth).toBeLessThan(80);
    }
  });
});
