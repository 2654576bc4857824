/**
 * Models an attacker would write, against the engine itself: sizes over the budgets are refused
 * before anything of that size exists, names that reach an object's prototype are refused saying
 * where (while `constructor` and `prototype` stay ordinary names), and no failure carries the
 * JavaScript engine's own text.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { CLOSED_ALLOWLISTS } from '../../src/synth/access/allowlists.js';
import type { ServicePort } from '../../src/synth/access/ports.js';
import { compileTemplate } from '../../src/synth/components/templates.js';
import { compileExpression } from '../../src/synth/calculate/expression.js';
import { loadSynthModel } from '../../src/synth/engine/prepare.js';
import { SynthRun } from '../../src/synth/engine/run.js';
import { Row, STRING } from '../../src/synth/engine/row.js';
import { SynthError } from '../../src/synth/errors.js';
import { DEFAULT_LIMITS, type SynthLimits } from '../../src/synth/limits.js';
import { parseModel } from '../../src/synth/model/io.js';
import { renderRow } from '../../src/synth/output/format.js';
import { validateModel, validateModelText } from '../../src/synth/validate/validator.js';
import { nodeFilePort } from '../../src/synth-io/index.js';
import { render, scratchDir, xmlModel } from './helpers.js';

/** Texts only the JavaScript engine writes. */
const ENGINE_TEXT =
  /Cannot read propert|Cannot set propert|is not a function|is not defined|Maximum call stack|Unexpected (token|end)|in JSON at position|is not iterable|Invalid (array|string) length|Invalid code point|\[object Object\]/;

const protoKeys = (): string[] =>
  [Object.prototype, Array.prototype].map((p) => Reflect.ownKeys(p).map(String).join(','));
const cleanProtos = protoKeys();
afterAll(() => expect(protoKeys()).toEqual(cleanProtos));

/** Everything a validation says, as one text (load error and node failures). */
function problems(text: string, limits?: Partial<SynthLimits>): string {
  const r = validateModelText(text, limits === undefined ? {} : { limits });
  return [r.loadError ?? '', ...r.failures.map((f) => f.message)].join(' | ');
}

/** The message of the error `f` throws (it must throw). */
function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

