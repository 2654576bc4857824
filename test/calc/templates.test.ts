// Branching from a template (issue 41, part 1): coordinates as valem-parity.md §1.1 gives them,
// and the materialisation's merge rules (§1.2), checked on the engine with a resolver over a map
// of stored specs (the service's resolver reads the store; see test/service/branching.test.ts).
import { describe, expect, it } from 'vitest';
import { parseCoordinate, versionAccepts } from '../../src/calc/coordinates.js';
import type { JsonObject } from '../../src/calc/json.js';
import { materialiseTemplate, specDigest, type TemplateResolver } from '../../src/calc/templates.js';

describe('coordinates', () => {
  it('refuses what the reference product refuses', () => {
    for (const bad of [
      '',
      '1name',
      'a//b',
      'a/b/c',
      'a/b@1.0',
      'a/b@@1.0.0',
      'a/b@1.0.0.0',
      'a b',
      '-lead/name',
      'a/b@sha256:xyz',
      'a/b@notaversion',
    ])
      expect(parseCoordinate(bad), bad).toBeUndefined();
  });

  it('reads identity, owner and version spec', () => {
    expect(parseCoordinate('acme.fin/quote@^1.4.0')).toMatchObject({
      identity: 'acme.fin/quote',
      namespace: 'acme.fin',
      name: 'quote',
      version: { kind: 'range', operator: '^', version: '1.4.0' },
    });
    expect(parseCoordinate('base')).toMatchObject({ identity: 'base', version: { kind: 'any' } });
    expect(parseCoordinate('base')!.namespace).toBeUndefined();
    expect(parseCoordinate(`a/b@sha256:${'0'.repeat(64)}`)!.version.kind).toBe('digest');
    expect(parseCoordinate('a/b@1.2.3-rc.1')!.version).toEqual({ kind: 'exact', version: '1.2.3-rc.1' });
  });

  it('matches versions as the reference ranges do', () => {
    const accepts = (ref: string, v: string): boolean => versionAccepts(parseCoordinate(ref)!.version, v, '');
    expect(accepts('x@^1.4.0', '1.4.0')).toBe(true);
    expect(accepts('x@^1.4.0', '1.9.9')).toBe(true);
    expect(accepts('x@^1.4.0', '2.0.0')).toBe(false);
    expect(accepts('x@^1.4.0', '1.3.0')).toBe(false);
    expect(accepts('x@~1.2.3', '1.2.9')).toBe(true);
    expect(accepts('x@~1.2.3', '1.3.0')).toBe(false);
    expect(accepts('x@>=2.0.0', '2.0.1')).toBe(true);
    expect(accepts('x@<2.0.0', '2.0.0')).toBe(false);
    expect(accepts('x@=1.0.0', '1.0.0')).toBe(true);
    expect(accepts('x@1.0.0', '1.0.1')).toBe(false);
    expect(accepts('x', 'anything')).toBe(true);
    const d = `sha256:${'a'.repeat(64)}`;
    expect(versionAccepts(parseCoordinate(`x@${d}`)!.version, '1.0.0', d)).toBe(true);
    expect(versionAccepts(parseCoordinate(`x@${d}`)!.version, '1.0.0', `sha256:${'b'.repeat(64)}`)).toBe(
      false,
    );
  });
});

/** A resolver over stored specs by id (their own `version`), repository `local`. */
function storeOf(...specs: JsonObject[]): TemplateResolver {
  const byId = new Map(specs.map((s) => [s.id as string, s]));
  return (c) => {
    const spec = byId.get(c.identity);
    if (!spec) return Promise.resolve(undefined);
    const version = spec.version as string;
    return Promise.resolve(
      versionAccepts(c.version, version, specDigest(spec))
        ? { id: c.identity, version, spec, repo: 'local' }
        : undefined,
    );
  };
}

const base: JsonObject = {
  id: 'base',
  version: '1.0.0',
  schema: { type: 'object', properties: { n: { type: 'number' } } },
  constants: { rate: 0.1, fee: 2 },
  derivations: [
    { path: '$.doubled', expr: 'n * 2' },
    { path: '$.kept', expr: 'n + 1' },
  ],
  constraints: [{ id: 'pos', expr: 'n >= 0', message: 'n must not be negative' }],
  tests: [{ given: { n: 1 }, expect: { doubled: 2 } }],
  lineage: [],
};

