import { describe, expect, it } from 'vitest';
import {
  canonicalize,
  formatPath,
  fromPointer,
  isProperPrefix,
  parseAddress,
  patternMatches,
  toPointer,
  WILDCARD,
} from '../../src/calc/address.js';
import { live, rejectsWith } from './helpers/model.js';

describe('parseAddress (calc-spec §2)', () => {
  it.each([
    ['$', []],
    ['$.a', ['a']],
    ['$.a.b[0].c', ['a', 'b', 0, 'c']],
    ['$.items[*].x', ['items', WILDCARD, 'x']],
    ['$.m[3][4]', ['m', 3, 4]],
  ])('accepts the canonical address %s', (raw, segments) => {
    const r = parseAddress(raw);
    expect(r).toEqual({ ok: true, path: segments });
  });

  it.each(['$.items.0.x', 'items[0].x', '$items[0].x', 'items.0.x'])(
    'rejects %s with the hint $.items[0].x',
    (raw) => {
      const r = parseAddress(raw);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.canonical).toBe('$.items[0].x');
      expect(r.message).toContain('$.items[0].x');
    },
  );

  it('keeps a non-index bracket literal in the name', () => {
    expect(canonicalize('a[b].c')).toBe('$.a[b].c');
    expect(parseAddress('$.a[b].c')).toEqual({ ok: true, path: ['a[b]', 'c'] });
  });

  it('rejects empty and blank addresses without a hint', () => {
    for (const raw of ['', '   ']) {
      const r = parseAddress(raw);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.canonical).toBeUndefined();
    }
  });

  it('canonicalizes a wildcard written as a dotted step to [*]', () => {
    expect(canonicalize('items.*.x')).toBe('$.items[*].x');
    expect(parseAddress('$.items.*.x').ok).toBe(false);
    expect(canonicalize('items[*].x')).toBe('$.items[*].x');
  });

  it('formats segments back to the same text', () => {
    expect(formatPath(['a', 0, WILDCARD, 'b'])).toBe('$.a[0][*].b');
    expect(formatPath([])).toBe('$');
  });
});

describe('JSON Pointer conversions (calc-spec §2)', () => {
  it('joins segments with / and escapes ~ and /', () => {
    expect(toPointer(['a', 0, 'b'])).toBe('/a/0/b');
    expect(toPointer(['a~b', 'c/d'])).toBe('/a~0b/c~1d');
    expect(toPointer([])).toBe('');
  });

  it('reads pointers back, all-digit tokens as indices', () => {
    expect(fromPointer('/a/0/b')).toEqual(['a', 0, 'b']);
    expect(fromPointer('/a~0b/c~1d')).toEqual(['a~b', 'c/d']);
    expect(fromPointer('')).toEqual([]);
    expect(formatPath(fromPointer('/items/12/price'))).toBe('$.items[12].price');
  });

  it('round-trips an address through a pointer', () => {
    const path = ['orders', 3, 'lines', 0, 'sku'];
    expect(fromPointer(toPointer(path))).toEqual(path);
  });
});

describe('pattern helpers', () => {
  it('matches [*] against any one segment, lengths equal', () => {
    expect(patternMatches(['items', WILDCARD, 'x'], ['items', 4, 'x'])).toBe(true);
    expect(patternMatches(['items', WILDCARD, 'x'], ['items', 4, 'y'])).toBe(false);
    expect(patternMatches(['items', WILDCARD], ['items', 4, 'x'])).toBe(false);
  });

  it('tells proper prefixes', () => {
    expect(isProperPrefix(['items'], ['items', WILDCARD, 'price'])).toBe(true);
    expect(isProperPrefix(['items', 2], ['items', WILDCARD, 'price'])).toBe(true);
    expect(isProperPrefix(['items', WILDCARD, 'price'], ['items', WILDCARD, 'price'])).toBe(false);
    expect(isProperPrefix(['other'], ['items', 0])).toBe(false);
  });
});

describe('mutation keys must be canonical (Decisions: Schema violation with the rewrite)', () => {
  it('rejects $.items.0.x and items[0].x as a Schema violation carrying $.items[0].x, writing nothing', async () => {
    const { runtime } = await live({});
    for (const key of ['$.items.0.x', 'items[0].x']) {
      const err = await rejectsWith(runtime.mutate({ [key]: 1 }), 'SCHEMA_VIOLATION');
      expect(err.status).toBe(422);
      expect(err.message).toContain('$.items[0].x');
      const violations = err.details.violations as { path: string; keyword: string; message: string }[];
      expect(violations).toHaveLength(1);
      expect(violations[0]!.path).toBe(key);
      expect(violations[0]!.message).toContain('$.items[0].x');
    }
    expect(await runtime.getState()).toEqual({});
    expect(runtime.historyTimestamps()).toEqual([]);
  });

  it('rejects a wildcard mutation key and the bare root', async () => {
    const { runtime } = await live({});
    await rejectsWith(runtime.mutate({ '$.items[*].x': 1 }), 'SCHEMA_VIOLATION');
    await rejectsWith(runtime.mutate({ $: {} }), 'SCHEMA_VIOLATION');
  });

  it('reads only canonical addresses', async () => {
    const { runtime } = await live({ defaultValues: [{ path: '$', expr: '{"a": {"b": 1}}' }] });
    expect(await runtime.getValue('$.a.b')).toBe(1);
    await rejectsWith(runtime.getValue('a.b'), 'INVALID_ARGUMENT');
  });
});

describe('a bracketed, quoted key (issue 38)', () => {
  it("the hint for $['unit price'] is the canonical address of that key, and following it writes that key", async () => {
    const parsed = parseAddress("$['unit price']");
    expect(parsed).toMatchObject({ ok: false, canonical: '$.unit price' });
    expect(parsed.ok ? '' : parsed.message).toContain("write it as '$.unit price'");
    expect(parseAddress('$.items[0]["unit price"].net')).toMatchObject({
      ok: false,
      canonical: '$.items[0].unit price.net',
    });
    const { runtime } = await live({ derivations: [{ path: '$.total', expr: '`unit price` * 2' }] });
    await runtime.mutate({ '$.unit price': 4 });
    expect(await runtime.getState()).toEqual({ 'unit price': 4, total: 8 });
  });

  it('a quoted key holding . [ or ] is refused without a rewrite that would name other keys', () => {
    const parsed = parseAddress("$['a.b']");
    expect(parsed.ok).toBe(false);
    expect(parsed).not.toHaveProperty('canonical');
    expect(parsed.ok ? '' : parsed.message).toMatch(/cannot spell/);
  });
});