describe('sizes over a budget are refused before they are allocated', () => {
  const sgm = (lines: string): string => `dataset.root = R\n${lines}\n`;
  it.each([
    [
      'a Redimension wider than MAX_COLUMNS',
      sgm('R = Redimension(U, dimension=50000000)\nU = Uniform()'),
      'MAX_COLUMNS',
    ],
    ['the widest Redimension', sgm('R = Redimension(U, dimension=2147483647)\nU = Uniform()'), 'MAX_COLUMNS'],
    [
      'an Append of wide inputs',
      sgm(
        'R = Append(A, B)\nA = Redimension(U, dimension=6000)\nB = Redimension(V, dimension=6000)\nU = Uniform()\nV = Uniform()',
      ),
      'MAX_COLUMNS',
    ],
    [
      'an Arrange listing too many columns',
      sgm(`R = Arrange(U, columns="${'0 '.repeat(10_001)}")\nU = Uniform()`),
      'MAX_COLUMNS',
    ],
    [
      'a Wishart whose k*k output is too wide',
      sgm(`R = Wishart(df=200, scale="${identity(101)}")`),
      'MAX_COLUMNS',
    ],
    ['a Zipf table of two billion entries', sgm('R = Zipf(n=2000000000)'), 'MAX_ENTRIES'],
    ['a Binomial drawing two billion uniforms a value', sgm('R = Binomial(n=2000000000)'), 'MAX_ENTRIES'],
    [
      'a Hypergeometric drawing two billion times a value',
      sgm('R = Hypergeometric(population=2000000000, draws=2000000000)'),
      'MAX_ENTRIES',
    ],
    [
      'a Multinomial of two billion trials',
      sgm('R = Multinomial(weights="1,1", trials=2000000000)'),
      'MAX_ENTRIES',
    ],
    [
      'a Truncate allowed two billion attempts',
      sgm('R = Truncate(U, max=0.5, maxAttempts=2000000000)\nU = Uniform()'),
      'MAX_ENTRIES',
    ],
    [
      'a Pool holding two billion entities',
      sgm(
        'R = Pool(E, countColumn=1, interleave=2000000000)\nE = Append(U, C)\nU = Uniform()\nC = Constant(value=3)',
      ),
      'MAX_ENTRIES',
    ],
    [
      'a NACHA file of a hundred million entries in one value',
      sgm('R = NachaFileAssembler(E, count=100000000)\nE = Constant(value="x", type="string")'),
      'MAX_COLUMNS',
    ],
  ])('%s', (_name, text, setting) => {
    const said = problems(text);
    expect(said).toContain(`MODELWORKS_SYNTH_${setting}`);
    expect(said).not.toMatch(ENGINE_TEXT);
  });

  it('a budget raised by the operator lets the same model through', () => {
    const text = 'dataset.root = R\nR = Redimension(U, dimension=20000)\nU = Uniform()\n';
    expect(problems(text)).toContain('MODELWORKS_SYNTH_MAX_COLUMNS');
    expect(validateModelText(text, { limits: { maxColumns: 20_000 } }).valid).toBe(true);
  });

  it('a table wider than MAX_COLUMNS is refused (FlatFile)', () => {
    const { put } = scratchDir('mw-wide-table-');
    const file = put('wide.csv', `${Array.from({ length: 12 }, (_, i) => i).join(',')}\n`);
    const model = parseModel(xmlModel('F', `<FlatFile name="F" file="${file}"/>`));
    const options = {
      allowlists: { ...CLOSED_ALLOWLISTS, flatFilePathAllowlist: [file] },
      ports: { files: nodeFilePort },
    };
    expect(validateModel(model, { ...options, limits: { maxColumns: 10 } }).failures[0]?.message).toMatch(
      /the table width 12 is over this server's limit of 10 \(MODELWORKS_SYNTH_MAX_COLUMNS\)/,
    );
    expect(validateModel(model, options).valid).toBe(true);
  });

  it('renderRow stops a row as soon as it passes its budget', () => {
    const row = new Row(3);
    for (let i = 0; i < 3; i++) {
      row.kinds[i] = STRING;
      row.strs[i] = 'x'.repeat(1000);
    }
    for (const format of ['csv', 'raw', 'ndjson'] as const) {
      const err = thrown(() => renderRow(row, 3, format, ['dim0', 'dim1', 'dim2'], 1500));
      expect(err).toBeInstanceOf(SynthError);
      expect((err as SynthError).code).toBe('SYNTH_LIMIT');
      expect(renderRow(row, 3, format, ['dim0', 'dim1', 'dim2'], 4000).length).toBeGreaterThan(3000);
    }
  });
});

