/**
 * JSON Patch as an agent writes it (issue 19): several operations in one patch, each seeing what
 * the ones before it did; removals that delete; a failed `test` answered as data. The property
 * test checks the translated mutation map against an independent RFC 6902 implementation
 * (fast-json-patch, with its operations copied so none aliases another).
 */
import fc from 'fast-check';
import jsonPatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { CalcError, cloneJson, parseAddress, translatePatch } from '../../src/calc/index.js';
import { setAt } from '../../src/calc/document.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { live } from './helpers/model.js';

const ITEM = {
  type: 'object',
  properties: { price: { type: 'number' }, qty: { type: 'number' }, v: { type: 'number' } },
  required: ['price', 'qty'],
};
const ORDER_SPEC = {
  schema: {
    type: 'object',
    properties: {
      items: { type: 'array', items: ITEM },
      order: { type: 'object', properties: { note: { type: 'string' }, rush: { type: 'boolean' } } },
    },
  },
  derivations: [
    { path: '$.total', expr: '$sum(items.(price * qty))' },
    { path: '$.items[*].lineTotal', expr: '$parent.price * $parent.qty' },
  ],
};

/** The mutation map written over a copy of `base`, in its own order, as the runtime writes it. */
function applyWrites(
  base: Record<string, unknown>,
  writes: Record<string, unknown>,
): Record<string, unknown> {
  const doc = cloneJson(base);
  for (const [address, value] of Object.entries(writes)) {
    const parsed = parseAddress(address);
    expect(parsed.ok, address).toBe(true);
    if (parsed.ok) expect(setAt(doc, parsed.path, cloneJson(value)), address).toBe(true);
  }
  return doc;
}

function codeOf(run: () => unknown): CalcError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(CalcError);
    return err as CalcError;
  }
  throw new Error('expected a CalcError');
}

describe('one patch, several operations', () => {
  it('adds an array and appends to it in one patch (the reported sequence)', async () => {
    const { runtime } = await live(ORDER_SPEC);
    const patch = [
      { op: 'add', path: '/items', value: [] },
      { op: 'add', path: '/items/-', value: { price: 2, qty: 3 } },
    ];
    const writes = translatePatch(runtime.baseDocument(), patch);
    expect(writes).toEqual({
      '$.items': [{ price: 2, qty: 3 }],
      '$.items[0].price': 2,
      '$.items[0].qty': 3,
    });
    await runtime.mutate(writes);
    expect(await runtime.getState()).toEqual({ items: [{ price: 2, qty: 3, lineTotal: 6 }], total: 6 });
  });

  it.each([
    [
      'an object, then a member of it',
      {},
      [
        { op: 'add', path: '/order', value: {} },
        { op: 'add', path: '/order/note', value: 'hi' },
      ],
      { order: { note: 'hi' } },
    ],
    [
      'an array with an element, then a change inside that element',
      {},
      [
        { op: 'add', path: '/items', value: [{ price: 1, qty: 1 }] },
        { op: 'replace', path: '/items/0/price', value: 4 },
      ],
      { items: [{ price: 4, qty: 1 }] },
    ],
    [
      'two appends, then a change to the first',
      { items: [] },
      [
        { op: 'add', path: '/items/-', value: { price: 1, qty: 1 } },
        { op: 'add', path: '/items/-', value: { price: 2, qty: 1 } },
        { op: 'replace', path: '/items/0/qty', value: 5 },
      ],
      {
        items: [
          { price: 1, qty: 5 },
          { price: 2, qty: 1 },
        ],
      },
    ],
    [
      'a copy, then a change to the copy only',
      { items: [{ price: 1, qty: 1 }] },
      [
        { op: 'copy', from: '/items/0', path: '/items/-' },
        { op: 'replace', path: '/items/1/price', value: 9 },
      ],
      {
        items: [
          { price: 1, qty: 1 },
          { price: 9, qty: 1 },
        ],
      },
    ],
    [
      'a move to the front, then an append',
      {
        items: [
          { price: 1, qty: 1 },
          { price: 2, qty: 1 },
        ],
      },
      [
        { op: 'move', from: '/items/1', path: '/items/0' },
        { op: 'add', path: '/items/-', value: { price: 3, qty: 1 } },
      ],
      {
        items: [
          { price: 2, qty: 1 },
          { price: 1, qty: 1 },
          { price: 3, qty: 1 },
        ],
      },
    ],
    [
      'a scalar replaced by an array, then appended to',
      { items: 5 },
      [
        { op: 'replace', path: '/items', value: [] },
        { op: 'add', path: '/items/-', value: { price: 1, qty: 2 } },
      ],
      { items: [{ price: 1, qty: 2 }] },
    ],
    [
      'an element removed, then the array emptied by another remove',
      {
        items: [
          { price: 1, qty: 1 },
          { price: 2, qty: 1 },
        ],
      },
      [
        { op: 'remove', path: '/items/0' },
        { op: 'remove', path: '/items/0' },
      ],
      { items: [] },
    ],
  ])('%s', (_name, base, patch, expected) => {
    expect(applyWrites(base, translatePatch(base, patch))).toEqual(expected);
  });

  it('an operation value is never shared with a later operation', () => {
    const element = { price: 1, qty: 1 };
    const patch = [
      { op: 'add', path: '/items/-', value: element },
      { op: 'add', path: '/items/-', value: element },
      { op: 'replace', path: '/items/0/price', value: 5 },
    ];
    const base = { items: [] };
    expect(applyWrites(base, translatePatch(base, patch))).toEqual({
      items: [
        { price: 5, qty: 1 },
        { price: 1, qty: 1 },
      ],
    });
    expect(element).toEqual({ price: 1, qty: 1 });
    expect(base).toEqual({ items: [] });
  });

  it('through the service: the reported patch on a model with no items', async () => {
    const service = new CalcService(new MemoryStore());
    await service.createModel({ id: 'orders', ...ORDER_SPEC });
    const result = await service.patchModel('orders', [
      { op: 'add', path: '/items', value: [] },
      { op: 'add', path: '/items/-', value: { price: 2, qty: 3 } },
    ]);
    expect(result.success).toBe(true);
    expect(await service.getField('orders', '$.total')).toBe(6);
    await service.close();
  });
});

