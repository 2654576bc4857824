import { describe, expect, it } from 'vitest';
import {
  CalcError,
  compileModel,
  normalizeSpec,
  startRuntime,
  translatePatch,
} from '../../src/calc/index.js';

describe('translatePatch', () => {
  const base = { a: 1, obj: { x: 1, y: 2 }, items: [{ p: 1 }, { p: 2 }] };

  it('replace and object add become writes of the new value', () => {
    expect(
      translatePatch(base, [
        { op: 'replace', path: '/a', value: 5 },
        { op: 'add', path: '/obj/z', value: 3 },
      ]),
    ).toEqual({ '$.a': 5, '$.obj.z': 3 });
  });

  it('a nested member remove writes its object without the member (not null)', () => {
    expect(translatePatch(base, [{ op: 'remove', path: '/obj/y' }])).toEqual({ '$.obj': { x: 1 } });
  });

  it('an array insert rewrites the whole array, then the shifted elements', () => {
    const m = translatePatch(base, [{ op: 'add', path: '/items/0', value: { p: 9 } }]);
    expect(Object.keys(m)).toEqual(['$.items', '$.items[0].p', '$.items[1].p', '$.items[2].p']);
    expect(m['$.items']).toEqual([{ p: 9 }, { p: 1 }, { p: 2 }]);
  });

  it('append with "-" and array remove', () => {
    expect(translatePatch(base, [{ op: 'add', path: '/items/-', value: { p: 3 } }])).toEqual({
      '$.items': [{ p: 1 }, { p: 2 }, { p: 3 }],
      '$.items[2].p': 3,
    });
    expect(translatePatch(base, [{ op: 'remove', path: '/items/0' }])).toEqual({
      '$.items': [{ p: 2 }],
      '$.items[0].p': 2,
    });
  });

  it('move between object keys writes null at the source and the value at the target', () => {
    expect(translatePatch(base, [{ op: 'move', from: '/a', path: '/b' }])).toEqual({ '$.a': null, '$.b': 1 });
  });

  it('test operations change nothing; a failing test refuses the patch', () => {
    expect(translatePatch(base, [{ op: 'test', path: '/a', value: 1 }])).toEqual({});
    expect(() => translatePatch(base, [{ op: 'test', path: '/a', value: 2 }])).toThrow(CalcError);
  });

  it.each([
    ['not an array', { op: 'add' }],
    ['unknown op', [{ op: 'frobnicate', path: '/a' }]],
    ['missing target', [{ op: 'remove', path: '/nope/deeper' }]],
    ['root turned into a scalar', [{ op: 'replace', path: '', value: 3 }]],
  ])('refuses %s with INVALID_PATCH', (_name, patch) => {
    try {
      translatePatch(base, patch);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(CalcError);
      expect((err as CalcError).code).toBe('INVALID_PATCH');
      expect((err as CalcError).message).toMatch(/^Invalid patch/);
    }
  });

  it('a translated patch runs as one cycle on a live model', async () => {
    const { spec } = normalizeSpec({
      id: 'orders',
      schema: {
        type: 'object',
        properties: {
          items: { type: 'array', items: { type: 'object', properties: { price: { type: 'number' } } } },
        },
      },
      derivations: [{ path: '$.total', expr: '$sum(items.price)' }],
    });
    const rt = await startRuntime(await compileModel(spec));
    await rt.mutate({ '$.items': [{ price: 2 }] });
    const result = await rt.mutate(
      translatePatch(rt.baseDocument(), [{ op: 'add', path: '/items/-', value: { price: 5 } }]),
    );
    expect(result.derivedUpdated).toEqual(['$.total']);
    expect(await rt.getValue('$.total')).toBe(7);
  });
});
