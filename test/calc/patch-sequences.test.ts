/**
 * JSON Patch as an agent writes it (issue 19): several operations in one patch, each seeing what
 * the ones before it did; removals that delete; a failed `test` answered as data. translatePatch
 * applies the operations with fast-json-patch; the property tests hold what it adds (the mutation
 * map, copied values, copy and move as RFC 6902 defines them, refusals) to fast-json-patch applying
 * the same operations on its own: the same operation refused, or the same document.
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

  it('a move whose target is reached only once its source is gone (RFC 6902 §4.4: remove, then add)', () => {
    // found by the random-sequence property below: /b/1 is false until /b/0 is removed, then []
    const base = { b: [0, false, []] };
    const writes = translatePatch(base, [{ op: 'move', from: '/b/0', path: '/b/1/0' }]);
    expect(applyWrites(base, writes)).toEqual({ b: [false, [0]] });
    // moving a value into itself stays refused, even where the shifted array would take it
    const err = codeOf(() => translatePatch({ b: [0, {}] }, [{ op: 'move', from: '/b/0', path: '/b/0/x' }]));
    expect(err.message).toMatch(/moved into itself/);
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

  it('constructor and prototype are ordinary keys; a pointer from one into the other is refused', () => {
    const base = { constructor: { x: 1 }, prototype: { constructor: 2 } };
    expect(
      translatePatch(base, [
        { op: 'replace', path: '/constructor/x', value: 2 },
        { op: 'replace', path: '/prototype/constructor', value: 3 },
        { op: 'add', path: '/constructor/prototypes', value: 4 },
      ]),
    ).toEqual({ '$.constructor.x': 2, '$.prototype.constructor': 3, '$.constructor.prototypes': 4 });
    // fast-json-patch refuses that route (banPrototypeModifications stays on): said in our words
    for (const op of [
      { op: 'replace', path: '/constructor/prototype', value: 2 },
      { op: 'copy', from: '/constructor/prototype', path: '/x' },
    ]) {
      const err = codeOf(() => translatePatch({ constructor: { prototype: 1 } }, [op]));
      expect(err.code).toBe('INVALID_PATCH');
      expect(err.message).toMatch(
        /^Invalid patch: operation 0 \((replace|copy)\) has (path|from) '\/constructor\/prototype': a pointer may not step from 'constructor' into 'prototype'/,
      );
    }
    expect(({} as Record<string, unknown>).prototype).toBeUndefined();
  });

  it('an inherited name is not a member', () => {
    for (const op of [
      { op: 'remove', path: '/toString' },
      { op: 'replace', path: '/hasOwnProperty', value: 1 },
      { op: 'copy', from: '/valueOf', path: '/x' },
      { op: 'move', from: '/constructor', path: '/x' },
      { op: 'add', path: '/toString/x', value: 1 },
    ]) {
      const err = codeOf(() => translatePatch({ a: 1 }, [op]));
      expect(err.message, JSON.stringify(op)).toMatch(
        /nothing at \/(toString|hasOwnProperty|valueOf|constructor)$/,
      );
    }
    expect(
      codeOf(() => translatePatch({}, [{ op: 'test', path: '/toString', value: 'x' }])).details,
    ).toMatchObject({ actual: null, absent: true });
    // as a new member it is ordinary
    expect(translatePatch({}, [{ op: 'add', path: '/toString', value: 1 }])).toEqual({ '$.toString': 1 });
  });
});

describe('where fast-json-patch is looser than RFC 6902, the patch is still refused', () => {
  const base = { a: 1, obj: {}, items: [1, 2] };
  it.each([
    // the library reads an add's index with ~~: '' is 0, '01' is 1, 4294967296 wraps to 0
    [[{ op: 'add', path: '/items/', value: 9 }], /'' is not an index of the array at \/items/],
    [[{ op: 'add', path: '/items/01', value: 9 }], /'01' is not an index of the array at \/items/],
    [
      [{ op: 'add', path: '/items/4294967296', value: 9 }],
      /index 4294967296 is past the end of the array at \/items \(length 2\)/,
    ],
    // its copy and move check the target only as far as the walk goes: past the end appends
    [[{ op: 'copy', from: '/a', path: '/items/3' }], /\(copy \/items\/3\): index 3 is past the end/],
    [[{ op: 'move', from: '/a', path: '/items/3' }], /\(move \/items\/3\): index 3 is past the end/],
    // to the root it does not check `from` at all (a TypeError)
    [[{ op: 'copy', from: '/nope/x', path: '' }], /\(copy ""\): from \/nope\/x: nothing at \/nope$/],
    [[{ op: 'move', from: '/nope/x', path: '' }], /\(move ""\): from \/nope\/x: nothing at \/nope$/],
    // RFC 6902: the `from` of a move must exist, even onto itself
    [[{ op: 'move', from: '/nope', path: '/nope' }], /\(move \/nope\): from \/nope: nothing at \/nope$/],
    // its op check is a lookup in an object of its own
    [[{ op: 'toString', path: '/a' }], /has op "toString"; use one of/],
    [[{ op: '_get', path: '/a' }], /has op "_get"; use one of/],
    // it takes any `from`, and a '~' not followed by 0 or 1
    [[{ op: 'copy', from: 'a', path: '/b' }], /has from 'a': a JSON Pointer is "" or starts with "\/"/],
    [[{ op: 'add', path: '/x~2', value: 1 }], /'~' must be written ~0, '\/' as ~1/],
    // below a scalar root it writes nowhere, silently
    [
      [
        { op: 'replace', path: '', value: 3 },
        { op: 'add', path: '/a', value: 1 },
      ],
      /^Invalid patch: operation 0 \(replace ""\): the document root must stay an object$/,
    ],
    [[{ op: 'add', path: '/a', value: [undefined] }], /\(add \/a\) has a 'value' holding undefined/],
  ])('%j', (patch, message) => {
    const err = codeOf(() => translatePatch(base, patch));
    expect(err.code).toBe('INVALID_PATCH');
    expect(err.message).toMatch(message);
    expect(err.message).not.toMatch(/Cannot|JSON-Patch|banned|undefined is|TypeError|OPERATION_/);
  });

  it('a test compares a member named hasOwnProperty as data', () => {
    const value = { hasOwnProperty: 1, n: [{ hasOwnProperty: true }] };
    expect(translatePatch({ v: value }, [{ op: 'test', path: '/v', value }])).toEqual({});
    const err = codeOf(() =>
      translatePatch({ v: value }, [{ op: 'test', path: '/v', value: { ...value, hasOwnProperty: 2 } }]),
    );
    expect(err.details).toMatchObject({ op: 'test', index: 0, actual: value });
  });

  it('a copied or moved value is not shared with its source or a later operation', () => {
    const base = { order: { note: { t: 'x' } }, items: [] as unknown[] };
    const patch = [
      { op: 'copy', from: '/order/note', path: '/items/-' },
      { op: 'copy', from: '/items/0', path: '/items/-' },
      { op: 'move', from: '/items/0', path: '/moved' },
      { op: 'replace', path: '/moved/t', value: 'y' },
      { op: 'replace', path: '/items/0/t', value: 'z' },
    ];
    expect(applyWrites(base, translatePatch(base, patch))).toEqual({
      order: { note: { t: 'x' } },
      items: [{ t: 'z' }],
      moved: { t: 'y' },
    });
    expect(base).toEqual({ order: { note: { t: 'x' } }, items: [] });
  });
});

// ---------------------------------------------------------------------------------------------
// Differential: the map written over the base equals the base patched by fast-json-patch alone,
// and a sequence is refused at the operation fast-json-patch refuses

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
/**
 * For sequences taken as given: pointers mostly two deep, where the generated documents have
 * something, so about a third of the sequences apply; `test` of a leaf, so some pass.
 */
