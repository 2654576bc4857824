/**
 * Every draw pinned inside the repository (issue 40, point 4): for each registered component and
 * each of its parameter families (test/synth/golden-draws/families.ts), the first rows for two
 * seeds must equal the committed vectors, as CSV text and as raw values (double bits). Runs
 * without ../shared and without a JDK. A deliberate change of draws is made by regenerating the
 * vectors (`npx tsx scripts/golden-draws.ts --overwrite <Component>`, docs/synth-draws.md).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeGoldenDraws } from '../../scripts/golden-draws.js';
import { listComponents } from '../../src/synth/components/registry.js';
import { FAMILIES } from './golden-draws/families.js';
import type { ComponentVectors, GoldenEnvironment } from './golden-draws/harness.js';
import {
  drawFamily,
  firstDifference,
  openEnvironment,
  ROWS,
  SEEDS,
  VECTOR_DIR,
} from './golden-draws/harness.js';

const REGENERATE = 'npx tsx scripts/golden-draws.ts';
const COMPONENTS = listComponents().map((c) => c.descriptor.name);

function vectorsOf(component: string): ComponentVectors | undefined {
  const file = join(VECTOR_DIR, `${component}.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ComponentVectors) : undefined;
}

let env: GoldenEnvironment;
beforeAll(async () => {
  env = await openEnvironment();
});
afterAll(async () => {
  await env.close();
});

describe('golden draws: coverage', () => {
  it('every registered component has at least one family and a vector file', () => {
    expect(COMPONENTS.length).toBeGreaterThanOrEqual(84);
    const withoutFamily = COMPONENTS.filter((c) => !FAMILIES.some((f) => f.component === c));
    expect(withoutFamily, `components without a family in golden-draws/families.ts`).toEqual([]);
    const withoutVectors = COMPONENTS.filter((c) => vectorsOf(c) === undefined);
    expect(withoutVectors, `components without vectors (run ${REGENERATE})`).toEqual([]);
  });

  it('no family or vector file names a component the registry does not have', () => {
    expect(FAMILIES.filter((f) => !COMPONENTS.includes(f.component)).map((f) => f.component)).toEqual([]);
    const files = readdirSync(VECTOR_DIR).map((f) => f.replace(/\.json$/, ''));
    expect(files.filter((f) => !COMPONENTS.includes(f))).toEqual([]);
  });

  it("each family's root node is the component it pins, and family names are unique", () => {
    for (const f of FAMILIES)
      expect(f.nodes, `${f.component}/${f.family}`).toContain(`<${f.component} name="X"`);
    const keys = FAMILIES.map((f) => `${f.component}/${f.family}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it.each(COMPONENTS)(
    '%s: the vector file holds exactly the current families, seeds and rows',
    (component) => {
      const stored = vectorsOf(component);
      expect(stored, `run ${REGENERATE}`).toBeDefined();
      const families = FAMILIES.filter((f) => f.component === component);
      expect(
        stored!.families.map((f) => [f.family, f.nodes]),
        `families.ts and vectors/${component}.json differ: regenerate with ${REGENERATE} --overwrite ${component}`,
      ).toEqual(families.map((f) => [f.family, f.nodes]));
      for (const f of stored!.families) {
        expect(f.seeds.map((s) => s.seed)).toEqual(SEEDS);
        for (const s of f.seeds) {
          expect(s.text).toHaveLength(ROWS);
          expect(s.raw).toHaveLength(ROWS);
        }
      }
    },
  );
});

describe.each(COMPONENTS)('golden draws: %s', (component) => {
  const families = FAMILIES.filter((f) => f.component === component);
  it.each(families.map((f) => [f.family, f] as const))(
    'family %s: first draws for every pinned seed',
    async (_n, f) => {
      const stored = vectorsOf(component)?.families.find((v) => v.family === f.family);
      expect(stored, `no vectors for ${component} family "${f.family}" (run ${REGENERATE})`).toBeDefined();
      for (const expected of stored!.seeds) {
        const actual = await drawFamily(f, expected.seed, env, expected.text.length);
        const difference = firstDifference(expected, actual);
        if (difference !== undefined)
          expect.fail(`${component}, family "${f.family}", seed ${expected.seed}: ${difference}`);
      }
    },
  );
});

describe('scripts/golden-draws.ts', () => {
  it('writes the committed bytes, and replaces an existing file only with overwrite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mw-golden-write-'));
    try {
      const file = join(dir, 'Weibull.json');
      expect(await writeGoldenDraws({ dir, only: ['weibull'] })).toEqual({ written: ['Weibull'], stale: [] });
      const committed = readFileSync(join(VECTOR_DIR, 'Weibull.json'), 'utf8');
      expect(readFileSync(file, 'utf8')).toBe(committed);
      writeFileSync(file, 'edited by hand\n');
      expect(await writeGoldenDraws({ dir, only: ['Weibull'] })).toEqual({ written: [], stale: ['Weibull'] });
      expect(readFileSync(file, 'utf8')).toBe('edited by hand\n');
      expect(await writeGoldenDraws({ dir, only: ['Weibull'], overwrite: true })).toEqual({
        written: ['Weibull'],
        stale: [],
      });
      expect(readFileSync(file, 'utf8')).toBe(committed);
      await expect(writeGoldenDraws({ dir, only: ['NoSuchThing'] })).rejects.toThrow(
        /not a registered component/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
