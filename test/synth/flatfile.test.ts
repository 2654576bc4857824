/**
 * FlatFile: parsing (comments, quotes, delimiters, headers), the three modes and onExhaustion,
 * typing (textColumns), weight columns by index or name, and the draw count per row checked
 * against a recorded corpus output.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDelimited } from '../../src/synth/components/outside/flat-file.js';
import type { LoadOptions } from '../../src/synth/engine/prepare.js';
import { SynthError } from '../../src/synth/errors.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';
import { nodeFilePort } from '../../src/synth-io/index.js';
import { grind, scratchDir, xmlModel } from './helpers.js';

const { put } = scratchDir('mw-flatfile-');

/** Writes a model next to its tables and runs it with the real file port. */
function runModel(rel: string, nodes: string, root: string, seed: number, count: number): string {
  const path = put(rel, xmlModel(root, nodes));
  const options: LoadOptions = { location: nodeFilePort.realpath(path), ports: { files: nodeFilePort } };
  return grind(readFileSync(path, 'utf8'), seed, count, 'csv', false, options);
}

function error(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    if (err instanceof SynthError) return err.message;
    throw err;
  }
  return 'no error';
}

describe('parseDelimited', () => {
  it('skips # comments and blank lines, honours quotes and other delimiters', () => {
    expect(parseDelimited('# note\n\na,b\r\n"x, y","say ""hi"""\n  # indented comment\n', ',')).toEqual([
      ['a', 'b'],
      ['x, y', 'say "hi"'],
    ]);
    expect(parseDelimited('1\t2\n', '\t')).toEqual([['1', '2']]);
    expect(parseDelimited('a;"b;c"\n', ';')).toEqual([['a', 'b;c']]);
  });
});

describe('parseDelimited (csv-parse)', () => {
  it('keeps a line break inside a quoted cell as part of the cell', () => {
    expect(parseDelimited('id,note\n1,"two\nlines"\n2,"crlf\r\ninside"\r\n3,plain\n', ',')).toEqual([
      ['id', 'note'],
      ['1', 'two\nlines'],
      ['2', 'crlf\r\ninside'],
      ['3', 'plain'],
    ]);
  });

  it('drops indented comments and whitespace-only lines anywhere, keeps a quoted "#" cell', () => {
    expect(
      parseDelimited('  # lead, with a comma\n\uFEFFx\n   \n"#1",a\n\t# tab comment\n,,\n', ','),
    ).toEqual([['\uFEFFx'], ['#1', 'a'], ['', '', '']]);
    expect(parseDelimited('\uFEFF# c\r\na;b\r\n', ';')).toEqual([['a', 'b']]);
  });

  it('an unclosed quote is a load error naming the table', () => {
    expect(error(() => parseDelimited('a,"open\nb,c\n', ',', 'the table /t/x.csv'))).toBe(
      'the table /t/x.csv is not a readable table: a quoted cell is never closed',
    );
  });
});

