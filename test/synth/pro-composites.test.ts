/**
 * Composite components: PersonAssembler, Email, Phone, Address, CreditCard, Extract, Convert; templates,
 * per-node format/locale and the formats config. Tables are replaced by Mix/Uniform stand-ins that
 * take the same one draw per row as an unweighted FlatFile, so the components' own draws line up
 * with the recorded outputs.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { luhnValid } from '../../src/synth/components/check-digits.js';
import { groupCardNumber } from '../../src/synth/components/filters/pro/payment.js';
import { compileTemplate, parseProperties } from '../../src/synth/components/templates.js';
import { CLOSED_ALLOWLISTS } from '../../src/synth/access/allowlists.js';
import type { LoadOptions } from '../../src/synth/engine/prepare.js';
import { nodeFilePort } from '../../src/synth-io/index.js';
import { grind, xmlModel } from './helpers.js';
import { SHARED, sharedPresent } from './pro-helpers.js';

const out = (root: string, nodes: string, n: number, seed = 3, options: LoadOptions = {}): string[] =>
  grind(xmlModel(root, nodes), seed, n, 'csv', false, options).trim().split('\n');

const str = (name: string, value: string): string =>
  `<Constant name="${name}" value="${value}" type="string"/>`;

/** A one-draw stand-in table: Mix over constant rows (one nextDouble per row, like FlatFile). */
function table(name: string, rows: string[][]): string {
  const inputs = rows.map((_, i) => `<input name="${name}R${i}"/>`).join('');
  const bodies = rows
    .map(
      (cells, i) =>
        `<Append name="${name}R${i}">${cells.map((_, j) => `<input name="${name}R${i}C${j}"/>`).join('')}</Append>` +
        cells.map((c, j) => str(`${name}R${i}C${j}`, c)).join(''),
    )
    .join('');
  return `<Mix name="${name}">${inputs}</Mix>${bodies}`;
}

const recorded = (path: string): string[] =>
  readFileSync(join(SHARED, path), 'utf8').trim().split('\n').slice(2);

const PERSON =
  '<PersonAssembler name="P"><input name="GG" role="genderGiven"/><input name="S" role="surname"/></PersonAssembler>' +
  table('GG', [
    ['female', 'Sophia'],
    ['male', 'José'],
  ]) +
  table('S', [['Peterson'], ["O'Brien"]]);

describe('templates', () => {
  it('replaces {name} and drops optional parts whose fields are all empty', () => {
    const t = compileTemplate('{number} {street}[, {unit}], {city}', ['number', 'street', 'unit', 'city']);
    const f = (unit: string) => (n: string) => ({ number: '1', street: 'Main St', unit, city: 'X' })[n];
    expect(t(f(''))).toBe('1 Main St, X');
    expect(t(f('# 4'))).toBe('1 Main St, # 4, X');
    expect(compileTemplate('[({a}) ]x\\[y\\]', ['a'])((n) => (n === 'a' ? '' : undefined))).toBe('x[y]');
    expect(() => compileTemplate('{nope}', ['a'])).toThrow(/template field "\{nope\}" is not one of a/);
    expect(() => compileTemplate('[{a}', ['a'])).toThrow(/unclosed "\["/);
    expect(
      parseProperties('# c\nformat.person.en_US = {surname}, {givenName}\nformat.locale: en_US\n'),
    ).toEqual(
      new Map([
        ['format.person.en_US', '{surname}, {givenName}'],
        ['format.locale', 'en_US'],
      ]),
    );
  });
});

