// Names from the workbook are data: headers, summary labels and sheet names such as `__proto__`,
// `constructor` or `hasOwnProperty` never reach Object.prototype. A header becomes a field name by
// the one naming rule (lower case, other characters `_`, no leading or trailing `_`), so
// `__proto__` is the field `proto` (its title stays `__proto__`), and `constructor` / `prototype`
// are ordinary fields. (The suite's prototype guard also checks Object.prototype after each test.)
import fc from 'fast-check';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { runTests, type JsonObject } from '../../src/calc/index.js';
import { convertSpreadsheetBytes } from '../../src/service/sheet-service.js';
import { xlsx, xlsxEntries } from './helpers.js';

const HOSTILE = [
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '__defineGetter__',
  'isPrototypeOf',
] as const;

const letter = (i: number): string => String.fromCharCode(65 + i);
const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const text = (ref: string, s: string): string =>
  `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${esc(s)}</t></is></c>`;

/**
 * A table whose headers are `names` (input columns holding 1, 2, …), a last column `Total` adding
 * them all, and a summary cell below labelled `label` summing Total.
 */
function book(names: readonly string[], label: string): Uint8Array {
  const n = names.length;
  const total = letter(n);
  const sum = names.map((_, i) => `${letter(i)}2`).join('+');
  return xlsx(
    `<row r="1">${names.map((h, i) => text(`${letter(i)}1`, h)).join('')}${text(`${total}1`, 'Total')}</row>` +
      `<row r="2">${names.map((_, i) => `<c r="${letter(i)}2"><v>${i + 1}</v></c>`).join('')}` +
      `<c r="${total}2"><f>${sum}</f><v>${(n * (n + 1)) / 2}</v></c></row>` +
      `<row r="4">${text('A4', label)}<c r="B4"><f>SUM($${total}$2:$${total}$2)</f><v>${(n * (n + 1)) / 2}</v></c></row>`,
  );
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const rowFields = (spec: Json): Json => spec.schema.properties.rows.items.properties as Json;

describe('prototype-named headers, labels and sheets', () => {
  it('each hostile name is an ordinary field; __proto__ becomes `proto`, titled __proto__', async () => {
    const result = await convertSpreadsheetBytes(book(HOSTILE, '__proto__'), 'proto.xlsx', undefined);
    expect(result).toMatchObject({ valid: true, rejectedColumns: [] });
    if (!result.valid) return;
    const fields = rowFields(result.spec);
    expect(Object.keys(fields)).toEqual([
      'proto',
      'constructor',
      'prototype',
      'hasownproperty',
      'tostring',
      'valueof',
      'definegetter',
      'isprototypeof',
      'total',
    ]);
    expect(fields.proto).toMatchObject({ title: '__proto__', type: 'number' });
    expect(Object.hasOwn(fields, 'constructor')).toBe(true);
    expect(fields.constructor).toMatchObject({ title: 'constructor' });
    // the summary labelled __proto__ is the root field `proto` (row fields are named apart)
    expect(result.spec.derivations.map((d) => d.path)).toEqual(['$.rows[*].total', '$.proto']);
    // the spec's own test reads and computes every field, constructor and prototype included
    expect((await runTests(result.spec)).failed).toBe(0);
    const given = (result.spec.tests[0]!.given as JsonObject)['$.rows'] as JsonObject[];
    expect(given[0]).toEqual({
      proto: 1,
      constructor: 2,
      prototype: 3,
      hasownproperty: 4,
      tostring: 5,
      valueof: 6,
      definegetter: 7,
      isprototypeof: 8,
    });
    expect(Object.getPrototypeOf(given[0])).toBe(Object.prototype);
  });

  it('a sheet named __proto__ and defined names are data too', async () => {
    const entries = xlsxEntries(
      `<row r="1">${text('A1', 'constructor')}${text('B1', 'Twice')}</row>` +
        '<row r="2"><c r="A2"><v>4</v></c><c r="B2"><f>A2*2</f><v>8</v></c></row>',
    );
    entries['xl/workbook.xml'] = strToU8(
      '<?xml version="1.0"?><workbook xmlns:r="r"><sheets><sheet name="__proto__" sheetId="1" r:id="rId1"/>' +
        '<sheet name="constructor" sheetId="2" r:id="rId2"/></sheets>' +
        '<definedNames><definedName name="__proto__">__proto__!$A$1</definedName></definedNames></workbook>',
    );
    const result = await convertSpreadsheetBytes(zipSync(entries), 'sheets.xlsx', undefined);
    expect(result).toMatchObject({ valid: true, rejectedColumns: [] });
    if (!result.valid) return;
    expect(result.spec.schema.description).toBe("Compiled from sheet '__proto__' of sheets.xlsx");
    expect(Object.keys(rowFields(result.spec))).toEqual(['constructor', 'twice']);
  });

  it('any headers, hostile ones mixed in: distinct field names, never __proto__, Object.prototype untouched', async () => {
    const header = fc.oneof(
      fc.constantFrom(...HOSTILE),
      fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== ''),
      fc.constantFrom(...HOSTILE).map((h) => ` ${h.toUpperCase()} `),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(header, { minLength: 1, maxLength: 6 }),
        fc.constantFrom(...HOSTILE),
        async (names, label) => {
          // XML cannot carry every character; those a workbook could not hold are left out
          const clean = names.map((s) => s.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD]/g, 'x'));
          const result = await convertSpreadsheetBytes(book(clean, label), 'any.xlsx', undefined);
          expect(result).toMatchObject({ valid: true, rejectedColumns: [] });
          if (!result.valid) return;
          const fields = Object.keys(rowFields(result.spec));
          expect(new Set(fields).size).toBe(clean.length + 1);
          expect(fields).not.toContain('__proto__');
          expect(Object.keys(rowFields(result.spec)).map((f) => rowFields(result.spec)[f].title)).toEqual([
            ...clean.map((s) => s.trim()),
            'Total',
          ]);
          expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('polluted');
        },
      ),
      { numRuns: 60 },
    );
  });
});