describe('ServiceCall caps', () => {
  const calls: string[] = [];
  const port: ServicePort = {
    fetch: (r) => {
      calls.push(r.url);
      return Promise.resolve(JSON.stringify([[r.round, 'x'.repeat(1000)]]));
    },
  };
  const load = (attrs: string, limits?: Partial<SynthLimits>): Promise<unknown> =>
    loadSynthModel(
      parseModel(
        xmlModel(
          'S',
          `<ServiceCall name="S" url="https://api.test/rows" outputs="numeric,string" ${attrs}/>`,
        ),
      ),
      {
        allowlists: { ...CLOSED_ALLOWLISTS, serviceUrlAllowlist: ['https://api.test'] },
        ports: { service: port },
        ...(limits ? { limits } : {}),
      },
    );
  const refusal = async (p: Promise<unknown>): Promise<string> =>
    p.then(
      () => 'loaded',
      (err: unknown) => `${(err as SynthError).code}: ${(err as Error).message}`,
    );

  it('refuses a timeoutMs or maxRounds above the server settings before any call', async () => {
    calls.length = 0;
    expect(await refusal(load('timeoutMs="999999999"'))).toMatch(
      /^SYNTH_LOAD: ServiceCall "S": timeoutMs 999999999 is over this server's limit of 30000 \(MODELWORKS_SYNTH_SERVICE_CALL_MAX_TIMEOUT_MS\)$/,
    );
    expect(await refusal(load('maxRounds="999999999"'))).toMatch(
      /maxRounds 999999999 is over this server's limit of 100 \(MODELWORKS_SYNTH_SERVICE_CALL_MAX_ROUNDS\)/,
    );
    expect(calls).toEqual([]);
    // the same caps are reported by the synchronous load the analyzer falls back on
    const sync = validateModelText(
      xmlModel('S', '<ServiceCall name="S" url="https://api.test/x" outputs="numeric" timeoutMs="40000"/>'),
    );
    expect(sync.loadError).toMatch(/MODELWORKS_SYNTH_SERVICE_CALL_MAX_TIMEOUT_MS/);
  });

  it('lets the operator raise the caps, and caps the text collected over all rounds', async () => {
    expect(await refusal(load('timeoutMs="40000" maxRounds="3"', { serviceCallMaxTimeoutMs: 60_000 }))).toBe(
      'loaded',
    );
    expect(await refusal(load('maxRounds="10"', { serviceCallMaxChars: 2500 }))).toMatch(
      /round 3: the response text \(characters\) \d+ is over this server's limit of 2500 \(MODELWORKS_SYNTH_SERVICE_CALL_MAX_CHARS\)/,
    );
  });
});