describe('materialising a branch', () => {
  it('merges by the table: keyed sections, constants, an empty schema inherited, lineage pinned', async () => {
    const branch: JsonObject = {
      id: 'branch',
      version: '2.0.0',
      schema: {},
      template: { ref: 'base' },
      constants: { fee: 5 },
      derivations: [
        { path: '$.tripled', expr: 'n * 3' },
        { path: '$.doubled', expr: 'n * 20' },
      ],
    };
    const out = await materialiseTemplate(branch, storeOf(base));
    expect(out.id).toBe('branch');
    expect(out.version).toBe('2.0.0');
    expect(out.template).toBeUndefined();
    expect(out.schema).toEqual(base.schema);
    // base order kept, the overlay's doubled in its place, the new one appended
    expect(out.derivations).toEqual([
      { path: '$.doubled', expr: 'n * 20' },
      { path: '$.kept', expr: 'n + 1' },
      { path: '$.tripled', expr: 'n * 3' },
    ]);
    expect(out.constants).toEqual({ rate: 0.1, fee: 5 });
    expect(out.constraints).toEqual(base.constraints);
    expect(out.tests).toEqual(base.tests); // the branch has none of its own
    expect(out.lineage).toEqual([{ ref: 'base', version: '1.0.0', digest: specDigest(base), repo: 'local' }]);
    expect((out.lineage as JsonObject[])[0]!.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('gives inherited effects their origin, keeps the nearest one, and leaves the branch’s own alone', async () => {
    const acme: JsonObject = {
      ...base,
      id: 'acme/base',
      effects: [{ id: 'exfil', kind: 'server', trigger: 'n', request: { url: 'https://sink.example/x' } }],
    };
    const mid: JsonObject = {
      id: 'acme/mid',
      version: '1.1.0',
      schema: {},
      template: { ref: 'acme/base@^1.0.0' },
    };
    const midStored = await materialiseTemplate(mid, storeOf(acme));
    expect((midStored.effects as JsonObject[])[0]!.origin).toEqual({
      fromRef: 'acme/base',
      fromOwner: 'acme',
    });
    const quote: JsonObject = {
      id: 'globex/quote',
      version: '1.0.0',
      schema: {},
      template: { ref: 'acme/mid' },
      effects: [{ id: 'mine', kind: 'server', trigger: 'n', request: { url: 'https://globex.example/y' } }],
    };
    const out = await materialiseTemplate(quote, storeOf(acme, midStored));
    const effects = out.effects as JsonObject[];
    // the nearest ancestor that defines exfil is acme/base (mid only inherited it)
    expect(effects.find((e) => e.id === 'exfil')!.origin).toEqual({
      fromRef: 'acme/base',
      fromOwner: 'acme',
    });
    expect(effects.find((e) => e.id === 'mine')!.origin).toBeUndefined();
    expect((out.lineage as JsonObject[]).map((e) => e.ref)).toEqual(['acme/mid', 'acme/base']);
    expect((out.lineage as JsonObject[])[0]).toMatchObject({
      version: '1.1.0',
      owner: 'acme',
      repo: 'local',
    });
  });

  it('pins a range to the stored version, and refuses one the stored version does not satisfy', async () => {
    const out = await materialiseTemplate(
      { id: 'b', schema: {}, template: { ref: 'base@^1.0.0' } },
      storeOf(base),
    );
    expect((out.lineage as JsonObject[])[0]!.version).toBe('1.0.0');
    await expect(
      materialiseTemplate({ id: 'b', schema: {}, template: { ref: 'base@^2.0.0' } }, storeOf(base)),
    ).rejects.toMatchObject({ code: 'TEMPLATE_UNRESOLVED', details: { ref: 'base@^2.0.0' } });
    await expect(
      materialiseTemplate({ id: 'b', template: { ref: 'ghost' } }, storeOf(base)),
    ).rejects.toMatchObject({
      code: 'TEMPLATE_UNRESOLVED',
    });
  });

  it('refuses a cycle: the branch naming itself, or an ancestor that came from the branch', async () => {
    await expect(materialiseTemplate({ id: 'a', template: { ref: 'a' } }, storeOf())).rejects.toMatchObject({
      code: 'TEMPLATE_CYCLE',
    });
    // `a` was deleted and is created again from `b`, whose lineage holds the old `a`
    const b: JsonObject = {
      ...base,
      id: 'b',
      lineage: [{ ref: 'a', version: '1.0.0', digest: 'sha256:x', repo: 'local' }],
    };
    await expect(materialiseTemplate({ id: 'a', template: { ref: 'b' } }, storeOf(b))).rejects.toMatchObject({
      code: 'TEMPLATE_CYCLE',
      details: { chain: ['a', 'b', 'a'] },
    });
  });

  it('returns a spec without a template as the same object', async () => {
    expect(await materialiseTemplate(base, storeOf())).toBe(base);
  });

  it('concatenates libraries base first, adding an inherited layer once', async () => {
    const lib: JsonObject = { ...base, id: 'lib', library: '$half := function($x) { $x / 2 }; ["half"]' };
    const child = await materialiseTemplate(
      {
        id: 'child',
        version: '1.0.0',
        schema: {},
        template: { ref: 'lib' },
        library: '$third := function($x) { $x / 3 }; ["third"]',
      },
      storeOf(lib),
    );
    expect(child.library).toEqual({
      layers: [{ define: '$half := function($x) { $x / 2 }; ["half"]', ref: 'lib', version: '1.0.0' }],
      define: '$third := function($x) { $x / 3 }; ["third"]',
    });
    // a grandchild meets lib's layer through child: it is listed once
    const grand = await materialiseTemplate(
      {
        id: 'grand',
        schema: {},
        template: { ref: 'child' },
        library: { layers: [((child.library as JsonObject).layers as JsonObject[])[0]!] },
      },
      storeOf(lib, child),
    );
    const refs = ((grand.library as JsonObject).layers as JsonObject[]).map((l) => l.ref);
    expect(refs).toEqual(['lib', 'child']);
  });
});
