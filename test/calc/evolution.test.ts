import { describe, expect, it } from 'vitest';
import {
  applyEvolution,
  CalcError,
  evolveRuntime,
  normalizeSpec,
  prepareModel,
  startRuntime,
  type SpecEvolution,
} from '../../src/calc/index.js';
import { mergeKeyed } from '../../src/calc/evolution.js';

const baseSpec = {
  id: 'shop',
  version: '1.0.0',
  schema: {
    type: 'object',
    properties: {
      price: { type: 'number' },
      qty: { type: 'integer' },
      customer: { $ref: '#/$defs/Customer' },
    },
    $defs: { Customer: { type: 'object', properties: { name: { type: 'string' } } } },
  },
  constants: { vat: 0.2, unused: 1 },
  derivations: [
    { path: '$.net', expr: 'price * qty' },
    { path: '$.gross', expr: 'net * (1 + $const.vat)' },
  ],
  constraints: [
    { id: 'qty-positive', expr: 'qty >= 0', message: 'qty must not be negative', policy: 'rollback' },
  ],
  viewDefinition: {
    views: [
      {
        id: 'main',
        components: [
          { id: 'g', type: 'group', components: [{ id: 'p', type: 'numericField', bind: '$.price' }] },
        ],
      },
    ],
  },
};

async function live(spec: unknown = baseSpec) {
  const { model } = await prepareModel(spec);
  const rt = await startRuntime(model);
  await rt.mutate({ '$.price': 10, '$.qty': 2 });
  return rt;
}

describe('mergeKeyed', () => {
  const key = (i: Record<string, unknown>) => String(i.k);
  it('keeps order, replaces in place, appends the rest, last upsert wins, remove+upsert moves to the end', () => {
    const existing = [
      { k: 'a', v: 1 },
      { k: 'b', v: 1 },
      { k: 'c', v: 1 },
    ];
    expect(
      mergeKeyed(
        existing,
        [
          { k: 'b', v: 2 },
          { k: 'd', v: 1 },
          { k: 'b', v: 3 },
          { k: 'a', v: 9 },
        ],
        ['a', 'zzz'],
        key,
      ),
    ).toEqual([
      { k: 'b', v: 3 },
      { k: 'c', v: 1 },
      { k: 'd', v: 1 },
      { k: 'a', v: 9 },
    ]);
  });
});