describe('prototype keys in model names', () => {
  it.each([
    [
      'an XML attribute',
      xmlModel('A', '<Uniform name="A" __proto__="1"/>'),
      /<Uniform>: an attribute: "__proto__"/,
    ],
    [
      'an XML input attribute',
      xmlModel(
        'A',
        '<Mix name="A"><input name="B" __proto__="2"/><input name="C"/></Mix><Uniform name="B"/><Uniform name="C"/>',
      ),
      /an <input> of "A": an attribute: "__proto__"/,
    ],
    [
      'an XML node name',
      xmlModel('__proto__', '<Uniform name="__proto__"/>'),
      /"__proto__" is not allowed as a name/,
    ],
    ['an XML element', xmlModel('A', '<__proto__ name="A"/>'), /an element under <nodes>: "__proto__"/],
    [
      'a JSON attribute',
      '{"dataset":{"root":"A","nodes":[{"type":"Uniform","name":"A","attributes":{"__proto__":"1"}}]}}',
      /node "A" attributes: "__proto__"/,
    ],
    [
      'a JSON input attribute',
      '{"dataset":{"root":"A","nodes":[{"type":"Mix","name":"A","inputs":[{"name":"B","__proto__":"1"},{"name":"C"}]},{"type":"Uniform","name":"B"},{"type":"Uniform","name":"C"}]}}',
      /an input of "A": "__proto__"/,
    ],
    [
      'a JSON declare name',
      '{"dataset":{"root":"A","declarations":[{"name":"__proto__","value":"1"}],"nodes":[{"type":"Uniform","name":"A"}]}}',
      /declare 1: "__proto__"/,
    ],
    [
      'an .sgm attribute',
      'dataset.root = A\nA = Uniform(__proto__=1)\n',
      /\.sgm line 2: an attribute: "__proto__"/,
    ],
    [
      'an .sgm input attribute',
      'dataset.root = A\nA = Mix((B, __proto__=1), C)\nB = Uniform()\nC = Uniform()\n',
      /\.sgm line 2: an input attribute: "__proto__"/,
    ],
    [
      'an .sgm node name',
      'dataset.root = A\nA = Append(__proto__)\n__proto__ = Uniform()\n',
      /input 1: "__proto__"/,
    ],
    [
      'a Mixture parameter',
      'dataset.root = M\nM = Mixture(components="Normal(__proto__=1):1;Uniform():1")\n',
      /"__proto__" in "Normal\(__proto__=1\):1" is not allowed/,
    ],
    [
      'a ServiceCall header',
      xmlModel('S', '<ServiceCall name="S" url="https://a.test/x" outputs="numeric" headers="__proto__=1"/>'),
      /header name "__proto__" is not allowed/,
    ],
  ])('refuses "__proto__" as %s, saying where', (_name, text, where) => {
    const r = validateModelText(text, {
      allowlists: { ...CLOSED_ALLOWLISTS, serviceUrlAllowlist: ['https://a.test'] },
      ports: { service: { fetch: () => Promise.resolve('[]') } },
    });
    expect(r.valid).toBe(false);
    const said = [r.loadError ?? '', ...r.failures.map((f) => f.message)].join(' | ');
    expect(said).toMatch(where);
    expect(said).not.toMatch(ENGINE_TEXT);
  });

  it('refuses a "__proto__" column header of a table and a "__proto__" field in Convert input', () => {
    const { put } = scratchDir('mw-proto-table-');
    const file = put('t.csv', 'name,__proto__\nann,1\n');
    const options = {
      allowlists: { ...CLOSED_ALLOWLISTS, flatFilePathAllowlist: [file] },
      ports: { files: nodeFilePort },
    };
    const table = validateModel(
      parseModel(xmlModel('F', `<FlatFile name="F" file="${file}" skipHeader="true"/>`)),
      options,
    );
    expect(table.failures[0]?.message).toMatch(
      /column 1 is headed "__proto__", which is not allowed as a name/,
    );
    const convert = new SynthRun(
      parseModel(
        'dataset.root = C\nC = Convert(J, class="X")\nJ = Constant(value="{\\"__proto__\\": 1}", type="string")\n',
      ),
      1n,
    );
    expect(() => render(convert, 1)).toThrow(/Convert "C": "__proto__" is not allowed as a field name/);
  });

  it('takes constructor, prototype and toString as ordinary names in every syntax and as table headers', () => {
    const xml = xmlModel(
      'constructor',
      '<Append name="constructor"><input name="prototype"/><input name="toString"/></Append><Uniform name="prototype"/><Constant name="toString" value="3"/>',
    );
    const json = JSON.stringify({
      dataset: {
        root: 'constructor',
        nodes: [
          {
            type: 'Append',
            name: 'constructor',
            inputs: [{ name: 'prototype' }, { name: 'hasOwnProperty' }],
          },
          { type: 'Uniform', name: 'prototype' },
          { type: 'Constant', name: 'hasOwnProperty', attributes: { value: '3' } },
        ],
      },
    });
    const sgm =
      'dataset.root = constructor\nconstructor = Append(prototype, valueOf)\nprototype = Uniform()\nvalueOf = Constant(value=3)\n';
    for (const text of [xml, json, sgm]) {
      expect(validateModelText(text)).toMatchObject({ valid: true, rootName: 'constructor', nodeCount: 3 });
      expect(render(new SynthRun(parseModel(text), 4n), 2)).toMatch(/^0\.\d+,3\.0\n0\.\d+,3\.0\n$/);
    }
    const { put } = scratchDir('mw-ctor-table-');
    // as XML attribute names too: an Import passes declare overrides named like Object's members
    put(
      'lib.xml',
      '<dataset><root node="K"/><definitions><declare name="constructor" value="1"/><declare name="toString" value="2"/></definitions><nodes><Append name="K"><input name="A"/><input name="B"/></Append><Constant name="A" value="$constructor"/><Constant name="B" value="$toString"/></nodes></dataset>',
    );
    const main = put(
      'main.xml',
      xmlModel('L', '<Import name="L" file="lib.xml" constructor="5" toString="6"/>'),
    );
    const imported = new SynthRun(parseModel(readFileSync(main, 'utf8')), 1n, {
      location: main,
      ports: { files: nodeFilePort },
    });
    expect(render(imported, 1)).toBe('5.0,6.0\n');
    const file = put('t.csv', 'constructor,prototype,toString\nann,2,x\nbob,1,y\n');
    const model = parseModel(
      xmlModel(
        'F',
        `<FlatFile name="F" file="${file}" skipHeader="true" mode="weighted" weightColumn="prototype" textColumns="constructor"/>`,
      ),
    );
    const run = new SynthRun(model, 3n, {
      allowlists: { ...CLOSED_ALLOWLISTS, flatFilePathAllowlist: [file] },
      ports: { files: nodeFilePort },
    });
    expect(render(run, 4)).toMatch(/^((ann,x|bob,y)\n){4}$/);
  });

  it('looks up built-in tables by own entries only (a "constructor" browser or card network is plain data)', () => {
    const ua =
      'dataset.root = U\nU = UserAgent(A)\nA = Arrange(C, columns="0 0")\nC = Constant(value="constructor", type="string")\n';
    expect(() => render(new SynthRun(parseModel(ua), 1n), 1)).toThrow(
      /UserAgent "U": unknown browser "constructor"/,
    );
    const card =
      'dataset.root = C\nC = CreditCard(A, fictionalOnly=true)\nA = Arrange(K, columns="0 0 0")\nK = Constant(value="constructor", type="string")\n';
    expect(render(new SynthRun(parseModel(card), 1n), 1)).toMatch(/^\d{4} ?\d{4}/);
  });
});

