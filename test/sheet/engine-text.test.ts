// No JavaScript engine text in a conversion's result: formulas deep or long enough to exhaust the
// stack are rejected by the parser's own limits, and a failure nobody foresaw becomes INTERNAL_ERROR
// in our words, its details going to the log.
import { describe, expect, it } from 'vitest';
import { MAX_FORMULA_NESTING, MAX_FORMULA_NODES } from '../../src/sheet/formula.js';
import { convertSpreadsheetBytes } from '../../src/service/sheet-service.js';
import { xlsx } from './helpers.js';

const ENGINE_TEXT =
  /Maximum call stack|Cannot read properties|is not a function|is not iterable|RangeError|TypeError/;

const header = (...names: string[]): string =>
  `<row r="1">${names.map((n, i) => `<c r="${String.fromCharCode(65 + i)}1" t="inlineStr"><is><t>${n}</t></is></c>`).join('')}</row>`;

/** Qty 3, Double =A2*2 (6), and a third column holding `formula` with the stored value 3. */
const bookWith = (formula: string): Uint8Array =>
  xlsx(
    header('Qty', 'Double', 'Odd') +
      `<row r="2"><c r="A2"><v>3</v></c><c r="B2"><f>A2*2</f><v>6</v></c><c r="C2"><f>${formula}</f><v>3</v></c></row>`,
  );

describe('formulas past the parser limits', () => {
  it.each([
    [
      '2,000 nested parentheses',
      `${'('.repeat(2000)}A2${')'.repeat(2000)}`,
      `nests more than ${MAX_FORMULA_NESTING}`,
    ],
    ['5,000 unary minus signs', `${'-'.repeat(5000)}A2`, `nests more than ${MAX_FORMULA_NESTING}`],
    [
      'a sum of 2,000 terms',
      Array.from({ length: 2000 }, () => 'A2').join('+'),
      `more than ${MAX_FORMULA_NODES}`,
    ],
    ['9,000 characters', `A2${'+0'.repeat(4500)}`, 'the limit is 8192'],
  ])('%s: that column is rejected as UNSUPPORTED_SYNTAX, the rest compiles', async (_label, formula, why) => {
    const result = await convertSpreadsheetBytes(bookWith(formula), 'deep.xlsx', undefined);
    expect(JSON.stringify(result)).not.toMatch(ENGINE_TEXT);
    expect(result).toMatchObject({ valid: true });
    if (!result.valid) return;
    expect(result.spec.derivations.map((d) => d.path)).toEqual(['$.rows[*].double']);
    expect(result.rejectedColumns).toEqual([
      expect.objectContaining({
        column: 'Odd',
        reason: 'UNSUPPORTED_SYNTAX',
        message: expect.stringContaining(why),
      }),
    ]);
  });

  it('64 levels of nesting (Excel’s own limit) still compile', async () => {
    const result = await convertSpreadsheetBytes(
      bookWith(`${'('.repeat(MAX_FORMULA_NESTING)}A2${')'.repeat(MAX_FORMULA_NESTING)}`),
      'deep.xlsx',
      undefined,
    );
    expect(result).toMatchObject({ valid: true, rejectedColumns: [] });
  });
});

describe('a failure the converter does not foresee', () => {
  it('is INTERNAL_ERROR in our words; the details go to the log, not into the result', async () => {
    const logged: string[] = [];
    // bytes that are not bytes: the reader fails inside, on a path no workbook takes
    const result = await convertSpreadsheetBytes(
      undefined as unknown as Uint8Array,
      'book.xlsx',
      undefined,
      undefined,
      (m) => logged.push(m),
    );
    expect(result).toMatchObject({ valid: false, reason: 'INTERNAL_ERROR' });
    expect(JSON.stringify(result)).not.toMatch(ENGINE_TEXT);
    expect(logged.join('\n')).toMatch(ENGINE_TEXT);
  });
});
