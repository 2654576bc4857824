import { describe, expect, it } from 'vitest';
import { CalcError } from '../../src/calc/errors.js';
import { compileLibrary, libraryLayers } from '../../src/calc/library.js';
import { compileModel } from '../../src/calc/program.js';
import { normalizeSpec } from '../../src/calc/spec.js';
import { live, spec } from './helpers/model.js';

const MONEY = '( $money := function($x){ $round($x, 2) }; ["money"] )';

async function errors(library: unknown, constants: Record<string, unknown> = {}): Promise<string[]> {
  const r = await compileLibrary(library as never, constants);
  return r.findings.filter((f) => f.severity === 'error').map((f) => f.message);
}

describe('library forms bound into expressions (calc-spec §3)', () => {
  it('a string definition binds its function exports as $name(...)', async () => {
    const { runtime } = await live({
      library: MONEY,
      derivations: [{ path: '$.price', expr: '$money(net * 1.21)' }],
    });
    await runtime.mutate({ '$.net': 10.015 });
    expect(await runtime.getValue('$.price')).toBe(12.12);
  });

  it('the define form works and value exports see $const at definition time', async () => {
    const { runtime, model } = await live({
      constants: { vat: 0.2 },
      library: {
        description: 'tax helpers',
        define: '( $rate := $const.vat; $gross := function($x){ $x * (1 + $rate) }; ["rate", "gross"] )',
        signatures: { gross: '<n:n>' },
      },
      derivations: [
        { path: '$.gross', expr: '$gross(net)' },
        { path: '$.rate', expr: '$rate' },
      ],
    });
    await runtime.mutate({ '$.net': 100 });
    expect(await runtime.getValue('$.gross')).toBe(120);
    expect(await runtime.getValue('$.rate')).toBe(0.2);
    expect(model.library?.description).toBe('tax helpers');
    expect(model.library?.exports).toEqual([
      { name: 'rate', kind: 'constant', value: 0.2, origin: 'local' },
      { name: 'gross', kind: 'function', arity: 1, signature: '<n:n>', origin: 'local' },
    ]);
  });

  it('layers compile in order: the own layer sees inherited exports; a later layer wins a clash', async () => {
    const library = {
      layers: [
        {
          ref: 'acme/base',
          version: '1.0.0',
          define: '( $rate := 0.1; $label := "base"; ["rate", "label"] )',
        },
        { define: '( $tax := function($x){ $x * $rate }; ["tax"] )' },
      ],
      define: '( $label := "own"; $double := function($x){ $tax($x) * 2 }; ["label", "double"] )',
    };
    expect(libraryLayers(library as never).map((l) => l.origin)).toEqual([
      'acme/base@1.0.0',
      'local',
      'local',
    ]);
    const { runtime, model } = await live({
      library,
      derivations: [
        { path: '$.tax', expr: '$tax(amount)' },
        { path: '$.double', expr: '$double(amount)' },
        { path: '$.label', expr: '$label' },
      ],
    });
    await runtime.mutate({ '$.amount': 50 });
    expect(await runtime.getState()).toEqual({ amount: 50, tax: 5, double: 10, label: 'own' });
    const exports = model.library!.exports;
    expect(exports.find((e) => e.name === 'label')).toEqual({
      name: 'label',
      kind: 'constant',
      value: 'own',
      origin: 'local',
    });
    expect(exports.find((e) => e.name === 'rate')?.origin).toBe('acme/base@1.0.0');
    const r = await compileLibrary(library as never, {});
    expect(r.findings).toEqual([
      expect.objectContaining({ severity: 'warning', message: expect.stringContaining("'label' shadows") }),
    ]);
  });

  it('more than 64 exports is a warning, not an error', async () => {
    const names = Array.from({ length: 65 }, (_, i) => `e${i}`);
    const define = `( ${names.map((n, i) => `$${n} := ${i}`).join('; ')}; ${JSON.stringify(names)} )`;
    const r = await compileLibrary(define, {});
    expect(r.findings).toEqual([
      expect.objectContaining({ severity: 'warning', message: expect.stringContaining('65 exports') }),
    ]);
    expect(r.library?.exports).toHaveLength(65);
    expect(r.library?.bindings.e64).toBe(64);
  });

  it('no library: no bindings, no findings', async () => {
    expect(await compileLibrary(undefined, {})).toEqual({ findings: [] });
  });
});

