// The workbooks under workbooks/ were built and recalculated by LibreOffice (make-workbooks.mjs):
// their stored values are a spreadsheet's own calculation, and the compiled spec must reproduce them.
import { describe, expect, it } from 'vitest';
import { runTests, validateSpec, type JsonObject } from '../../src/calc/index.js';
import {
  DEFAULT_LIMITS,
  convertWorkbook,
  readWorkbook,
  REJECTION_REASONS,
  SheetError,
  type RejectedColumn,
  type SheetConversion,
} from '../../src/sheet/index.js';
import { MAX_LOOSE_CELLS } from '../../src/sheet/loose.js';
import { workbook, xlsx, xlsxBook } from './helpers.js';

const convert = (name: string): Promise<SheetConversion> =>
  convertWorkbook(workbook(name), { modelId: 'sheet-test', filename: name });

const byColumn = (rejected: RejectedColumn[]): Record<string, string> =>
  Object.fromEntries(rejected.map((r) => [r.column, r.reason]));

/** Every value the workbook stored for a formula cell of the table, by `$.rows[i].field`. */
/** Equal doubles, or a last bit apart (relative 2^-48, the spreadsheet's own equality). */
const sameDouble = (a: unknown, b: unknown): boolean =>
  a === b || (typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) < Math.abs(b) * 2 ** -48);

function storedValues(name: string, conversion: SheetConversion): Record<string, unknown> {
  const sheet = readWorkbook(workbook(name));
  const out: Record<string, unknown> = {};
  const props = ((conversion.spec.schema.properties as JsonObject).rows as JsonObject).items as JsonObject;
  const fields = Object.entries(props.properties as JsonObject);
  for (const d of conversion.spec.derivations) {
    const m = /^\$\.rows\[\*\]\.(\w+)$/.exec(d.path);
    if (!m) continue;
    const col = fields.findIndex(([n]) => n === m[1]) + 1;
    for (let r = 2; r <= sheet.maxRow; r++) {
      const cell = sheet.cells.get(`${r}:${col}`);
      if (cell?.formula) out[`$.rows[${r - 2}].${m[1]}`] = cell.value;
    }
  }
  return out;
}