describe('applyEvolution', () => {
  const spec = normalizeSpec(baseSpec).spec;
  it('upserts a derivation and bumps the version', () => {
    const out = applyEvolution(spec, {
      newVersion: '1.1.0',
      upsertDerivations: [{ path: '$.net', expr: 'price * qty - 1' }],
    });
    expect(out.version).toBe('1.1.0');
    expect(out.derivations).toEqual([
      { path: '$.net', expr: 'price * qty - 1' },
      { path: '$.gross', expr: 'net * (1 + $const.vat)', evaluation: 'eager' },
    ]);
  });

  describe('newLibrary: exports still called', () => {
    const withLibrary = normalizeSpec({
      ...baseSpec,
      library: {
        define: '( $double := function($x){ $x * 2 }; $half := function($x){ $x / 2 }; ["double", "half"] )',
      },
      derivations: [{ path: '$.twice', expr: '$double(price)' }],
    }).spec;
    const problemsOf = (define: string): string[] => {
      try {
        applyEvolution(withLibrary, { newLibrary: { define } });
        return [];
      } catch (err) {
        return ((err as CalcError).details.errors as { message: string }[]).map((p) => p.message);
      }
    };

    it('refuses dropping an export the spec calls, whatever the list looks like', () => {
      const dropsDouble = /export 'double' is still called/;
      expect(problemsOf('( $half := function($x){ $x / 2 }; ["half"] )')).toEqual([
        expect.stringMatching(dropsDouble),
      ]);
      expect(problemsOf('( $half := function($x){ $x / 2 }; [ "half" , ] )\n')).toEqual([
        expect.stringMatching(dropsDouble),
      ]);
      // no export list at the end: nothing is exported
      expect(problemsOf('( $double := function($x){ $x * 2 } )')).toEqual([
        expect.stringMatching(dropsDouble),
      ]);
    });

    it('accepts a library that keeps it (an unused export may go)', () => {
      expect(problemsOf('( $double := function($x){ $x * 2 }; ["double"] )')).toEqual([]);
      expect(problemsOf('($double := function($x){ $x * 2 }; $t := 1; ["t" "double",])')).toEqual([]);
    });

    it('reads a long unclosed list at once (the regex it replaced backtracked for minutes)', () => {
      const unclosed = `( $double := function($x){ $x * 2 }; [${'"double"  '.repeat(20)}x )`;
      expect(problemsOf(unclosed)).toEqual([expect.stringMatching(/export 'double' is still called/)]);
    });
  });

  it('schema tiers: node upsert with required, def upsert, node removal', () => {
    const out = applyEvolution(spec, {
      upsertSchemaNodes: [{ path: '$.discount', schema: { type: 'number', minimum: 0 }, required: true }],
      upsertSchemaDefs: {
        Customer: { type: 'object', properties: { name: { type: 'string' }, vip: { type: 'boolean' } } },
      },
      removeSchemaNodes: ['$.qty'],
    }) as {
      schema: {
        properties: Record<string, unknown>;
        required: string[];
        $defs: Record<string, { properties: object }>;
      };
    };
    expect(out.schema.properties.discount).toEqual({ type: 'number', minimum: 0 });
    expect(out.schema.required).toEqual(['discount']);
    expect(out.schema.properties.qty).toBeUndefined();
    expect(Object.keys(out.schema.$defs.Customer!.properties)).toEqual(['name', 'vip']);
  });

  it.each<[string, SpecEvolution, RegExp]>([
    ['newSchema mixed with tiers', { newSchema: {}, removeSchemaNodes: ['$.qty'] }, /do not combine/],
    [
      'removing a referenced def',
      { removeSchemaDefs: ['Customer'] },
      /still referenced at schema\.properties\.customer/,
    ],
    [
      'a node path crossing a $ref',
      { upsertSchemaNodes: [{ path: '$.customer.age', schema: {} }] },
      /crosses a \$ref/,
    ],
    ['removing an absent node', { removeSchemaNodes: ['$.nope'] }, /no schema node/],
    ['removing a constant still in use', { removeConstants: ['vat'] }, /still used/],
    [
      'an unknown view',
      { upsertComponents: [{ viewId: 'nope', component: { id: 'x', type: 'label' } }] },
      /unknown view/,
    ],
    [
      'a move into its own subtree',
      { upsertComponents: [{ viewId: 'main', component: { id: 'g', type: 'group' }, parentId: 'p' }] },
      /own subtree/,
    ],
  ])('refuses %s', (_name, evolution, message) => {
    try {
      applyEvolution(spec, evolution);
      expect.unreachable();
    } catch (err) {
      expect((err as CalcError).code).toBe('EVOLUTION_INVALID');
      expect(JSON.stringify((err as CalcError).details.errors)).toMatch(message);
    }
  });

  it('removes an unused constant and moves a component before another', () => {
    const out = applyEvolution(spec, {
      removeConstants: ['unused'],
      upsertComponents: [
        {
          viewId: 'main',
          component: { id: 'q', type: 'numericField', bind: '$.qty' },
          parentId: 'g',
          beforeId: 'p',
        },
      ],
    }) as {
      constants: object;
      viewDefinition: { views: { components: { components: { id: string }[] }[] }[] };
    };
    expect(out.constants).toEqual({ vat: 0.2 });
    expect(out.viewDefinition.views[0]!.components[0]!.components.map((c) => c.id)).toEqual(['q', 'p']);
  });
});

