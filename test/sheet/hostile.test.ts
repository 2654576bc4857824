// Hostile files: each is refused with a clear code, within the limits and with bounded memory.
import { createDeflateRaw } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convertWorkbook, SheetError } from '../../src/sheet/index.js';
import { readWorkbookParts } from '../../src/sheet/xlsx.js';
import { convertSpreadsheet } from '../../src/service/sheet-service.js';
import { xlsx, xlsxEntries } from './helpers.js';

const refusal = async (bytes: Uint8Array): Promise<SheetError> => {
  const err = await convertWorkbook(bytes, { modelId: 'hostile' }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SheetError);
  return err as SheetError;
};

/** 1 GiB of zeros, deflated as it streams (never held in memory): about 4.5 MB. */
async function deflatedZeros(mib: number): Promise<Uint8Array> {
  const d = createDeflateRaw({ level: 1 });
  const chunks: Buffer[] = [];
  d.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((resolve) => d.on('end', resolve));
  const zeros = Buffer.alloc(1 << 20);
  for (let i = 0; i < mib; i++) d.write(zeros);
  d.end();
  await done;
  return new Uint8Array(Buffer.concat(chunks));
}

/** A zip archive with hand-set header fields, so the declared sizes can lie. */
function rawZip(entries: { name: string; data: Uint8Array; method: number; size: number }[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = strToU8(e.name);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(8, e.method, true);
    local.setUint32(18, e.data.length, true);
    local.setUint32(22, e.size, true);
    local.setUint16(26, name.length, true);
    const cd = new DataView(new ArrayBuffer(46));
    cd.setUint32(0, 0x02014b50, true);
    cd.setUint16(4, 20, true);
    cd.setUint16(6, 20, true);
    cd.setUint16(10, e.method, true);
    cd.setUint32(20, e.data.length, true);
    cd.setUint32(24, e.size, true);
    cd.setUint16(28, name.length, true);
    cd.setUint32(42, offset, true);
    parts.push(new Uint8Array(local.buffer), name, e.data);
    central.push(new Uint8Array(cd.buffer), name);
    offset += 30 + name.length + e.data.length;
  }
  const cdSize = central.reduce((n, p) => n + p.length, 0);
  const eocd = new DataView(new ArrayBuffer(22));
  eocd.setUint32(0, 0x06054b50, true);
  eocd.setUint16(8, entries.length, true);
  eocd.setUint16(10, entries.length, true);
  eocd.setUint32(12, cdSize, true);
  eocd.setUint32(16, offset, true);
  const all = [...parts, ...central, new Uint8Array(eocd.buffer)];
  const out = new Uint8Array(all.reduce((n, p) => n + p.length, 0));
  let p = 0;
  for (const a of all) {
    out.set(a, p);
    p += a.length;
  }
  return out;
}

const stored = (name: string, text: string) => {
  const data = strToU8(text);
  return { name, data, method: 0, size: data.length };
};
const skeleton = () => {
  const e = xlsxEntries('');
  return ['[Content_Types].xml', 'xl/workbook.xml', 'xl/_rels/workbook.xml.rels'].map((n) => {
    const data = e[n] as Uint8Array;
    return { name: n, data, method: 0, size: data.length };
  });
};

// Heap growth is a coarse, deliberately generous bound, not a measurement: inflating the bomb would
// add about 1 GiB, 16 times the 64 MiB allowed, while GC timing moves the figure by a few MiB at most.
const memory = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

