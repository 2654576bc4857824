/**
 * Composition (synth-spec §1.4–1.6): Import relative to the importing file, prefixes, declare
 * substitution and overrides, cycles, libraries that run standalone, collaborate links, and the
 * --edition free gates. Real files in a temporary folder, read through the real node:fs port.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFromDirectory } from '../../src/cli/synth-files.js';
import { CLOSED_ALLOWLISTS } from '../../src/synth/access/allowlists.js';
import { formatReplayReport, replayCorpus } from '../../src/synth/conformance/replay.js';
import type { LoadOptions } from '../../src/synth/engine/prepare.js';
import { prepareModel } from '../../src/synth/engine/prepare.js';
import { SynthError } from '../../src/synth/errors.js';
import { parseModel } from '../../src/synth/model/io.js';
import { validateModel } from '../../src/synth/validate/validator.js';
import { fileLoadOptions, nodeFilePort } from '../../src/synth-io/index.js';
import { grind, scratchDir, xmlModel } from './helpers.js';

const { dir: work, put } = scratchDir('mw-import-');

function options(path: string, extra: Partial<LoadOptions> = {}): LoadOptions {
  return {
    location: nodeFilePort.realpath(path),
    cwd: dirname(nodeFilePort.realpath(path)!),
    allowlists: CLOSED_ALLOWLISTS,
    ports: { files: nodeFilePort },
    ...extra,
  };
}

function run(path: string, seed = 42, count = 5, extra: Partial<LoadOptions> = {}): string {
  return grind(readFileSync(path, 'utf8'), seed, count, 'csv', false, options(path, extra));
}

function loadError(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    if (err instanceof SynthError) return `${err.code}: ${err.message}`;
    throw err;
  }
  return 'no error';
}

const DIE_LIB = xmlModel(
  'D6',
  '<Uniform name="Die" min="1" max="7"/><ToInteger name="D6"><input name="Die"/></ToInteger>',
);

describe('Import', () => {
  it('inlines a library: same draws as writing its nodes in place', () => {
    put('dice/d6-lib.xml', DIE_LIB);
    const importer = put(
      'dice/two.xml',
      xmlModel(
        'Both',
        '<Append name="Both"><input name="A"/><input name="B"/></Append>' +
          '<Import name="A" file="d6-lib.xml"/><Import name="B" file="d6-lib.xml" prefix="second"/>',
      ),
    );
    const inline = xmlModel(
      'Both',
      '<Append name="Both"><input name="A"/><input name="B"/></Append>' +
        '<Uniform name="DA" min="1" max="7"/><ToInteger name="A"><input name="DA"/></ToInteger>' +
        '<Uniform name="DB" min="1" max="7"/><ToInteger name="B"><input name="DB"/></ToInteger>',
    );
    expect(run(importer, 7, 20)).toBe(grind(inline, 7, 20));
    const names = prepareModel(parseModel(readFileSync(importer, 'utf8')), options(importer)).model.nodes.map(
      (n) => n.name,
    );
    // Prefix defaults to the Import's name; "." separates prefix and library node name.
    expect(names.sort()).toEqual(['A.D6', 'A.Die', 'Both', 'second.D6', 'second.Die']);
    // The library also runs on its own.
    expect(run(join(work, 'dice/d6-lib.xml'), 7, 3)).toMatch(/^\d\n\d\n\d\n$/);
  });

  it('resolves nested imports relative to their own file, across syntaxes (.sgm importing .xml)', () => {
    put('nest/lib/inner.xml', DIE_LIB);
    put('nest/lib/middle.sgm', 'dataset.root = M\nM = Import("inner.xml", prefix="in")\n');
    const top = put('nest/top.sgm', 'dataset.root = T\nT = Import("lib/middle.sgm")\n');
    expect(run(top, 3, 10)).toBe(grind(DIE_LIB, 3, 10));
    expect(prepareModel(parseModel(readFileSync(top, 'utf8')), options(top)).model.root).toBe('T.in.D6');
  });

  it('refuses import cycles, also through several files', () => {
    const self = put('cycle/self.xml', xmlModel('S', '<Import name="S" file="self.xml"/>'));
    expect(loadError(() => run(self))).toMatch(
      /SYNTH_LOAD: Import "S": import cycle: .*self\.xml -> .*self\.xml/,
    );
    put('cycle/a.xml', xmlModel('A', '<Import name="A" file="b.xml"/>'));
    put('cycle/b.xml', xmlModel('B', '<Import name="B" file="a.xml"/>'));
    expect(loadError(() => run(join(work, 'cycle/a.xml')))).toMatch(
      /import cycle: .*a\.xml -> .*b\.xml -> .*a\.xml/,
    );
  });

  it('refuses an Import whose relative path climbs out of the model folder and working directory', () => {
    put('outside.xml', DIE_LIB);
    const inner = put('jail/model.xml', xmlModel('X', '<Import name="X" file="../outside.xml"/>'));
    expect(loadError(() => run(inner))).toMatch(
      /relative path "\.\.\/outside\.xml" climbs out .*MODELWORKS_SYNTH_FLATFILE_PATH_ALLOWLIST/,
    );
    // Allowed when the working directory covers it (e.g. running from the corpus root).
    expect(run(inner, 1, 2, { cwd: work })).toMatch(/^\d\n\d\n$/);
  });

  it('refuses imports of text models without a file port, with a clear message', () => {
    const text = xmlModel('X', '<Import name="X" file="lib.xml"/>');
    expect(loadError(() => grind(text, 1, 1))).toMatch(/SYNTH_LOAD: Import: reading files needs a file port/);
  });
});

describe('declare', () => {
  const LIB =
    '<dataset><root node="Out"/><definitions><declare name="p" value="0.25"/><declare name="w" value="3"/></definitions>' +
    '<nodes><Mix name="Out"><input name="One" weight="$w"/><input name="Two"/></Mix>' +
    '<Binomial name="One" p="$p"/><Constant name="Two" value="7"/></nodes></dataset>';

  it('substitutes whole-value $names in attributes and input attributes; libraries run standalone', () => {
    const lib = put('decl/lib.xml', LIB);
    const inline = LIB.replace('$w', '3')
      .replace('$p', '0.25')
      .replace(/<definitions>.*<\/definitions>/, '');
    expect(run(lib, 5, 30)).toBe(grind(inline, 5, 30));
  });

  it('takes overrides from Import attributes, passing $outer values down one level at a time', () => {
    put('decl/lib.xml', LIB);
    const top = put(
      'decl/top.xml',
      '<dataset><root node="I"/><definitions><declare name="outerP" value="0.9"/></definitions>' +
        '<nodes><Import name="I" file="lib.xml" p="$outerP" w="1"/></nodes></dataset>',
    );
    const inline = LIB.replace('$w', '1')
      .replace('$p', '0.9')
      .replace(/<definitions>.*<\/definitions>/, '');
    expect(run(top, 5, 30)).toBe(grind(inline, 5, 30));
  });

  it('fails the load for unknown overrides, unresolved $names, partial text and $-valued declares', () => {
    put('decl/lib.xml', LIB);
    const unknown = put('decl/unknown.xml', xmlModel('I', '<Import name="I" file="lib.xml" q="1"/>'));
    expect(loadError(() => run(unknown))).toMatch(
      /sets "q", but the library declares no such parameter \(declared: p, w\)/,
    );
    const unresolved = put('decl/unresolved.xml', xmlModel('N', '<Normal name="N" mean="$nope"/>'));
    expect(loadError(() => run(unresolved))).toMatch(/"\$nope" names no declared parameter/);
    const dollar = put(
      'decl/dollar.xml',
      '<dataset><root node="N"/><definitions><declare name="a" value="$b"/></definitions><nodes><Normal name="N"/></nodes></dataset>',
    );
    expect(loadError(() => run(dollar))).toMatch(/declared values cannot be \$references/);
    // Partial substitution is not performed: "x$p" stays text and fails as a number.
    const partial = put(
      'decl/partial.xml',
      '<dataset><root node="N"/><definitions><declare name="m" value="1"/></definitions><nodes><Normal name="N" mean="1$m"/></nodes></dataset>',
    );
    expect(loadError(() => run(partial))).toMatch(/"1\$m" is not a number/);
  });
});

describe('editions', () => {
  it('--edition free refuses Import, declare and collaborate with a licence error; full accepts them', () => {
    put('ed/lib.xml', DIE_LIB);
    const imp = put('ed/imp.xml', xmlModel('I', '<Import name="I" file="lib.xml"/>'));
    expect(loadError(() => run(imp, 1, 1, { edition: 'free' }))).toMatch(
      /SYNTH_LICENSE: Import \("I"\) needs the Pro edition/,
    );
    expect(run(imp, 1, 1)).toMatch(/^\d\n$/);
    const decl =
      '<dataset><root node="N"/><definitions><declare name="m" value="1"/></definitions><nodes><Normal name="N" mean="$m"/></nodes></dataset>';
    expect(loadError(() => grind(decl, 1, 1, 'csv', false, { edition: 'free' }))).toMatch(
      /SYNTH_LICENSE: <declare>/,
    );
    expect(grind(decl, 1, 1)).toBe(grind(xmlModel('N', '<Normal name="N" mean="1"/>'), 1, 1));
    const collab = xmlModel('N', '<Normal name="N" collaborate.peer="M"/><Normal name="M"/>');
    expect(loadError(() => grind(collab, 1, 1, 'csv', false, { edition: 'free' }))).toMatch(
      /SYNTH_LICENSE: collaborate/,
    );
  });

  it('reports collaborate targets that are missing or cannot answer reads', () => {
    expect(loadError(() => grind(xmlModel('N', '<Normal name="N" collaborate.peer="Nope"/>'), 1, 1))).toMatch(
      /collaborate\.peer="Nope" names no node/,
    );
    const r = validateModel(
      parseModel(xmlModel('N', '<Normal name="N" collaborate.peer="M"/><Normal name="M"/>')),
    );
    expect(r.valid).toBe(false);
    expect(r.failures[0]?.message).toMatch(/Normal "M" cannot answer collaborate reads/);
  });

  it('fileLoadOptions follows the model file and closes everything by default', () => {
    const path = put('ed/plain.xml', xmlModel('N', '<Normal name="N"/>'));
    const o = fileLoadOptions(path, CLOSED_ALLOWLISTS);
    expect(o.location).toBe(nodeFilePort.realpath(path));
    expect(o.edition).toBe('full');
  });
});

const SHARED = join(import.meta.dirname, '..', '..', '..', 'shared', 'conformance', 'synth-examples');

describe.skipIf(!existsSync(SHARED))('shared corpus: Import and declare models', () => {
  it('replays import-demo, declare-lib, const-lib, d6-lib and site-arm-lib (.xml and .sgm) byte for byte', () => {
    const cases = replayCorpus(corpusFromDirectory(SHARED));
    const wanted = [
      'pro/import-demo.xml',
      'pro/declare-lib.xml',
      'pro/const-lib.xml',
      'pro/d6-lib.xml',
      'pro/health/site-arm-lib.xml',
      'compact-prototype/site-arm-lib.sgm',
    ];
    const got = cases.filter((c) => wanted.includes(c.model) && c.output !== 'analysis.*');
    expect(got.map((c) => [c.model, c.status]).sort(), formatReplayReport(got)).toEqual(
      wanted.map((m) => [m, 'passed']).sort(),
    );
  });
});