describe('evolveRuntime', () => {
  it('carries state into a new runtime and recomputes with the new expressions', async () => {
    const rt = await live();
    const { runtime } = await evolveRuntime(rt, {
      expectedVersion: '1.0.0',
      newVersion: '2.0.0',
      upsertConstants: { vat: 0.1 },
    });
    expect(runtime.model.spec.version).toBe('2.0.0');
    expect(await runtime.getValue('$.gross')).toBeCloseTo(22);
    expect(await rt.getValue('$.gross')).toBeCloseTo(24); // the live runtime is untouched
  });

  it('a stale expectedVersion is a version conflict naming both versions', async () => {
    const rt = await live();
    await expect(evolveRuntime(rt, { expectedVersion: '0.9.0' })).rejects.toMatchObject({
      code: 'VERSION_CONFLICT',
      details: { expected: '0.9.0', actual: '1.0.0' },
    });
  });

  it('refuses a schema change that strands a live value', async () => {
    const rt = await live();
    await expect(
      evolveRuntime(rt, { upsertSchemaNodes: [{ path: '$.price', schema: { type: 'string' } }] }),
    ).rejects.toMatchObject({
      code: 'EVOLUTION_INVALID',
      details: { incompatibilities: [{ path: '$.price' }] },
    });
  });

  it('an evolution that makes the spec invalid is refused with the validator errors', async () => {
    const rt = await live();
    const err = await evolveRuntime(rt, { upsertDerivations: [{ path: '$.bad', expr: 'price *' }] }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CalcError);
    expect((err as CalcError).code).toBe('EVOLUTION_INVALID');
    expect(JSON.stringify((err as CalcError).details.errors)).toContain('derivations[2].expr');
  });

  it('backfill writes only absent fields, through a normal cycle', async () => {
    const rt = await live();
    const { runtime } = await evolveRuntime(rt, {
      upsertSchemaNodes: [{ path: '$.discount', schema: { type: 'number' } }],
      upsertDerivations: [{ path: '$.net', expr: 'price * qty - discount' }],
      backfill: { '$.discount': 3, '$.price': 99 },
    });
    expect(await runtime.getValue('$.discount')).toBe(3);
    expect(await runtime.getValue('$.price')).toBe(10);
    expect(await runtime.getValue('$.net')).toBe(17);
  });

  it('a removed metaDerivation no longer overlays the schema', async () => {
    const rt = await live({
      ...baseSpec,
      metaDerivations: [{ path: '$.qty', property: 'maximum', expr: '5' }],
    });
    expect(rt.getEffectiveSchema('$.qty').maximum).toBe(5);
    const { runtime } = await evolveRuntime(rt, { removeMetaDerivations: ['$.qty#maximum'] });
    expect(runtime.getEffectiveSchema('$.qty').maximum).toBeUndefined();
    await expect(runtime.mutate({ '$.qty': 50 })).resolves.toMatchObject({ success: true });
  });
});

describe('unknown evolution keys (issue 38)', () => {
  const spec = normalizeSpec(baseSpec).spec;

  it('refuses `constants` (meant upsertConstants) with the keys it most likely meant, changing nothing', async () => {
    const rt = await live();
    let caught: unknown;
    try {
      await evolveRuntime(rt, { newVersion: '2.0.0', constants: { vat: 0.5 } } as SpecEvolution);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CalcError);
    const err = caught as CalcError;
    expect(err.code).toBe('EVOLUTION_INVALID');
    expect(err.message).toContain('constants');
    expect(err.message).toContain('upsertConstants');
    expect(err.details.errors).toEqual([
      {
        location: 'constants',
        message: 'unknown evolution key; did you mean one of newConstants, upsertConstants, removeConstants?',
      },
    ]);
    expect(rt.model.spec.version).toBe('1.0.0');
  });

  it('suggests the nearest key for a typo and lists every key when nothing is near', () => {
    const typo = (): unknown => applyEvolution(spec, { upsertDerivation: [] } as unknown as SpecEvolution);
    expect(typo).toThrow(/did you mean upsertDerivations\?/);
    const far = (): unknown => applyEvolution(spec, { zzz: 1 } as unknown as SpecEvolution);
    expect(far).toThrow(/the keys are expectedVersion, newVersion, upsertDerivations/);
  });

  it('a key named like an Object.prototype member is unknown too, not a crash', () => {
    const odd = JSON.parse('{"toString": 1, "__proto__": {"x": 1}}') as SpecEvolution;
    expect(() => applyEvolution(spec, odd)).toThrow(/Invalid evolution: 2 problems/);
  });
});