describe('library rules (calc-spec §3) — errors', () => {
  it.each([
    ['a field path', '( $f := function(){ rate }; ["f"] )'],
    ['a nested field path', '( $f := function($x){ $x * settings.rate }; ["f"] )'],
    ['$ (the context)', '( $f := function(){ $.rate }; ["f"] )'],
    ['$$ (the root)', '( $f := function(){ $$.rate }; ["f"] )'],
    ['a wildcard', '( $f := function(){ * }; ["f"] )'],
    ['a descendant', '( $f := function(){ ** }; ["f"] )'],
  ])('reading the document through %s is an error', async (_what, define) => {
    const found = await errors(define);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('reads the document');
  });

  it('a variable path is not a document read', async () => {
    expect(await errors('( $f := function($o){ $o.rate * $const.k }; ["f"] )', { k: 2 })).toEqual([]);
  });

  it.each(['now', 'millis', 'random'])('$%s() in a definition is an error', async (fn) => {
    const found = await errors(`( $f := function(){ $${fn}() }; ["f"] )`);
    expect(found).toEqual([expect.stringContaining(`$${fn}()`)]);
  });

  it.each(['now', 'millis', 'random'])('$%s used as a value in a definition is an error too', async (fn) => {
    const found = await errors(`( $clock := $${fn}; $f := function(){ $clock() }; ["f"] )`);
    expect(found).toEqual([expect.stringContaining(`$${fn}`)]);
  });

  it.each(['sum', 'round', 'const', 'parent', 'self', 'response', 'now', 'status'])(
    'an export named %s clashes with a built-in or reserved name',
    async (name) => {
      const found = await errors(`( $${name} := function($x){ $x }; ["${name}"] )`);
      expect(found).toEqual([expect.stringContaining(`'${name}' clashes`)]);
    },
  );

  it.each([
    ['an empty export array', '( $f := function($x){ $x }; [] )'],
    ['a non-array last expression', '( $f := function($x){ $x }; 42 )'],
    ['an empty library object', {}],
  ])('%s is "no export"', async (_what, library) => {
    const found = await errors(library);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/exports nothing|no definition/);
  });

  it('an export that is not a simple identifier, or not bound, is an error', async () => {
    expect(await errors('( $f := 1; ["a-b"] )')).toEqual([
      expect.stringContaining('not a simple identifier'),
    ]);
    expect(await errors('( $f := 1; ["g"] )')).toEqual([expect.stringContaining("'g' is not bound")]);
  });

  it('a definition that does not compile, is too long, or has too many layers is an error', async () => {
    expect(await errors('( $f := ; ["f"] )')).toEqual([expect.stringContaining('does not compile')]);
    const long = `( $f := "${'x'.repeat(20_001)}"; ["f"] )`;
    expect(await errors(long)).toEqual([expect.stringContaining('at most 20000')]);
    const layers = Array.from({ length: 9 }, (_, i) => ({ define: `( $f${i} := ${i}; ["f${i}"] )` }));
    expect((await errors({ layers })).some((m) => m.includes('at most 8'))).toBe(true);
  });

  it('compileModel refuses a spec whose library breaks a rule (SPEC_INVALID)', async () => {
    const { spec: s } = normalizeSpec(spec({ library: '( $f := function(){ $now() }; ["f"] )' }));
    let caught: unknown;
    try {
      await compileModel(s);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CalcError);
    expect((caught as CalcError).code).toBe('SPEC_INVALID');
    expect((caught as CalcError).message).toContain('$now()');
  });
});
