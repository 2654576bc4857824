// One error-and-exit policy for every command (docs/cli.md, "Exit codes"): 0 ok, 1 a check failed
// (or the work could not be done), 2 bad usage or input; a failure is one line on stderr, never a
// stack trace unless --debug. A child process per case on the built CLI (`npm run build` first).
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STACK_FRAME, root, run, type CliResult } from './cli-process.js';

const tmp = mkdtempSync(join(tmpdir(), 'modelworks-exit-'));
const write = (name: string, value: unknown): string => {
  const p = join(tmp, name);
  writeFileSync(p, typeof value === 'string' ? value : JSON.stringify(value));
  return p;
};
const spec = write('demo.json', {
  id: 'demo',
  version: '1.0.0',
  schema: { type: 'object', properties: { price: { type: 'number' }, qty: { type: 'integer', minimum: 0 } } },
  derivations: [{ path: '$.total', expr: 'price * qty' }],
  tests: [{ description: 'multiplies', given: { '$.price': 2, '$.qty': 3 }, expect: { '$.total': 6 } }],
});
const simInputs = write('sim-inputs.json', {
  '$.price': { type: 'Uniform', min: 1, max: 2 },
  '$.qty': { type: 'Poisson', lambda: 3 },
});
const failingSpec = write('failing.json', {
  id: 'failing',
  version: '1.0.0',
  schema: { type: 'object', properties: { a: { type: 'number' } } },
  derivations: [{ path: '$.b', expr: 'a * 2' }],
  tests: [{ description: 'wrong', given: { '$.a': 1 }, expect: { '$.b': 3 } }],
});
const invalidSpec = write('invalid.json', {
  id: 'bad',
  schema: {},
  derivations: [{ path: 'x.0', expr: 'a +' }],
});
const brokenJson = write('broken.json', '{oops');
const missing = join(tmp, 'missing.json');
const model = join(root, 'examples/synth/support-queue.xml');
const invalidModel = write(
  'invalid.xml',
  '<dataset><root node="Q"/><nodes><Uniform name="U"/></nodes></dataset>',
);
const malformedModel = write('malformed.xml', '<model><bad>');
const workbook = (name: string) => join(root, 'test/sheet/workbooks', name);

/** Every failure (exit ≠ 0) says why on stderr, and no failure shows a stack frame. */
function expectPolicy(r: CliResult, code: number): void {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stderr).not.toMatch(STACK_FRAME);
  if (code === 2) expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
}

type Case = [string, number, string[], RegExp?];

