import { describe, expect, it } from 'vitest';
import { formatPath, WILDCARD, type Path } from '../../src/calc/address.js';
import { extractDependencies, type ExtractOptions } from '../../src/calc/dependencies.js';
import { mustCompile } from '../../src/calc/expression.js';
import { compile, live } from './helpers/model.js';

/** Extracted patterns as sorted canonical strings (first-seen order is not part of the contract). */
function deps(text: string, options: ExtractOptions = {}): string[] {
  return extractDependencies(mustCompile(text).ast, options)
    .map((p) => formatPath(p))
    .sort();
}

const A_ROW: Path = ['A', WILDCARD];

describe('extractDependencies — what Java records (calc-spec §4 "Path extraction")', () => {
  it.each<[string, string[]]>([
    ['a', ['$.a']],
    ['a.b.c', ['$.a.b.c']], // only the leaf path, never $.a
    ['$sum(items.price)', ['$.items.price']], // schema-blind: no wildcard through a plain step
    ['$count(items)', ['$.items']],
    ['items.(price * qty)', ['$.items[*].price', '$.items[*].qty']], // element scope, $.items itself not recorded
    ['$sum(items.(price * qty))', ['$.items[*].price', '$.items[*].qty']],
    ['items.(-price)', ['$.items[*].price']],
    ['items.((price))', ['$.items[*].price']],
    ['items.(a; b)', ['$.items[*].a', '$.items[*].b']],
    ['items[*].price', ['$.items[*].price']],
    ['items[*]', ['$.items']],
    ['items[0]', ['$.items']],
    ['items[0].price', ['$.items', '$.items.price']],
    ['$$.x', ['$.x']],
    ['$.x', ['$.x']],
    ['$count(board[$!=""])', ['$.board', '$.board[*]']], // `$` in the predicate is each element
    ['$map(items, function($i){ $i.price })', ['$.items']],
    ['a + $lookup($, "b")', ['$', '$.a']], // $lookup's key is invisible, but `$` reads the whole root
    ['items.price ~> $sum()', ['$.items.price']],
    ['{"a": b}', ['$.b']],
    ['a ? b : c', ['$.a', '$.b', '$.c']],
    ['a.b[0].c', ['$.a.b', '$.a.b.c']],
    ['items.$string(price)', ['$.items[*].price']],
    [
      'customer.address.(street & " " & city)',
      ['$.customer.address[*].city', '$.customer.address[*].street'],
    ],
  ])('%s → %j', (text, expected) => {
    expect(deps(text)).toEqual(expected);
  });

  it('$parent.x in a [*] derivation resolves to the element pattern; bare $parent reads the whole row', () => {
    expect(deps('$parent.x', { parent: A_ROW })).toEqual(['$.A[*].x']);
    // Java records nothing for a bare $parent, so no write re-derived it (issue 19's sibling)
    expect(deps('$parent', { parent: A_ROW })).toEqual(['$.A[*]']);
    expect(deps('$count($parent)', { parent: A_ROW })).toEqual(['$.A[*]']);
  });

  it('$parent.x outside a [*] derivation is $.x (empty prefix)', () => {
    expect(deps('$parent.x')).toEqual(['$.x']);
  });

  it('other variables record nothing for themselves', () => {
    expect(deps('$x')).toEqual([]);
    expect(deps('($x := 3; $x * a)')).toEqual(['$.a']);
  });

  it('a scoped extraction resolves names against the scope', () => {
    expect(deps('qty > 0', { scope: ['items', WILDCARD] })).toEqual(['$.items[*].qty']);
    expect(deps('$ > 0', { scope: ['qty'] })).toEqual(['$.qty']); // `$` is the scoped value
  });
});