describe('PersonAssembler and Email', () => {
  it('assembles a Person printed as "{givenName} {surname}" with format, locale and config overrides', () => {
    for (const p of out('P', PERSON, 20))
      expect(['Sophia Peterson', "Sophia O'Brien", 'José Peterson', "José O'Brien"]).toContain(p);
    expect(
      out('P', PERSON.replace('name="P"', 'name="P" format="{surname}, {givenName} ({gender})"'), 1)[0],
    ).toMatch(/^"\w+'?\w+, \w+ \((male|female)\)"$/);
    const formats = new Map([
      ['format.person.de_DE', '{surname} {givenName}'],
      ['format.locale', 'de_DE'],
    ]);
    expect(out('P', PERSON, 1, 3, { formats })[0]).toMatch(/^\S+ \S+$/);
    expect(
      out('P', PERSON.replace('name="P"', 'name="P" locale="fr_FR"'), 1, 3, {
        formats: new Map([['format.person.fr_FR', '{givenName}|{surname}']]),
      })[0],
    ).toMatch(/^[^|]+\|[^|]+$/);
    expect(() => out('P', PERSON.replace('name="P"', 'name="P" format="{nickname}"'), 1)).toThrow(
      /"\{nickname\}"/,
    );
  });

  it('Email: name-based patterns over the Person, lower-case letters and digits, the domain verbatim', () => {
    const model =
      '<Email name="E"><input name="P" role="name"/><input name="D" role="domain"/></Email>' +
      PERSON +
      table('D', [['gmail.com'], ['icloud.com']]);
    const seen = new Set<string>();
    for (const e of out('E', model, 300)) {
      expect(e).toMatch(/^[a-z0-9._]+@(gmail|icloud)\.com$/);
      seen.add(
        e
          .replace(/@.*/, '')
          .replace(/sophia|jose/, 'G')
          .replace(/peterson|obrien/, 'S')
          .replace(/\d+/, 'N'),
      );
    }
    // All seven name-based patterns occur (initials: s/j for the given name, p/o for the surname).
    expect([...seen].some((x) => x === 'G.S')).toBe(true);
    expect([...seen].some((x) => x === 'G.SN')).toBe(true);
    expect([...seen].some((x) => x === 'GSN')).toBe(true);
    expect([...seen].some((x) => x === 'G_S')).toBe(true);
    expect([...seen].some((x) => /^[sj]S$/.test(x))).toBe(true);
    expect([...seen].some((x) => /^G[po]$/.test(x))).toBe(true);
    expect([...seen].some((x) => /^S[sj]$/.test(x))).toBe(true);
  });

  it('Email random mode reads its word list in the load phase, under the file path rules', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mw-email-'));
    try {
      writeFileSync(join(dir, 'w.txt'), '# words\nPainfully\nbright\n');
      const model = (file: string): string =>
        `<Email name="E" nameBased="false" wordListFile="${file}"><input name="D" role="domain"/></Email>` +
        str('D', 'example.org');
      const location = join(nodeFilePort.realpath(dir)!, 'model.xml');
      const files: LoadOptions = { location, ports: { files: nodeFilePort } };
      for (const e of out('E', model('w.txt'), 30, 3, files))
        expect(e).toMatch(/^(painfully|bright)\d{1,3}@example\.org$/);
      // No file port: a load error naming the node, before any row.
      expect(() => out('E', model('w.txt'), 1)).toThrow(/Email "E": reading files needs a file port/);
      // An absolute path obeys the flat-file allowlist: refused when closed, read when listed.
      const abs = join(dir, 'w.txt');
      expect(() => out('E', model(abs), 1, 3, files)).toThrow(/absolute path .* refused/);
      const open = { ...files, allowlists: { ...CLOSED_ALLOWLISTS, flatFilePathAllowlist: [dir] } };
      expect(out('E', model(abs), 1, 3, open)[0]).toMatch(/@example\.org$/);
      // Paths climbing out of the model's folder are refused like FlatFile's.
      expect(() => out('E', model('../w.txt'), 1, 3, files)).toThrow(/climbs out of the model's folder/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Phone', () => {
  const phone = '<Phone name="N"><input name="A"/></Phone><Uniform name="A" min="200" max="1000"/>';

  it('prints (AAA) EEE-SSSS without N11 exchanges; fictionalOnly is 555-0100..0199', () => {
    for (const p of out('N', phone, 300)) {
      expect(p).toMatch(/^\(\d{3}\) \d{3}-\d{4}$/);
      expect(p.slice(7, 9)).not.toBe('11');
    }
    for (const p of out('N', phone.replace('name="N"', 'name="N" fictionalOnly="true"'), 50))
      expect(p).toMatch(/^\(\d{3}\) 555-01\d\d$/);
    expect(
      out('N', phone.replace('name="N"', 'name="N" format="{areaCode}.{exchange}.{subscriber}"'), 1)[0],
    ).toMatch(/^\d{3}\.\d{3}\.\d{4}$/);
  });

  it.skipIf(!sharedPresent)('draws exchange and subscriber exactly as the recorded phone.csv', () => {
    const ours = out('N', phone, 10, 42).map((p) => p.slice(6));
    expect(ours).toEqual(recorded('pro/phone.csv').map((p) => p.slice(6)));
  });
});

describe('Address', () => {
  const us =
    '<Address name="N"><input name="L" role="location"/><input name="S" role="street"/></Address>' +
    table('L', [
      ['Montrose', 'AL', '36559'],
      ['Norwalk', 'CA', '90651'],
    ]) +
    table('S', [['South St'], ['Main St']]);
  const ca =
    '<Address name="N" country="CA"><input name="L" role="location"/><input name="S" role="street"/><input name="Q" role="street.QC"/></Address>' +
    table('L', [
      ['Toronto', 'ON', 'M5V 2T6'],
      ['Joliette', 'QC', 'J6E 3G6'],
    ]) +
    table('S', [['King St'], ['Main St']]) +
    table('Q', [['rue des Loisirs'], ['rue Gauthier']]);

  it('renders US and Canadian addresses, Quebec rows from the street.QC source', () => {
    const rows = out('N', us, 200);
    for (const a of rows)
      expect(a).toMatch(
        /^"\d{1,4} (South|Main) St(, (Apt|Suite|Unit|#) \d{1,3})?, (Montrose, AL 36559|Norwalk, CA 90651)"$/,
      );
    expect(rows.some((a) => a.includes(', # '))).toBe(true);
    for (const a of out('N', ca, 200)) {
      expect(a).toMatch(/^"\d{1,4} .+, (Toronto ON {2}M5V 2T6|Joliette QC {2}J6E 3G6)"$/);
      expect(a.includes('QC') === a.includes(' rue ')).toBe(true);
    }
  });

  it('honours number bounds, unitProbability, unitLabels, the config labels and Extract of its fields', () => {
    const fixed = us.replace(
      'name="N"',
      'name="N" minStreetNumber="7" maxStreetNumber="7" unitProbability="1" unitLabels="Flat"',
    );
    for (const a of out('N', fixed, 20)) expect(a).toMatch(/^"7 \w+ St, Flat \d+, /);
    const cfg = us.replace('name="N"', 'name="N" unitProbability="1"');
    for (const a of out('N', cfg, 20, 3, { formats: new Map([['address.unitLabels.US', 'Ste']]) }))
      expect(a).toContain(', Ste ');
    const extract =
      '<Extract name="X" fields="number,streetLine,postalCode" index="0"><input name="N"/></Extract>' +
      us.replace('name="N"', 'name="N" unitProbability="0"');
    for (const r of out('X', extract, 10)) expect(r).toMatch(/^\d+,\d+ \w+ St,\d{5}$/);
    expect(() =>
      out('N', us.replace('name="N"', 'name="N" minStreetNumber="9" maxStreetNumber="1"'), 1),
    ).toThrow(/exceeds/);
  });

  it.skipIf(!sharedPresent)(
    'draws numbers and units exactly as the recorded address.csv and address-ca.csv',
    () => {
      const numberAndUnit = (a: string): string => {
        const m = /^"?(\d+) .*?(?:(?:, # | Apt )(\d+))?,/.exec(a)!;
        return `${m[1]}/${m[2] ?? ''}`;
      };
      expect(out('N', us, 10, 42).map(numberAndUnit)).toEqual(recorded('pro/address.csv').map(numberAndUnit));
      expect(out('N', ca, 10, 42).map(numberAndUnit)).toEqual(
        recorded('pro/address-ca.csv').map(numberAndUnit),
      );
    },
  );
});

describe('CreditCard', () => {
  const card =
    '<CreditCard name="N"><input name="T"/></CreditCard>' +
    table('T', [
      ['Visa', '4', '16'],
      ['Amex', '37', '15'],
    ]);

  it('completes the BIN with random digits and a Luhn digit, grouped 4-4-4-4 (Amex 4-4-4-3)', () => {
    expect(groupCardNumber('378282246310005')).toBe('3782 8224 6310 005');
    for (const c of out('N', card, 100)) {
      const digits = c.replace(/ /g, '');
      expect(luhnValid(digits)).toBe(true);
      expect(c).toMatch(/^(4\d{3} \d{4} \d{4} \d{4}|37\d\d \d{4} \d{4} \d{3})$/);
    }
    for (const c of out('N', card.replace('name="N"', 'name="N" fictionalOnly="true"'), 20))
      expect([
        '4111 1111 1111 1111',
        '4012 8888 8888 1881',
        '3782 8224 6310 005',
        '3714 4963 5398 431',
      ]).toContain(c);
    expect(out('N', card.replace('name="N"', 'name="N" format="{network} ****{last4}"'), 1)[0]).toMatch(
      /^(Visa|Amex) \*{4}\d{4}$/,
    );
  });
});

describe('Extract and Convert', () => {
  it('Extract swaps the composite column for its fields; unknown fields fail with the field list', () => {
    const m = '<Extract name="X" fields="surname formatted"><input name="P"/></Extract>' + PERSON;
    for (const r of out('X', m, 5)) expect(r).toMatch(/^[\w']+,\S+ [\w']+$/);
    expect(() => out('X', m.replace('surname formatted', 'age'), 1)).toThrow(
      /\(Person\) has no field "age"; fields: gender, givenName, surname, formatted/,
    );
  });

  it('Convert turns a JSON text into an object composite whose fields Extract can read', () => {
    const m =
      '<Extract name="X" fields="id,tags"><input name="C"/></Extract><Convert name="C" class="com.example.Order"><input name="J"/></Convert>' +
      str('J', '{&quot;id&quot;:&quot;A1&quot;,&quot;tags&quot;:[1,2]}');
    expect(out('X', m, 1)).toEqual(['A1,"[1,2]"']);
    expect(() =>
      out('C', '<Convert name="C" class="1bad"><input name="J"/></Convert>' + str('J', '{}'), 1),
    ).toThrow(/is not a class name/);
  });
});