describe.each<[string, Case[]]>([
  [
    'calc validate',
    [
      ['a valid spec', 0, ['calc', 'validate', '--no-tests', spec]],
      ['an invalid spec', 1, ['calc', 'validate', invalidSpec]],
      [
        'a missing file',
        2,
        ['calc', 'validate', missing],
        /^modelworks: cannot read .*missing\.json: no such file or folder \(ENOENT\)\n$/,
      ],
    ],
  ],
  [
    'calc test',
    [
      ['passing tests', 0, ['calc', 'test', spec]],
      ['a failing test', 1, ['calc', 'test', failingSpec]],
      ['malformed JSON', 2, ['calc', 'test', brokenJson], /not valid JSON/],
    ],
  ],
  [
    'calc eval',
    [
      ['an expression', 0, ['calc', 'eval', '1 + 2']],
      ['an expression that does not compile', 1, ['calc', 'eval', '1 +'], /compile error/],
      ['a missing --input file', 2, ['calc', 'eval', '1', '--input', missing], /cannot read/],
    ],
  ],
  [
    'calc dry-run',
    [
      ['a mutation', 0, ['calc', 'dry-run', spec, '--set', '$.price=2']],
      ['a refused mutation', 1, ['calc', 'dry-run', spec, '--set', '$.qty=-1'], /Schema violation/],
      ['a malformed --set', 2, ['calc', 'dry-run', spec, '--set', 'nonsense'], /--set expects ADDRESS=VALUE/],
    ],
  ],
  [
    'calc simulate',
    [
      [
        'a simulation',
        0,
        ['calc', 'simulate', spec, '--inputs', simInputs, '--outputs', '$.total', '--runs', '50'],
      ],
      [
        'an unknown distribution',
        2,
        [
          'calc',
          'simulate',
          spec,
          '--inputs',
          write('bad-inputs.json', { '$.price': { type: 'Nope' } }),
          '--outputs',
          '$.total',
        ],
        /inputs: .*Nope/,
      ],
      ['no inputs', 2, ['calc', 'simulate', spec, '--outputs', '$.total'], /give --inputs/],
    ],
  ],
  [
    'calc from-xlsx',
    [
      ['a workbook that converts whole', 0, ['calc', 'from-xlsx', workbook('orders.xlsx')]],
      ['rejected columns', 1, ['calc', 'from-xlsx', workbook('rejections.xlsx')], /\d+ columns rejected/],
      [
        'rejected columns, allowed',
        0,
        ['calc', 'from-xlsx', '--allow-rejected', workbook('rejections.xlsx')],
      ],
      [
        'a missing workbook',
        2,
        ['calc', 'from-xlsx', join(tmp, 'no.xlsx')],
        /cannot read .*no\.xlsx: no such file/,
      ],
    ],
  ],
  [
    'calc console',
    [
      ['a session that quits', 0, ['calc', 'console', '--store', 'memory']],
      ['a store that cannot be opened', 2, ['calc', 'console', '--store', 'bogus:x'], /unknown store/],
    ],
  ],
  [
    'mcp',
    [
      ['stdio until its input ends', 0, ['mcp', '--store', 'memory', '--log-level', 'silent']],
      ['unknown tool groups', 2, ['mcp', '--tools', 'nope'], /--tools takes calc, synth or calc,synth/],
    ],
  ],
  ['serve', [['a port out of range', 2, ['serve', '--port', '99999'], /--port must be 0\.\.65535/]]],
  [
    'synth grind',
    [
      ['a run', 0, ['synth', 'grind', model, '--count', '3', '--quiet']],
      [
        'a missing model',
        2,
        ['synth', 'grind', missing, '--count', '1'],
        /cannot read .*: no such file or folder \(ENOENT\)/,
      ],
      [
        'a model that is not well-formed',
        2,
        ['synth', 'grind', malformedModel, '--count', '1'],
        /XML is not well-formed/,
      ],
      [
        'a model that cannot be loaded',
        2,
        ['synth', 'grind', invalidModel, '--count', '1'],
        /root node "Q" is not defined/,
      ],
      [
        'an output folder that does not exist',
        2,
        ['synth', 'grind', model, '--count', '1', '--output', join(tmp, 'no/dir/x.csv')],
        /cannot write .*x\.csv: no such file or folder \(ENOENT\)/,
      ],
      ['no --count', 2, ['synth', 'grind', model], /required option '--count <n>' not specified/],
    ],
  ],
  [
    'synth validate',
    [
      ['a valid model', 0, ['synth', 'validate', model]],
      ['an invalid model', 1, ['synth', 'validate', invalidModel]],
      ['a missing model', 2, ['synth', 'validate', model, missing]],
      ['a model that is not well-formed', 2, ['synth', 'validate', malformedModel]],
    ],
  ],
  [
    'synth analyze',
    [
      ['a model', 0, ['synth', 'analyze', '--no-throughput', model]],
      ['a model that cannot be loaded', 1, ['synth', 'analyze', '--no-throughput', invalidModel]],
      ['a missing model', 2, ['synth', 'analyze', '--no-throughput', missing]],
      // SpiceGrinder's analyzer flag: accepted (analyze never writes analysis.* back), issue 40
      [
        '--no-write, as the analyzer spells it',
        0,
        ['synth', 'analyze', '--no-throughput', '--no-write', model],
      ],
    ],
  ],
  [
    'synth components',
    [
      ['the list', 0, ['synth', 'components']],
      [
        'two formats',
        2,
        ['synth', 'components', '--json', '--markdown'],
        /give --json or --markdown, not both/,
      ],
    ],
  ],
  [
    'synth convert',
    [
      ['a conversion', 0, ['synth', 'convert', model, join(tmp, 'q.sgm')]],
      ['a missing model', 2, ['synth', 'convert', missing, join(tmp, 'q2.sgm')], /cannot read/],
      [
        'an unknown target format',
        2,
        ['synth', 'convert', model, join(tmp, 'q.txt')],
        /cannot tell the format/,
      ],
    ],
  ],
  [
    'synth replay',
    [
      ['the bundled corpus', 0, ['synth', 'replay', join(root, 'examples/synth')]],
      [
        'a folder that does not exist',
        2,
        ['synth', 'replay', join(tmp, 'nope')],
        /does not exist or is not a folder/,
      ],
    ],
  ],
  ['synth serve', [['a port out of range', 2, ['synth', 'serve', '--port', '99999'], /must be 0\.\.65535/]]],
  [
    'modelworks',
    [
      ['--version', 0, ['--version']],
      [
        'an unknown command',
        2,
        ['frobnicate'],
        /^modelworks: unknown command 'frobnicate' \(--help shows the usage and examples\)\n$/,
      ],
      [
        'an unknown option',
        2,
        ['synth', 'grind', model, '--count', '1', '--colour'],
        /unknown option '--colour'/,
      ],
    ],
  ],
])('%s', { timeout: 120_000 }, (_command, cases) => {
  it.each(cases)('%s: exit %i', (_name, code, args, stderr) => {
    const r = run(args, { input: args.includes('console') ? 'quit\n' : '' });
    expectPolicy(r, code);
    if (stderr) expect(r.stderr).toMatch(stderr);
  });
});

