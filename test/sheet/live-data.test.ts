// Live data a service returns (a linked data type's field `_FV`, STOCKHISTORY) is no formula a
// model can compute: such a cell is refused with that reason, not as a syntax error it is not.
import { describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/index.js';
import { writeBook } from './oracle/book.js';

describe('live data', () => {
  it('a linked data type`s field and STOCKHISTORY are refused as live data', async () => {
    const bytes = writeBook(
      {
        sheets: [
          {
            name: 'Stocks',
            cells: {
              A1: 'Company',
              B1: 'Price',
              C1: 'History',
              A2: 'Apple',
              B2: '=_FV(A2,"Price")',
              C2: '=_xlfn.STOCKHISTORY("AAPL",45000,45010)',
            },
          },
        ],
      },
      (_sheet, ref) => (ref === 'B2' ? 147.11 : ref === 'C2' ? 'Date' : undefined),
    );
    const { report } = await convertWorkbook(bytes, { modelId: 'live', filename: 'live.xlsx' });
    const messages = report.rejected.flatMap((r) => r.examples.map((e) => `${r.reason}: ${e.message}`));
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^UNSUPPORTED_FUNCTION: a field of a linked data type .* is live data/),
        expect.stringMatching(/^UNSUPPORTED_FUNCTION: STOCKHISTORY is live data/),
      ]),
    );
  });
});