describe('convert_spreadsheet on LibreOffice-calculated workbooks', () => {
  it('functions.xlsx: every supported function compiles and reproduces the stored values', async () => {
    const c = await convert('functions.xlsx');
    expect(c.rejectedColumns).toEqual([]);
    expect(c.compiledFields).toBe(c.formulaFields);
    expect(c.spec.derivations.map((d) => d.path)).toEqual([
      '$.fruit_2_code_index',
      '$.rows[*].subtotal',
      '$.rows[*].half_round',
      '$.rows[*].abs_qty',
      '$.rows[*].row_sum',
      '$.rows[*].row_average',
      '$.rows[*].row_min',
      '$.rows[*].row_max',
      '$.rows[*].number_count',
      '$.rows[*].flag',
      '$.rows[*].not_member',
      '$.rows[*].label',
      '$.rows[*].tail',
      '$.rows[*].name_length',
      '$.rows[*].is_code_a',
      '$.rows[*].power',
      '$.rows[*].category',
      '$.rows[*].share',
      '$.revenue',
      '$.total_qty',
      '$.average_price',
      '$.qty_count',
      '$.max_rate',
      '$.min_price',
      '$.doubled_revenue',
    ]);
    // the oracle: the spec's own tests, run by the calc engine, pass
    const report = await runTests(c.spec);
    expect(report.failed).toBe(0);
    expect(report.total).toBe(1);
    // and those tests hold what the workbook stored, for every computed cell: the same double, or
    // one a last bit apart (LibreOffice sums with compensation: 10+19.99+9 is 38.99 there)
    const expect0 = c.spec.tests[0]!.expect;
    expect(Object.keys(expect0)).toHaveLength(17 * 5 + 7);
    for (const [path, value] of Object.entries(storedValues('functions.xlsx', c)))
      expect(sameDouble(expect0[path], value), `${path}: ${String(expect0[path])} vs ${String(value)}`).toBe(
        true,
      );
    // Excel semantics the workbook shows: ROUND half away from zero, case-insensitive =, TRIM, VLOOKUP
    expect(expect0['$.rows[1].half_round']).toBe(5); // (10-1)/2 = 4.5
    expect(expect0['$.rows[4].half_round']).toBe(-3); // (-4-1)/2 = -2.5
    expect(expect0['$.rows[3].subtotal']).toBe(7.04); // 7 × 1.005
    expect(expect0['$.rows[3].is_code_a']).toBe(true); // "a" = "a", and "A" = "a" in row 1
    expect(expect0['$.rows[0].is_code_a']).toBe(true);
    expect(expect0['$.rows[0].label']).toBe('APP-A');
    expect(expect0['$.rows[3].category']).toBe('Pome'); // exact match ignores case
    expect(expect0['$.rows[1].flag']).toBe('no');
    expect(sameDouble(expect0['$.revenue'], 7.335)).toBe(true);
  });

  it('functions.xlsx: the spec is valid, typed, and its VLOOKUP reads the Code | Category table where it lies', async () => {
    const c = await convert('functions.xlsx');
    const report = await validateSpec(c.spec);
    expect(report.errors).toEqual([]);
    expect(report.valid).toBe(true);
    const rows = (c.spec.schema.properties as JsonObject).rows as JsonObject;
    const props = (rows.items as JsonObject).properties as Record<string, JsonObject>;
    expect(props.name).toMatchObject({ type: 'string', title: 'Name' });
    expect(props.qty).toMatchObject({ type: 'number' });
    expect(props.member).toMatchObject({ type: 'boolean' });
    expect(props.subtotal).toMatchObject({ type: 'number', readOnly: true });
    expect(props.label).toMatchObject({ type: 'string', readOnly: true });
    expect(props.not_member).toMatchObject({ type: 'boolean', readOnly: true });
    const library = c.spec.library as { define: string };
    // Z1:AA4 is a table of the model (fruit_2, its cells inputs): the lookup follows them, not
    // the workbook's values embedded in the library; its range is the table's data rows, so the
    // lookup reads the key column's index (a text key with wildcards scans it)
    expect(library.define).not.toContain('$lookup_table_1');
    expect(c.spec.derivations.find((d) => d.path === '$.rows[*].category')!.expr).toBe(
      '($e1 := ($e3 := $parent.code; $e4 := $xl_wild($e3); $exists($e4) ? $xl_wfind($$.fruit_2, "code", $e4) : ' +
        '($e2 := $xl_key($e3); $e2 = "x" ? $nothing : $lookup(($type($$.fruit_2_code_index) = "object" ? ' +
        '$$.fruit_2_code_index : $error("fruit_2_code_index has no value: the derivation that builds it failed")), $e2))); ' +
        '$e1.r.category)',
    );
    expect(c.spec.derivations.find((d) => d.path === '$.revenue')!.expr).toBe('$sum(rows.(qty * price))');
    expect(c.spec.derivations.find((d) => d.path === '$.rows[*].subtotal')!.expr).toBe(
      '$xl_round(($parent.qty * $parent.price), 2)',
    );
  });

  it('orders.xlsx: a plain order table with a SUMPRODUCT total', async () => {
    const c = await convert('orders.xlsx');
    expect(c.rejectedColumns).toEqual([]);
    expect(c.spec.id).toBe('sheet-test');
    expect(c.spec.tests[0]!.given['$.rows']).toEqual([
      { product: 'Widget', qty: 4, unit_price: 2.5 },
      { product: 'Gadget', qty: 1, unit_price: 19.99 },
      { product: 'Sprocket', qty: 12, unit_price: 0.75 },
    ]);
    expect(c.spec.tests[0]!.expect).toMatchObject({
      '$.rows[1].line_total': 19.99,
      '$.rows[1].with_vat': 23.99,
      '$.rows[2].summary': 'Sprocket x12',
    });
    // the file holds 38.99 (LibreOffice sums with compensation); the plain double sum is one bit
    // apart, equal for Excel's and LibreOffice's own `=`: the spec's test holds the model's double
    expect(c.spec.tests[0]!.expect['$.revenue']).toBe(10 + 19.99 + 9);
    expect(sameDouble(c.spec.tests[0]!.expect['$.revenue'], 38.99)).toBe(true);
    expect((await runTests(c.spec)).failed).toBe(0);
  });

  it('rejections.xlsx: each unsupported column is named with its reason; the rest still compiles', async () => {
    const c = await convert('rejections.xlsx');
    expect(byColumn(c.rejectedColumns)).toEqual({
      'Array constant': 'UNSUPPORTED_SYNTAX',
      'Per unit': 'ERROR_VALUE',
      'Row average': 'VALUE_MISMATCH',
      'Loop a': 'CIRCULAR_REFERENCE',
      'Loop b': 'CIRCULAR_REFERENCE',
    });
    // a side cell ($AA$1, labelled Markup) and a cell of another sheet (Rates!$A$1) are top-level
    // inputs; MATCH reads the lookup block X1:Y5, a table of its own, through its lookup index
    expect(c.spec.derivations.map((d) => [d.path, d.expr])).toEqual([
      ['$.items_2_item_index', '$merge($reverse([items_2#$i.{ $xl_key(item): {"i": $i + 1, "r": $} }]))'],
      ['$.rows[*].good', '($parent.qty * $parent.price)'],
      ['$.rows[*].root', '($e1 := $parent.qty; $e1 < 0 ? $nothing : $sqrt($e1))'],
      [
        '$.rows[*].position',
        // a key holding wildcards scans the column (xl_wfind); any other reads the index
        '($e1 := ($e3 := $parent.item; $e4 := $xl_wild($e3); $exists($e4) ? $xl_wfind($$.items_2, "item", $e4) : ($e2 := $xl_key($e3); $e2 = "x" ? $nothing : $lookup(($type($$.items_2_item_index) = "object" ? $$.items_2_item_index : $error("items_2_item_index has no value: the derivation that builds it failed")), $e2))); $e1.i + 0)',
      ],
      // VLOOKUP without FALSE over keys sorted ascending: approximate match, as LibreOffice computed it
      // the approximate VLOOKUP's block X1:Y5 is the items_2 table: read where it lies, not embedded
      [
        '$.rows[*].approx',
        '($e1 := $xl_approx($parent.item, $xl_arr($$.items_2.item), 1); $exists($e1) ? $xl_arr($$.items_2.tag)[$e1 - 1] : $nothing)',
      ],
      ['$.rows[*].cross_sheet', '($parent.qty * $$.rates_a1)'],
      // =SUM($B$2:B2), a running total: the rows of the column up to the formula's own
      ['$.rows[*].running', '$sum([$filter($$.rows, function($v, $i) { $i >= 0 and $i <= $index }).qty])'],
      // {=B2*C2}: a legacy array formula over its own row computes as the plain formula
      ['$.rows[*].array', '($parent.qty * $parent.price)'],
      ['$.rows[*].param', '($parent.qty * $$.markup)'],
      ['$.rows[*].root_plus_one', '($parent.root + 1)'],
      ['$.rows[*].shout', '($uppercase($parent.item) & "!")'],
      // a column whose rows hold different formulas is one cell per row, named after its row
      ['$.pen_non_uniform', '(rows[0].qty * 2)'],
      ['$.ink_non_uniform', '(rows[1].qty * 3)'],
      ['$.cap_non_uniform', '(rows[2].qty * 4)'],
      ['$.box_non_uniform', '(rows[3].qty * 5)'],
    ]);
    expect(c.spec.tests[0]!.given).toMatchObject({ '$.rates_a1': 2, '$.markup': 1.1 });
    expect((await runTests(c.spec)).failed).toBe(0);
    // the oracle's rejection shows both values
    const mismatch = c.rejectedColumns.find((r) => r.reason === 'VALUE_MISMATCH')!;
    expect(mismatch).toMatchObject({ address: 'Q', cell: 'Q3', expected: 1.5, actual: 1 });
    expect(mismatch.message).toBe(
      'Q3: the workbook stored 1.5, the compiled formula gives 1 (and 1 more cell)',
    );
    const divide = c.rejectedColumns.find((r) => r.reason === 'ERROR_VALUE')!;
    expect(divide).toMatchObject({ cell: 'O3', expected: '#DIV/0!' });
  });

  it('the workbooks exercise every rejection reason', async () => {
    const seen = new Set<string>();
    for (const name of ['functions.xlsx', 'orders.xlsx', 'rejections.xlsx', 'all-rejected.xlsx']) {
      for (const r of (await convert(name)).rejectedColumns) seen.add(r.reason);
    }
    // what LibreOffice cannot write without the other file: a link to another workbook whose
    // cached values the file lacks; a name that is not defined read as a range (as a value it is
    // #NAME?, unknown-name.test.ts); and a column reading a rejected one. And a column summing a moving
    // range of its own column (a recurrence through a range, which no fold computes)
    const links = await convertWorkbook(
      xlsx(
        '<row r="1"><c r="A1" t="inlineStr"><is><t>Qty</t></is></c><c r="B1" t="inlineStr"><is><t>Linked</t></is></c><c r="C1" t="inlineStr"><is><t>Named</t></is></c><c r="D1" t="inlineStr"><is><t>Next</t></is></c><c r="E1" t="inlineStr"><is><t>Array</t></is></c><c r="F1" t="inlineStr"><is><t>Balance</t></is></c><c r="G1" t="inlineStr"><is><t>Unsorted</t></is></c><c r="H1" t="inlineStr"><is><t>Moving</t></is></c></row>' +
          '<row r="2"><c r="A2"><v>2</v></c><c r="B2"><f>A2*[1]Rates!$A$1</f><v>4</v></c><c r="C2"><f>A2*SUM(Nowhere)</f><v>4</v></c><c r="D2"><f>B2+1</f><v>5</v></c><c r="E2"><f t="array" ref="E2">SUM(A2:A2*2)</f><v>4</v></c><c r="F2"><f>IF(A2=2,A2,SUM($F$2:F2))</f><v>2</v></c><c r="G2"><f>VLOOKUP(A2,$X$5:$Y$6,2)</f><v>7</v></c><c r="H2"><f>OFFSET(A2,0,0)</f><v>2</v></c></row>' +
          '<row r="5"><c r="X5"><v>5</v></c><c r="Y5"><v>6</v></c></row><row r="6"><c r="X6"><v>1</v></c><c r="Y6"><v>7</v></c></row>',
      ),
      { modelId: 'links' },
    );
    expect(byColumn(links.rejectedColumns)).toEqual({
      Linked: 'CROSS_SHEET_REFERENCE',
      Named: 'UNSUPPORTED_REFERENCE',
      Next: 'DEPENDS_ON_REJECTED',
      Array: 'ARRAY_FORMULA',
      Balance: 'CROSS_ROW_REFERENCE',
      // approximate match over keys that are not sorted: each spreadsheet's own binary search
      Unsorted: 'APPROXIMATE_VLOOKUP',
      Moving: 'UNSUPPORTED_FUNCTION',
    });
    for (const r of links.rejectedColumns) seen.add(r.reason);
    // a column of different formulas too long to become one cell per row
    const long = Array.from({ length: MAX_LOOSE_CELLS + 1 }, (_, i) => {
      const r = i + 2;
      return `<row r="${r}"><c r="A${r}"><v>1</v></c><c r="B${r}"><f>A${r}*${r}</f><v>${r}</v></c></row>`;
    });
    const wide = await convertWorkbook(
      xlsx(
        '<row r="1"><c r="A1" t="inlineStr"><is><t>Qty</t></is></c><c r="B1" t="inlineStr"><is><t>Times</t></is></c></row>' +
          long.join(''),
      ),
      { modelId: 'long' },
    );
    expect(byColumn(wide.rejectedColumns)).toEqual({ Times: 'NON_UNIFORM_FORMULA' });
    for (const r of wide.rejectedColumns) seen.add(r.reason);
    // a sheet past the row budget beside one that fits: left out alone (big-sheet.test.ts)
    const header =
      '<row r="1"><c r="A1" t="inlineStr"><is><t>Qty</t></is></c><c r="B1" t="inlineStr"><is><t>Twice</t></is></c></row>';
    const twice = (r: number): string =>
      `<row r="${r}"><c r="A${r}"><v>1</v></c><c r="B${r}"><f>A${r}*2</f><v>2</v></c></row>`;
    const big = await convertWorkbook(
      xlsxBook([
        { name: 'Small', rows: header + twice(2) },
        { name: 'Big', rows: header + [2, 3, 4].map(twice).join('') },
      ]),
      { modelId: 'big', limits: { ...DEFAULT_LIMITS, maxRows: 2 } },
    );
    expect(byColumn(big.rejectedColumns)).toEqual({ "sheet 'Big'": 'SHEET_TOO_LARGE' });
    for (const r of big.rejectedColumns) seen.add(r.reason);
    // a Google Sheets export's function with no Excel meaning here (google-sheets.test.ts)
    const google = await convertWorkbook(
      xlsx(
        '<row r="1"><c r="A1" t="inlineStr"><is><t>Qty</t></is></c><c r="B1" t="inlineStr"><is><t>Query</t></is></c></row>' +
          '<row r="2"><c r="A2"><v>1</v></c><c r="B2" t="str"><f>IFERROR(__xludf.DUMMYFUNCTION("QUERY(A2:A3,""select A"")"),1)</f><v>1</v></c></row>' +
          '<row r="3"><c r="A3"><v>2</v></c></row>',
      ),
      { modelId: 'google' },
    );
    expect(google.rejectedColumns.map((r) => r.reason)).toEqual(['GOOGLE_SHEETS_FUNCTION']);
    for (const r of google.rejectedColumns) seen.add(r.reason);
    // WHAT_IF_MISMATCH needs a compilation wrong after an edit: whatif.test.ts breaks one on purpose
    seen.add('WHAT_IF_MISMATCH');
    expect([...seen].sort()).toEqual([...REJECTION_REASONS].sort());
  });

  it('all-rejected.xlsx: HLOOKUP and SQRT, both once rejected, now compile (to the values LibreOffice stored)', async () => {
    const c = await convert('all-rejected.xlsx');
    expect(c.formulaFields).toBe(2);
    expect(c.compiledFields).toBe(2);
    expect(c.rejectedColumns).toEqual([]);
  });

  it("too-many-columns.xlsx: 101 columns convert, and a caller's budget of 100 columns refuses them", async () => {
    const wide = await convert('too-many-columns.xlsx');
    expect(wide.report.sheets.map((s) => s.name)).toEqual(['Wide']);
    expect(wide.rejectedColumns).toEqual([]);
    const err = await convertWorkbook(workbook('too-many-columns.xlsx'), {
      modelId: 'wide',
      limits: { ...DEFAULT_LIMITS, maxColumns: 100 },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'TOO_MANY_COLUMNS',
      message: 'cell CW1 lies past the limit of 100 columns',
    });
  });

  it.each([
    ['too-many-rows.xlsx', 'TOO_MANY_ROWS'],
    ['no-table.xlsx', 'NO_TABLE'],
    ['not-xlsx.ods', 'UNSUPPORTED_FORMAT'],
  ])('%s is refused as %s', async (name, code) => {
    const err = await convert(name).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SheetError);
    expect((err as SheetError).code).toBe(code);
  });

  it('a truncated workbook is PARSE_FAILED', async () => {
    const bytes = workbook('orders.xlsx');
    const err = await convertWorkbook(bytes.subarray(0, Math.floor(bytes.length / 2)), {
      modelId: 'x',
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'PARSE_FAILED' });
  });
});