describe('hostile workbooks', () => {
  it('a zip bomb (1 GiB of zeros in a 4.5 MB sheet part) is refused before inflating', async () => {
    const bomb = await deflatedZeros(1024);
    const bytes = rawZip([
      ...skeleton(),
      { name: 'xl/worksheets/sheet1.xml', data: bomb, method: 8, size: 1 << 30 },
    ]);
    expect(bytes.length).toBeLessThan(10 * 1024 * 1024);
    const before = memory();
    const err = await refusal(bytes);
    expect(err.code).toBe('FILE_TOO_LARGE');
    expect(err.message).toContain('zip-bomb guard');
    expect(memory() - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('a zip bomb that lies about its size stops inflating at the declared size', async () => {
    const bomb = await deflatedZeros(1024);
    const bytes = rawZip([
      ...skeleton(),
      { name: 'xl/worksheets/sheet1.xml', data: bomb, method: 8, size: 10_000 },
    ]);
    const before = memory();
    const err = await refusal(bytes);
    expect(err.code).toBe('FILE_TOO_LARGE');
    // the message names the declared size, so inflating stopped there (no stopwatch needed)
    expect(err.message).toContain('inflates past its declared 10000 bytes');
    expect(memory() - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('a 50 MB file is refused by size, before decoding or unzipping', async () => {
    const big = new Uint8Array(50 * 1024 * 1024);
    big.set([0x50, 0x4b, 3, 4]);
    expect((await refusal(big)).code).toBe('FILE_TOO_LARGE');
    const viaTool = await convertSpreadsheet({
      data: Buffer.from(big).toString('base64'),
      filename: 'big.xlsx',
    });
    expect(viaTool).toMatchObject({ valid: false, reason: 'FILE_TOO_LARGE' });
  });

  it('100,000 rows are refused as TOO_MANY_ROWS before the sheet is parsed', async () => {
    const rows = ['<row r="1"><c r="A1" t="inlineStr"><is><t>n</t></is></c></row>'];
    for (let r = 2; r <= 100_001; r++) rows.push(`<row r="${r}"><c r="A${r}"><v>${r}</v></c></row>`);
    const bytes = xlsx(rows.join(''));
    const before = memory();
    const err = await refusal(bytes);
    expect(err.code).toBe('TOO_MANY_ROWS');
    expect(err.message).toContain('100001 rows');
    expect(memory() - before).toBeLessThan(128 * 1024 * 1024);
  });

  it.each([
    [
      'a text file renamed .xlsx',
      strToU8('Product,Qty\nWidget,4\n'),
      'UNSUPPORTED_FORMAT',
      'not a zip archive',
    ],
    ['a PDF renamed .xlsx', strToU8('%PDF-1.7\n...'), 'UNSUPPORTED_FORMAT', 'PDF'],
    [
      'a legacy .xls (OLE2) renamed .xlsx',
      new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]),
      'UNSUPPORTED_FORMAT',
      'legacy .xls',
    ],
    ['an empty file', new Uint8Array(0), 'UNSUPPORTED_FORMAT', 'empty'],
    [
      'a zip of something else',
      zipSync({ 'readme.txt': strToU8('hi') }),
      'UNSUPPORTED_FORMAT',
      'not an .xlsx',
    ],
    [
      'zip magic followed by garbage',
      new Uint8Array([0x50, 0x4b, 3, 4, 1, 2, 3, 4, 5, 6]),
      'PARSE_FAILED',
      'zip',
    ],
  ])('%s → %s', async (_label, bytes, code, text) => {
    const err = await refusal(bytes);
    expect(err.code).toBe(code);
    expect(err.message).toContain(text);
  });

  it('a corrupt deflate stream and broken XML are PARSE_FAILED', async () => {
    const garbage = {
      name: 'xl/worksheets/sheet1.xml',
      data: new Uint8Array([0xff, 0xff, 0xff, 0xff]),
      method: 8,
      size: 100,
    };
    expect((await refusal(rawZip([...skeleton(), garbage]))).code).toBe('PARSE_FAILED');
    const broken = stored('xl/worksheets/sheet1.xml', '<worksheet><sheetData><row r="1"><c r="A1"');
    expect((await refusal(rawZip([...skeleton(), broken]))).code).toBe('PARSE_FAILED');
    const doctype = stored('xl/worksheets/sheet1.xml', '<!DOCTYPE lol [<!ENTITY a "aaaa">]><worksheet/>');
    expect((await refusal(rawZip([...skeleton(), doctype]))).message).toContain('DOCTYPE');
  });

  it('a cell past XFD, the last column a spreadsheet has, is TOO_MANY_COLUMNS', async () => {
    const err = await refusal(xlsx('<row r="1"><c r="XFE1"><v>1</v></c></row>'));
    expect(err.code).toBe('TOO_MANY_COLUMNS');
  });

  it.each([
    ['one far cell', '<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>', 'A1:XFD1048576'],
    // 100 columns wide (within the old column cap), but a million rows down: a grid of 1e8 cells
    ['a far row', '<row r="1048576"><c r="CV1048576"><v>1</v></c></row>', 'A1:CV1048576'],
    [
      'sparse cells far apart',
      Array.from(
        { length: 200 },
        (_, i) =>
          `<row r="${(i + 1) * 5000}"><c r="${['A', 'ZZ', 'XFD'][i % 3]}${(i + 1) * 5000}"><v>${i}</v></c></row>`,
      ).join(''),
      'A1:XFD1000000',
    ],
  ])(
    '%s: the used range is refused as it is read, before its grid is walked, in bounded memory',
    (_label, far, range) => {
      const bytes = xlsx(
        '<row r="1"><c r="A1" t="inlineStr"><is><t>Qty</t></is></c><c r="B1" t="inlineStr"><is><t>Twice</t></is></c></row>' +
          '<row r="2"><c r="A2"><v>2</v></c><c r="B2"><f>A2*2</f><v>4</v></c></row>' +
          far,
      );
      const before = memory();
      // the reader refuses it: finding the tables (which walks the used range) never starts
      const err = (() => {
        try {
          readWorkbookParts(bytes);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(SheetError);
      expect(err).toMatchObject({ code: 'USED_RANGE_TOO_LARGE' });
      expect((err as SheetError).message).toContain(`uses ${range}`);
      expect((err as SheetError).message).toContain('the limit is 4000000 cells');
      expect(memory() - before).toBeLessThan(64 * 1024 * 1024);
    },
  );
});
