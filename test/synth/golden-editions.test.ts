/**
 * Which components each edition offers, against the edition of every component in the synth spec's
 * catalogue (transcribed into test/golden/editions.json): a Pro component turning Free, a Free one
 * turning Pro, or one missing from the build fails here, both in the catalogue lists and at load.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { componentsJson } from '../../src/synth/components/render.js';
import { checkLoad } from '../../src/synth/engine/loader.js';
import { SynthError } from '../../src/synth/errors.js';
import { parseModel } from '../../src/synth/model/io.js';

const GOLDEN = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'golden', 'editions.json'), 'utf8'),
) as {
  free: string[];
  pro: string[];
};

const names = (edition: 'free' | 'full'): string[] =>
  (JSON.parse(componentsJson(edition)) as { components: { name: string }[] }).components
    .map((c) => c.name)
    .sort();

/** The error code checkLoad raises for a one-node model of this type, or 'loaded'. */
function loadCode(type: string, edition: 'free' | 'full'): string {
  try {
    checkLoad(parseModel(`<dataset><root node="N"/><nodes><${type} name="N"/></nodes></dataset>`), edition);
    return 'loaded';
  } catch (err) {
    if (err instanceof SynthError) return err.code;
    throw err;
  }
}

/** Components of ours, not in the vendor's catalogue: full edition only (docs/synth.md). */
const OURS = ['Missing'];

describe('component editions', () => {
  it('the Free edition lists exactly the Free components, the full edition adds exactly the Pro ones and ours', () => {
    expect(names('free')).toEqual(GOLDEN.free);
    expect(names('full').filter((n) => !GOLDEN.free.includes(n))).toEqual([...GOLDEN.pro, ...OURS].sort());
  });

  it.each([...GOLDEN.pro, ...OURS])(
    '%s: refused under Free (SYNTH_LICENSE), not for the licence under full',
    (type) => {
      expect(loadCode(type, 'free')).toBe('SYNTH_LICENSE');
      expect(loadCode(type, 'full')).not.toBe('SYNTH_LICENSE');
    },
  );

  it.each(GOLDEN.free)('%s: loads under Free', (type) => {
    expect(loadCode(type, 'free')).not.toBe('SYNTH_LICENSE');
  });
});