describe('remove deletes', () => {
  it('an optional member of an element, so its typed schema is not asked to take null', async () => {
    const { runtime } = await live(ORDER_SPEC);
    await runtime.mutate({ '$.items': [{ price: 2, qty: 3, v: 1 }] });
    const writes = translatePatch(runtime.baseDocument(), [{ op: 'remove', path: '/items/0/v' }]);
    expect(writes).toEqual({ '$.items[0]': { price: 2, qty: 3 } });
    const result = await runtime.mutate(writes);
    expect(result.mutatedPaths).toEqual(['$.items[0]']);
    expect(await runtime.getState()).toEqual({ items: [{ price: 2, qty: 3, lineTotal: 6 }], total: 6 });
  });

  it('a member of a nested object, leaving its siblings', async () => {
    const { runtime } = await live(ORDER_SPEC);
    await runtime.mutate({ '$.order.note': 'x', '$.order.rush': true });
    await runtime.mutate(translatePatch(runtime.baseDocument(), [{ op: 'remove', path: '/order/note' }]));
    expect(await runtime.getValue('$.order')).toEqual({ rush: true });
  });

  it('the source of a nested move', () => {
    const base = { order: { note: 'x' } };
    expect(
      applyWrites(base, translatePatch(base, [{ op: 'move', from: '/order/note', path: '/order/memo' }])),
    ).toEqual({ order: { memo: 'x' } });
  });

  it('a member no address can name is written through its container', () => {
    const base = { meta: { 'a.b': 1, c: 2 } };
    const writes = translatePatch(base, [{ op: 'remove', path: '/meta/a.b' }]);
    expect(writes).toEqual({ '$.meta': { c: 2 } });
    expect(translatePatch(base, [{ op: 'add', path: '/meta/x.y', value: 3 }])).toEqual({
      '$.meta': { 'a.b': 1, c: 2, 'x.y': 3 },
    });
  });

  it('a top-level key no address can name is refused in our words', () => {
    const err = codeOf(() => translatePatch({}, [{ op: 'add', path: '/a.b', value: 1 }]));
    expect(err.code).toBe('INVALID_PATCH');
    expect(err.message).toMatch(/top-level key 'a\.b' cannot be named by an address/);
  });
});

