// The XML scanner that reads .xlsx parts without building a tree: nesting checked as it goes,
// entities decoded, namespace prefixes dropped, and the cell forms the reader must understand.
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { readWorkbook } from '../../src/sheet/index.js';
import { scanXml, XmlScanner } from '../../src/sheet/xml.js';
import { xlsx, xlsxEntries } from './helpers.js';

const scan = (xml: string): void =>
  scanXml('part.xml', xml, { open: () => {}, close: () => {}, wantsText: () => true, text: () => {} });

describe('scanXml', () => {
  it.each([
    ['<a<b>', "a broken tag at '<a<b>'"],
    ['<a></b>', '</b> closes <a>'],
    ['<a>', 'the text ends inside <a>'],
    ['<a/><b/>', 'a second root element'],
    ['</a>', '</a> closes nothing'],
    ['', 'no root element'],
    ['<a>\n<!-- open', 'an unterminated comment, line 2'],
    ['<a>&#xFFFFFF;</a>', 'refers to character 16777215, which does not exist'],
    ['<!DOCTYPE a [<!ENTITY x "y">]><a/>', 'declares a DOCTYPE'],
  ])('%j is refused: %s', (xml, why) => {
    expect(() => scan(xml)).toThrow(why);
  });

  it('reads prefixed names, quoted ">" in attributes, entities, CDATA and comments', () => {
    const seen: string[] = [];
    let keep = false;
    scanXml(
      'part.xml',
      '<?xml version="1.0"?><x:a q="1>2" r=\'&lt;&amp;\'><!-- <b> --><x:t>a&#65;&#x42;<![CDATA[<c>]]></x:t></x:a>',
      {
        open: (name, attrs, parent) => {
          seen.push(`open ${name} in ${parent ?? '-'} ${JSON.stringify(attrs())}`);
          keep = name === 't';
        },
        close: (name) => {
          seen.push(`close ${name}`);
          keep = false;
        },
        wantsText: () => keep,
        text: (t) => seen.push(`text ${t}`),
      },
    );
    expect(seen).toEqual([
      'open a in - {"q":"1>2","r":"<&"}',
      'open t in a {}',
      'text aAB',
      'text <c>',
      'close t',
      'close a',
    ]);
  });
});

describe('cells read by the scanner', () => {
  it('shared strings with rich text and phonetic hints, inline strings, booleans, errors, prefixes', () => {
    const entries = xlsxEntries('');
    entries['xl/sharedStrings.xml'] = strToU8(
      '<sst><si><t>plain</t></si><si><r><t>ri</t></r><r><rPr/><t>ch</t></r><rPh><t>ignored</t></rPh></si></sst>',
    );
    entries['xl/worksheets/sheet1.xml'] = strToU8(
      '<x:worksheet xmlns:x="urn:x"><x:sheetData><x:row r="1">' +
        '<x:c r="A1" t="s"><x:v>0</x:v></x:c><x:c r="B1" t="s"><x:v>1</x:v></x:c>' +
        '<x:c r="C1" t="inlineStr"><x:is><x:t xml:space="preserve"> in &amp; line </x:t></x:is></x:c>' +
        '<x:c r="D1" t="b"><x:v>1</x:v></x:c><x:c r="E1" t="e"><x:v>#N/A</x:v></x:c>' +
        '<x:c r="F1"><x:f>A1&amp;B1</x:f><x:v>3</x:v></x:c><x:c r="G1" s="2"/></x:row></x:sheetData></x:worksheet>',
    );
    const sheet = readWorkbook(zipSync(entries));
    const value = (ref: string) => sheet.cells.get(`1:${ref.charCodeAt(0) - 64}`);
    expect(value('A')?.value).toBe('plain');
    expect(value('B')?.value).toBe('rich');
    expect(value('C')?.value).toBe(' in & line ');
    expect(value('D')?.value).toBe(true);
    expect(value('E')?.value).toEqual({ error: '#N/A' });
    expect(value('F')).toMatchObject({ value: 3, formula: { text: 'A1&B1', array: false } });
    expect(value('G')).toBeUndefined();
  });

  it('shared formulas: the master keeps its text, followers their group', () => {
    const sheet = readWorkbook(
      xlsx(
        '<row r="2"><c r="B2"><f t="shared" ref="B2:B3" si="0">A2*2</f><v>2</v></c></row>' +
          '<row r="3"><c r="B3"><f t="shared" si="0"/><v>4</v></c></row>',
      ),
    );
    expect(sheet.cells.get('2:2')?.formula).toEqual({ text: 'A2*2', shared: '0', array: false });
    expect(sheet.cells.get('3:2')?.formula).toEqual({ shared: '0', array: false });
  });
});

describe('XmlScanner: a part read chunk by chunk (issue 39, point 6)', () => {
  const events = (feed: (s: XmlScanner) => void): string[] => {
    const out: string[] = [];
    const scanner = new XmlScanner('xl/worksheets/sheet1.xml', {
      open: (name, attrs, parent) => out.push(`open ${name} ${JSON.stringify(attrs())} in ${parent}`),
      close: (name) => out.push(`close ${name}`),
      wantsText: () => true,
      text: (t) => out.push(`text ${t}`),
    });
    feed(scanner);
    scanner.end();
    // text may come in pieces: the pieces joined are what counts
    return out
      .join('\n')
      .replace(/\ntext /g, '\u0000')
      .split('\n');
  };
  const doc =
    '<?xml version="1.0"?><!-- a note --><x:worksheet xmlns:x="urn:x"><x:sheetData>' +
    '<x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>a &amp; b &#x263A; &lt;c&gt;</x:t></x:is></x:c>' +
    '<x:c r="B1"><x:f>IF(A1&gt;1,"&quot;x&quot;",2)</x:f><x:v>2</x:v></x:c></x:row>' +
    '<x:row r="2"><x:c r="A2" t="str"><x:v><![CDATA[<raw> & text]]></x:v></x:c></x:row>' +
    '</x:sheetData></x:worksheet>';

  it('gives the same elements and text however the text is cut', () => {
    const whole = events((s) => s.push(doc));
    for (const size of [1, 2, 3, 7, 64]) {
      const cut = events((s) => {
        for (let i = 0; i < doc.length; i += size) s.push(doc.slice(i, i + size));
      });
      expect(cut).toEqual(whole);
    }
    expect(whole.join('\n')).toContain('a & b \u263A <c>');
  });

  it('a part that ends inside an element is refused at its end, with the line', () => {
    expect(() =>
      events((s) => {
        s.push('<a>\n<b>\n');
        s.push('<c');
      }),
    ).toThrow(/not well-formed XML \(a broken tag at '<c', line 3\)/);
  });
});