describe('no JavaScript engine text in a failure', () => {
  it.each([
    ['malformed JSON', '{"dataset": {"root": "A",, }}'],
    ['JSON that ends early', '{"dataset": '],
    [
      'an XML character reference past Unicode',
      xmlModel('A', '<Constant name="A" type="string" value="&#x110000;"/>'),
    ],
    [
      'a DOCTYPE with an external entity',
      '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><dataset><root node="R"/><nodes><Constant name="R" value="&e;"/></nodes></dataset>',
    ],
    [
      'an .sgm tuple nested 100,000 deep',
      `dataset.root = A\nA = Normal(mean=${'('.repeat(100_000)}${')'.repeat(100_000)})\n`,
    ],
    ['a chain of 20,000 filters', chain(20_000)],
    [
      'a Calculate of 20,000 mixed operators',
      `dataset.root = C\nC = Calculate(U, expression="y[0] = ${Array.from({ length: 20_000 }, (_, i) => (i % 2 ? '+ x[0]' : '- x[0]')).join(' ')}")\nU = Uniform()\n`,
    ],
    [
      'a Calculate of 200,000 assignments',
      `dataset.root = C\nC = Calculate(U, expression="${'y[0] = x[0];'.repeat(200_000)}")\nU = Uniform()\n`,
    ],
  ])('%s', (_name, text) => {
    const r = validateModelText(text);
    expect(r.valid === false || r.valid === true).toBe(true);
    const said = [r.loadError ?? '', ...r.failures.map((f) => f.message)].join(' | ');
    expect(said).not.toMatch(ENGINE_TEXT);
  });

  it('says which limit a refused model hit', () => {
    expect(problems(chain(1200))).toMatch(/sits on a chain of 1001 nodes .* the limit is 1000 levels/);
    expect(thrown(() => compileExpression(`y[0] = ${'x[0] - '.repeat(1001)}1`)).message).toMatch(
      /more than 1000 operators in one assignment/,
    );
    expect(thrown(() => compileTemplate('['.repeat(10_000), [])).message).toMatch(
      /nest deeper than 32 levels/,
    );
    expect(problems('{"dataset": {"root": "A",, }}')).toBe('JSON is not well-formed (line 1, column 26)');
  });

  it('the defaults are the documented ones', () => {
    expect(DEFAULT_LIMITS).toEqual({
      maxColumns: 10_000,
      maxEntries: 1_000_000,
      serviceCallMaxTimeoutMs: 30_000,
      serviceCallMaxRounds: 100,
      serviceCallMaxChars: 16 * 1024 * 1024,
    });
  });
});

/** A flat row-major k x k identity matrix. */
function identity(k: number): string {
  return Array.from({ length: k * k }, (_, i) => (Math.floor(i / k) === i % k ? '1' : '0')).join(',');
}

/** `n` ToInteger filters in a chain down to one Uniform. */
function chain(n: number): string {
  const lines = ['dataset.root = N0'];
  for (let i = 0; i < n - 1; i++) lines.push(`N${i} = ToInteger(N${i + 1})`);
  lines.push(`N${n - 1} = Uniform()`);
  return lines.join('\n') + '\n';
}