describe('refusals say which operation and why', () => {
  it('a failed test is data: index, path, expected, actual', () => {
    const err = codeOf(() =>
      translatePatch({ qty: 2 }, [
        { op: 'replace', path: '/qty', value: 3 },
        { op: 'test', path: '/qty', value: 4 },
      ]),
    );
    expect(err.code).toBe('INVALID_PATCH');
    expect(err.details).toEqual({ op: 'test', index: 1, path: '/qty', expected: 4, actual: 3 });
    expect(err.message).toBe('Test failed: operation 1 expected 4 at /qty, found 3');
  });

  it('a test of something that is not there says so', () => {
    const err = codeOf(() => translatePatch({ a: {} }, [{ op: 'test', path: '/a/b', value: null }]));
    expect(err.details).toEqual({
      op: 'test',
      index: 0,
      path: '/a/b',
      expected: null,
      actual: null,
      absent: true,
    });
    expect(err.message).toBe(
      'Test failed: operation 0 expected null at /a/b, found nothing (nothing at /a/b)',
    );
  });

  it.each([
    [
      [{ op: 'frobnicate', path: '/a' }],
      /^Invalid patch: operation 0 has op "frobnicate"; use one of add, remove/,
    ],
    [[{ op: 'add', value: 1 }], /^Invalid patch: operation 0 \(add\) needs 'path'/],
    [[{ op: 'add', path: '/a' }], /^Invalid patch: operation 0 \(add \/a\) needs 'value'/],
    [[{ op: 'copy', path: '/a' }], /^Invalid patch: operation 0 \(copy \/a\) needs 'from'/],
    [[{ op: 'remove', path: 'a' }], /a JSON Pointer is "" or starts with "\/"/],
    [
      [{ op: 'remove', path: '/nope/deeper' }],
      /^Invalid patch: operation 0 \(remove \/nope\/deeper\): nothing at \/nope$/,
    ],
    [[{ op: 'remove', path: '/a/x' }], /\/a holds a number, not an object or array/],
    [
      [{ op: 'add', path: '/items/5', value: 1 }],
      /index 5 is past the end of the array at \/items \(length 2\)/,
    ],
    [[{ op: 'replace', path: '/items/-', value: 1 }], /'-' is not an index of the array at \/items/],
    [[{ op: 'move', from: '/obj', path: '/obj/x' }], /a value cannot be moved into itself/],
    [[{ op: 'remove', path: '' }], /the document root cannot be removed/],
    [[1], /^Invalid patch: operation 0 is not an object/],
  ])('%j', (patch, message) => {
    const err = codeOf(() => translatePatch({ a: 1, obj: {}, items: [1, 2] }, patch));
    expect(err.code).toBe('INVALID_PATCH');
    expect(err.message).toMatch(message);
    expect(err.message).not.toMatch(/Cannot perform|undefined|TypeError/);
  });

  it('constructor and prototype are ordinary keys', () => {
    const base = { constructor: { prototype: 1 } };
    expect(translatePatch(base, [{ op: 'replace', path: '/constructor/prototype', value: 2 }])).toEqual({
      '$.constructor.prototype': 2,
    });
    // an inherited name is not a member
    expect(codeOf(() => translatePatch({}, [{ op: 'remove', path: '/toString' }])).message).toMatch(
      /nothing at \/toString/,
    );
    expect(({} as Record<string, unknown>).prototype).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
// Differential: the map written over the base equals the base patched by fast-json-patch

const key = fc.constantFrom('a', 'b', 'c');
const leaf = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.boolean(), fc.constant('s'));
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(key, tie('v'), { maxKeys: 3 }),
  ),
})).v;
const doc = fc.record({
  a: value,
  b: fc.array(value, { maxLength: 3 }),
  c: fc.dictionary(key, value, { maxKeys: 3 }),
});
/** Pointers at least two deep: a top-level member removed is written as null, not deleted. */
const token = fc.oneof(key, fc.constantFrom('0', '1', '2', '-'));
const pointer = fc
  .tuple(key, fc.array(token, { minLength: 1, maxLength: 3 }))
  .map(([first, rest]) => `/${[first, ...rest].join('/')}`);
const op = fc.oneof(
  fc.record({ op: fc.constant('add'), path: pointer, value }),
  fc.record({ op: fc.constant('replace'), path: pointer, value }),
  fc.record({ op: fc.constant('remove'), path: pointer }),
  fc.record({ op: fc.constant('copy'), from: pointer, path: pointer }),
  fc.record({ op: fc.constant('move'), from: pointer, path: pointer }),
);

/** The operations of `candidates` fast-json-patch accepts one after another, and its result. */
function validSequence(base: unknown, candidates: jsonPatch.Operation[]) {
  let current = jsonPatch.deepClone(base) as unknown;
  const kept: jsonPatch.Operation[] = [];
  for (const candidate of candidates) {
    try {
      if ((candidate.op === 'move' && candidate.from !== candidate.path) || candidate.op === 'copy') {
        // RFC 6902: the target must be valid for an add (after the remove, for a move); the
        // library checks only `from` for these
        const source = jsonPatch.deepClone(current) as unknown;
        const taken =
          candidate.op === 'move'
            ? jsonPatch.applyOperation(source, { op: 'remove', path: candidate.from }, true, true)
            : {
                newDocument: source,
                removed: jsonPatch.getValueByPointer(source, candidate.from) as unknown,
              };
        jsonPatch.applyOperation(
          taken.newDocument,
          { op: 'add', path: candidate.path, value: taken.removed },
          true,
          true,
        );
      }
      const next = jsonPatch.applyOperation(
        jsonPatch.deepClone(current),
        jsonPatch.deepClone(candidate),
        true,
        true,
      ).newDocument as unknown;
      current = next;
      kept.push(candidate);
    } catch {
      // not applicable at this point of the sequence: left out
    }
  }
  return { kept, expected: current };
}

describe('translated patches agree with an independent implementation', () => {
  it('for random operation sequences on random documents', () => {
    fc.assert(
      fc.property(doc, fc.array(op, { minLength: 1, maxLength: 8 }), (base, candidates) => {
        const { kept, expected } = validSequence(base, candidates as jsonPatch.Operation[]);
        const writes = translatePatch(base, kept);
        expect(applyWrites(base, writes)).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });
});