describe('extractDependencies — the "do better" cases (a)–(h)', () => {
  it('(a) predicate fields resolve against the element pattern, not the root', () => {
    expect(deps('items[qty>0]')).toEqual(['$.items', '$.items[*].qty']);
    expect(deps('items[qty > 0].amount')).toEqual(['$.items[*].amount', '$.items[*].qty']);
    expect(deps('$count(items[qty > 0])')).toEqual(['$.items', '$.items[*].qty']);
    expect(deps('items[qty>0]')).not.toContain('$.qty');
  });

  it('(b) the tail of a variable path records nothing', () => {
    expect(deps('$const.rate')).toEqual([]);
    expect(deps('$const.rate * a')).toEqual(['$.a']);
    expect(deps('$const.rates.vat.standard')).toEqual([]);
  });

  it('(c) a target first seen as an input is still a derivation (targets registered before edges)', async () => {
    const model = await compile({
      derivations: [
        { path: '$.x', expr: 'y + 1' },
        { path: '$.y', expr: 'a * 2' },
      ],
    });
    expect(model.graph.depth).toEqual([1, 0]);
    expect(model.graph.derivationOrder).toEqual([1, 0]);
    const json = model.graphJson();
    expect(json.nodes.find((n) => n.key === '$.y')?.kind).toBe('DERIVED');
    expect(json.nodes.filter((n) => n.key === '$.y')).toHaveLength(1);
  });

  it('(d) inside an element scope, calls, conditionals, constructors, := values, ?: and ?? keep the scope', () => {
    expect(deps('items.($round(price))')).toEqual(['$.items[*].price']);
    expect(deps('items.(qty > 0 ? price : 0)')).toEqual(['$.items[*].price', '$.items[*].qty']);
    expect(deps('items.{ "p": price }')).toEqual(['$.items[*].price']);
    expect(deps('items.[price, qty]')).toEqual(['$.items[*].price', '$.items[*].qty']);
    expect(deps('items.($p := price; $p * 2)')).toEqual(['$.items[*].price']);
    expect(deps('items.(a ?: b)')).toEqual(['$.items[*].a', '$.items[*].b']);
    expect(deps('items.(a ?? b)')).toEqual(['$.items[*].a', '$.items[*].b']);
    expect(deps('items.($round(price))')).not.toContain('$.price');
  });

  it('(e) $sum(items.lineTotal) is ordered after $.items[*].lineTotal and reached by an element write', async () => {
    const model = await compile({
      derivations: [
        { path: '$.total', expr: '$sum(items.lineTotal)' },
        { path: '$.items[*].lineTotal', expr: '$parent.price * 2' },
      ],
    });
    expect(model.graph.derivationOrder).toEqual([1, 0]);
    expect(model.graph.depth).toEqual([1, 0]);
    const dirty = model.graph.dirtyFor(['items', 0, 'price']);
    expect(dirty.derivations).toEqual([1, 0]);
  });

  it('(e) route 5: a dependency through a plain step is reached by element and row writes', async () => {
    const { runtime } = await live({ derivations: [{ path: '$.sum', expr: '$sum(items.price)' }] });
    await runtime.mutate({ '$.items': [{ price: 1 }, { price: 2 }] });
    expect(await runtime.getValue('$.sum')).toBe(3);
    const r1 = await runtime.mutate({ '$.items[0].price': 10 });
    expect(r1.derivedUpdated).toEqual(['$.sum']);
    expect(await runtime.getValue('$.sum')).toBe(12);
    const r2 = await runtime.mutate({ '$.items[2]': { price: 100 } });
    expect(r2.derivedUpdated).toEqual(['$.sum']);
    expect(await runtime.getValue('$.sum')).toBe(112);
  });

  it('(f) order.items[cond].price is $.order.items[*].price, never a rootless pattern', () => {
    const found = deps('order.items[qty > 0].price');
    expect(found).toEqual(['$.order.items[*].price', '$.order.items[*].qty']);
    for (const p of found) expect(p.startsWith('$')).toBe(true);
  });

  it('(g) $parent resolves to the element pattern, not "target minus its last step"', async () => {
    const model = await compile({ derivations: [{ path: '$.A[*].b.c', expr: '$parent.x * 10' }] });
    expect(model.derivations[0]!.depStrings).toEqual(['$.A[*].x']);
    const { runtime } = await live({ derivations: [{ path: '$.A[*].b.c', expr: '$parent.x * 10' }] });
    await runtime.mutate({ '$.A': [{ x: 2 }, { x: 3 }] });
    expect(await runtime.getValue('$.A[0].b.c')).toBe(20);
    const r = await runtime.mutate({ '$.A[1].x': 4 });
    expect(r.derivedUpdated).toEqual(['$.A[1].b.c']); // that row only (issue 18)
    expect(await runtime.getValue('$.A[1].b.c')).toBe(40);
  });

  it('(h) $$.x is always the root, also inside an element scope', () => {
    expect(deps('items.($$.rate * price)')).toEqual(['$.items[*].price', '$.rate']);
    expect(deps('items.($$.rate * price)')).not.toContain('$.items[*].rate');
  });

  it('nested element scopes and predicates compose', () => {
    expect(deps('items.(lines[q > 0].amt)')).toEqual(['$.items[*].lines[*].amt', '$.items[*].lines[*].q']);
    expect(deps('a[b > 0].c.d[e = 1].f')).toEqual(['$.a[*].b', '$.a[*].c.d[*].e', '$.a[*].c.d[*].f']);
    expect(deps('$sum(items[qty > $$.min].price)')).toEqual(['$.items[*].price', '$.items[*].qty', '$.min']);
  });

  it('grouping reads keys and values per element', () => {
    const found = deps('items{category: $sum(price)}');
    expect(found).toContain('$.items[*].category');
    expect(found).toContain('$.items[*].price');
    expect(found).not.toContain('$.category');
    expect(found).not.toContain('$.price');
  });

  it('chained filters, or a filter followed by a block, keep a single element step', () => {
    expect(deps('items[qty>0][price>1].name')).toEqual([
      '$.items[*].name',
      '$.items[*].price',
      '$.items[*].qty',
    ]);
    expect(deps('items[qty > 0].(price * 2)')).toEqual(['$.items[*].price', '$.items[*].qty']);
  });

  it('the path tail after a sort step is a dependency (items^(price).name reads the names)', async () => {
    const found = deps('items^(price).name');
    expect(found.some((p) => p === '$.items.name' || p === '$.items[*].name')).toBe(true);
    const { runtime } = await live({
      derivations: [{ path: '$.names', expr: '$join(items^(price).name, ",")' }],
    });
    await runtime.mutate({
      '$.items': [
        { price: 2, name: 'b' },
        { price: 1, name: 'a' },
      ],
    });
    expect(await runtime.getValue('$.names')).toBe('a,b');
    await runtime.mutate({ '$.items[0].name': 'z' });
    expect(await runtime.getValue('$.names')).toBe('a,z');
  });
});