const near = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('0', '1', '2', '-').map((i) => `/b/${i}`) },
  { weight: 3, arbitrary: key.map((k) => `/c/${k}`) },
  { weight: 2, arbitrary: pointer },
);
const anyOp = fc.oneof(
  { weight: 2, arbitrary: fc.record({ op: fc.constant('add'), path: near, value }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('replace'), path: near, value }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('remove'), path: near }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('copy'), from: near, path: near }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('move'), from: near, path: near }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('test'), path: near, value: leaf }) },
);
/** Documents with something at most of those pointers. */
const fuller = fc.record({
  a: value,
  b: fc.array(value, { minLength: 2, maxLength: 3 }),
  c: fc.dictionary(key, value, { minKeys: 2, maxKeys: 3 }),
});

/**
 * One operation as fast-json-patch applies it on its own (validated, on copies, so nothing
 * aliases), with the RFC 6902 rule its copy and move leave out: the target must be valid for an
 * add (after the removal, for a move). A move is, as RFC 6902 §4.4 defines it, the library's
 * remove then its add: the library's own move checks the target against the document before the
 * removal, so it refuses `/b/0` → `/b/1/0` when `/b/1` becomes an array only once `/b/0` is gone.
 * Throws when the operation does not apply.
 */
function referenceStep(current: unknown, candidate: jsonPatch.Operation): unknown {
  if ((candidate.op === 'move' && candidate.from !== candidate.path) || candidate.op === 'copy') {
    // RFC 6902 §4.4: `from` must not be a proper prefix of `path`
    if (candidate.op === 'move' && candidate.path.startsWith(`${candidate.from}/`))
      throw new Error('moved into itself');
    const source = jsonPatch.deepClone(current) as unknown;
    const taken =
      candidate.op === 'move'
        ? jsonPatch.applyOperation(source, { op: 'remove', path: candidate.from }, true, true)
        : {
            newDocument: source,
            removed: jsonPatch.getValueByPointer(source, candidate.from) as unknown,
          };
    const added = jsonPatch.applyOperation(
      taken.newDocument,
      { op: 'add', path: candidate.path, value: taken.removed },
      true,
      true,
    );
    if (candidate.op === 'move') return added.newDocument;
  }
  return jsonPatch.applyOperation(jsonPatch.deepClone(current), jsonPatch.deepClone(candidate), true, true)
    .newDocument as unknown;
}