describe('a port in use', { timeout: 60_000 }, () => {
  const blocker = createServer();
  let port = 0;
  beforeAll(async () => {
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    port = (blocker.address() as { port: number }).port;
  });
  afterAll(() => blocker.close());

  it.each([
    ['serve', ['serve', '--store', 'memory']],
    ['synth serve', ['synth', 'serve']],
    ['mcp --http', ['mcp', '--http']],
  ])('%s: the work cannot be done, exit 1, one line in our words', (_name, args) => {
    const r = run([...args, '--port', String(port), '--log-level', 'silent']);
    expectPolicy(r, 1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(
      `cannot listen on 127.0.0.1:${port}: the address is already in use (EADDRINUSE)`,
    );
  });
});

describe('--debug', { timeout: 60_000 }, () => {
  it('adds the stack trace to the failure line, before or after the command', () => {
    const plain = run(['synth', 'grind', missing, '--count', '1']);
    expect(plain.stderr).not.toMatch(STACK_FRAME);
    for (const args of [
      ['--debug', 'synth', 'grind', missing, '--count', '1'],
      ['synth', 'grind', missing, '--count', '1', '--debug'],
    ]) {
      const r = run(args);
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(plain.stderr.trim());
      expect(r.stderr).toMatch(STACK_FRAME);
    }
  });
});

describe('a model that is not well-formed', { timeout: 60_000 }, () => {
  it('is described in our words, not the XML parser’s', () => {
    const r = run(['synth', 'validate', malformedModel]);
    expect(r.stdout).toContain(
      'load error: XML is not well-formed: the text ends while elements are still open',
    );
    expect(r.stdout).not.toContain("Invalid '");
  });
});

describe('a malformed server setting', { timeout: 60_000 }, () => {
  // each is read before the server is built: exit 2 with the setting named, never "internal error"
  it.each([
    [
      'MODELWORKS_EMBED_ALLOWED_ORIGINS',
      'ftp://files.example',
      /MODELWORKS_EMBED_ALLOWED_ORIGINS: 'ftp:\/\/files\.example' is not an origin/,
    ],
    ['MODELWORKS_EFFECT_LEASE_MS', 'soon', /MODELWORKS_EFFECT_LEASE_MS/],
  ])('serve with %s=%s: exit 2, one line in our words', (name, value, stderr) => {
    const r = run(['serve', '--store', 'memory', '--port', '0', '--log-level', 'silent'], {
      env: { [name]: value },
    });
    expectPolicy(r, 2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(stderr);
  });
});