describe('FlatFile', () => {
  put('t/people.csv', '# id,name,zip,weight\n1,Ann,02134,1\n2,Bob,10001,3\n3,"Cole, Jr.",99501,0\n');

  it('sequential mode walks rows in order and types cells (numbers as doubles, textColumns kept)', () => {
    const out = runModel(
      't/seq.xml',
      '<FlatFile name="F" file="people.csv" mode="sequential" textColumns="2" onExhaustion="repeat"/>',
      'F',
      1,
      4,
    );
    expect(out).toBe('1.0,Ann,02134,1.0\n2.0,Bob,10001,3.0\n3.0,"Cole, Jr.",99501,0.0\n1.0,Ann,02134,1.0\n');
  });

  it('onExhaustion: hold repeats the last row, null emits empty values, error fails the run', () => {
    const node = (e: string): string =>
      `<FlatFile name="F" file="people.csv" mode="sequential" onExhaustion="${e}"/>`;
    expect(runModel('t/hold.xml', node('hold'), 'F', 1, 4).split('\n')[3]).toBe(
      '3.0,"Cole, Jr.",99501.0,0.0',
    );
    expect(runModel('t/null.xml', node('null'), 'F', 1, 4).split('\n')[3]).toBe(',,,');
    expect(error(() => runModel('t/err.xml', node('error'), 'F', 1, 4))).toMatch(
      /FlatFile "F": all 3 rows used \(onExhaustion="error"\)/,
    );
  });

  it('unweighted draws floor(nextDouble() * rows), one draw per row', () => {
    const out = runModel('t/unw.xml', '<FlatFile name="F" file="people.csv" textColumns="2"/>', 'F', 9, 50);
    const rng = new L64X128MixRandom(9n);
    const names = ['Ann', 'Bob', '"Cole, Jr."'];
    const expected = Array.from({ length: 50 }, () => names[Math.floor(rng.nextDouble() * 3)]);
    expect(
      out
        .trim()
        .split('\n')
        .map((l) => (l.startsWith('3.0') ? '"Cole, Jr."' : l.split(',')[1])),
    ).toEqual(expected);
  });

  it('weighted draws against cumulative weights and drops the weight column (by index or header name)', () => {
    put('t/w.csv', 'weight,name\n1,Ann\n3,Bob\n0,Cole\n');
    const byIndex = runModel(
      't/wi.xml',
      '<FlatFile name="F" file="w.csv" mode="weighted" skipHeader="true"/>',
      'F',
      4,
      400,
    );
    const byName = runModel(
      't/wn.xml',
      '<FlatFile name="F" file="w.csv" mode="weighted" skipHeader="true" weightColumn="weight"/>',
      'F',
      4,
      400,
    );
    expect(byName).toBe(byIndex);
    const rows = byIndex.trim().split('\n');
    expect(new Set(rows)).toEqual(new Set(['Ann', 'Bob']));
    const rng = new L64X128MixRandom(4n);
    const expected = rows.map(() => (rng.nextDouble() < 0.25 ? 'Ann' : 'Bob'));
    expect(rows).toEqual(expected);
  });

  it('rejects bad configurations with clear messages', () => {
    expect(
      error(() =>
        runModel(
          't/b1.xml',
          '<FlatFile name="F" file="people.csv" weightColumn="weight" mode="weighted"/>',
          'F',
          1,
          1,
        ),
      ),
    ).toMatch(/weightColumn "weight" names a column, which needs a header row/);
    put('t/h.csv', 'w,name\n1,a\n');
    expect(
      error(() =>
        runModel(
          't/b2.xml',
          '<FlatFile name="F" file="h.csv" skipHeader="true" mode="weighted" textColumns="w"/>',
          'F',
          1,
          1,
        ),
      ),
    ).toMatch(/textColumns includes the weight column 0/);
    expect(error(() => runModel('t/b3.xml', '<FlatFile name="F" file="missing.csv"/>', 'F', 1, 1))).toMatch(
      /FlatFile "F": file not found: missing\.csv/,
    );
    put('t/empty.csv', '# nothing\n');
    expect(error(() => runModel('t/b4.xml', '<FlatFile name="F" file="empty.csv"/>', 'F', 1, 1))).toMatch(
      /the table has no data rows/,
    );
  });

  it('a quoted cell with a line break comes out as one value', () => {
    put('t/notes.csv', 'id,note\n1,"two\nlines"\n');
    const out = runModel(
      't/notes.xml',
      '<FlatFile name="F" file="notes.csv" skipHeader="true" mode="sequential" textColumns="note"/>',
      'F',
      1,
      1,
    );
    expect(out).toBe('1.0,"two\nlines"\n');
  });

  it('a table that cannot be read or parsed is named by its own path, not the model file', () => {
    const folder = put('t/tables/keep.txt', 'x').replace(/keep\.txt$/, '');
    const asFolder = error(() => runModel('t/folder.xml', '<FlatFile name="F" file="tables"/>', 'F', 1, 1));
    expect(asFolder).toBe(
      `FlatFile "F": cannot read the table ${nodeFilePort.realpath(folder)}: it is a folder, not a file`,
    );
    const broken = put('t/broken.csv', 'a,"never closed\n');
    expect(error(() => runModel('t/broken.xml', '<FlatFile name="F" file="broken.csv"/>', 'F', 1, 1))).toBe(
      `FlatFile "F": the table ${nodeFilePort.realpath(broken)} is not a readable table: a quoted cell is never closed`,
    );
  });

  it('FlatFile is refused under --edition free', () => {
    const path = put('t/free.xml', xmlModel('F', '<FlatFile name="F" file="people.csv"/>'));
    expect(
      error(() =>
        grind(readFileSync(path, 'utf8'), 1, 1, 'csv', false, {
          edition: 'free',
          location: path,
          ports: { files: nodeFilePort },
        }),
      ),
    ).toMatch(/FlatFile \("F"\) needs the Pro edition/);
  });
});

const SHARED = join(import.meta.dirname, '..', '..', '..', 'shared', 'conformance', 'synth-examples');

describe.skipIf(!existsSync(SHARED))('FlatFile against a recording', () => {
  it('claims-from-synthea: with a 40-row pool of our own, the Poisson and Lognormal columns match byte for byte', () => {
    // The recorded member rows need the original table, but the RNG stream after each unweighted
    // FlatFile draw (one nextDouble) must be the recorded one, so the last two columns match.
    const pool = ['MEMBER_ID,BIRTHDATE,GENDER,STATE'];
    for (let i = 0; i < 40; i++) pool.push(`id-${i},2000-01-01,F,Nowhere`);
    put('synthea/member-pool.csv', pool.join('\n') + '\n');
    const model = readFileSync(join(SHARED, 'pro/health/claims-from-synthea.xml'), 'utf8');
    const path = put('synthea/claims-from-synthea.xml', model);
    const out = grind(model, 42, 10, 'csv', false, { location: path, ports: { files: nodeFilePort } });
    const recorded = readFileSync(join(SHARED, 'pro/health/claims-from-synthea.csv'), 'utf8')
      .split('\n')
      .slice(2, 12);
    expect(
      out
        .trim()
        .split('\n')
        .map((l) => l.split(',').slice(4).join(',')),
    ).toEqual(recorded.map((l) => l.split(',').slice(4).join(',')));
  });
});