/** The whole sequence by the reference: the first operation it refuses, or the document. */
function reference(base: unknown, ops: jsonPatch.Operation[]): { refused?: number; doc: unknown } {
  let current = jsonPatch.deepClone(base) as unknown;
  for (const [index, candidate] of ops.entries()) {
    try {
      current = referenceStep(current, candidate);
    } catch {
      return { refused: index, doc: current };
    }
  }
  return { doc: current };
}

/** The operations of `candidates` the reference accepts one after another, and its result. */
function validSequence(base: unknown, candidates: jsonPatch.Operation[]) {
  let current = jsonPatch.deepClone(base) as unknown;
  const kept: jsonPatch.Operation[] = [];
  for (const candidate of candidates) {
    try {
      current = referenceStep(current, candidate);
      kept.push(candidate);
    } catch {
      // not applicable at this point of the sequence: left out
    }
  }
  return { kept, expected: current };
}

describe('translated patches agree with fast-json-patch applying them on its own', () => {
  it('for random operation sequences on random documents: the same document', () => {
    fc.assert(
      fc.property(doc, fc.array(op, { minLength: 1, maxLength: 8 }), (base, candidates) => {
        const { kept, expected } = validSequence(base, candidates as jsonPatch.Operation[]);
        const writes = translatePatch(base, kept);
        expect(applyWrites(base, writes)).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });

  it('for random operation sequences, as given: refused at the same operation, else the same document', () => {
    const seen = { applied: 0, refused: 0 };
    fc.assert(
      fc.property(fuller, fc.array(anyOp, { minLength: 1, maxLength: 3 }), (base, ops) => {
        const expected = reference(base, ops as jsonPatch.Operation[]);
        let writes: Record<string, unknown> | undefined;
        let refused: unknown;
        try {
          writes = translatePatch(base, ops);
        } catch (err) {
          expect(err).toBeInstanceOf(CalcError);
          expect((err as CalcError).code).toBe('INVALID_PATCH');
          refused = (err as CalcError).details.index;
        }
        expect(refused).toBe(expected.refused);
        if (writes) expect(applyWrites(base, writes)).toEqual(expected.doc);
        seen[writes ? 'applied' : 'refused']++;
      }),
      { numRuns: 600 },
    );
    // both halves of the agreement were exercised
    expect(seen.applied).toBeGreaterThan(100);
    expect(seen.refused).toBeGreaterThan(100);
  });
});
