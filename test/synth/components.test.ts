/** The Free catalog and its components: names, aliases, defaults, errors, and sane draws. */
import { describe, expect, it } from 'vitest';
import { FREE_CATALOG } from '../../src/synth/components/catalog.js';
import { listComponents } from '../../src/synth/components/registry.js';
import { componentsJson, componentsMarkdown } from '../../src/synth/components/render.js';
import type { SynthError } from '../../src/synth/errors.js';
import { grind, rows, xmlModel } from './helpers.js';

function load(nodes: string, root = 'N', edition: 'full' | 'free' = 'full'): () => string {
  return () => grind(xmlModel(root, nodes), 1, 1, 'csv', false, { edition });
}

describe('catalog', () => {
  it('lists 35 Free generators and 10 Free filters, every one implemented', () => {
    expect(FREE_CATALOG.filter((d) => d.category === 'generator')).toHaveLength(35);
    expect(FREE_CATALOG.filter((d) => d.category === 'filter')).toHaveLength(10);
    expect(
      listComponents()
        .filter((c) => c.descriptor.edition === 'Free')
        .map((c) => c.descriptor.name)
        .sort(),
    ).toEqual(FREE_CATALOG.map((d) => d.name).sort());
  });

  it('renders the §9.2 descriptor JSON and a Markdown table', () => {
    const json = JSON.parse(componentsJson('free'));
    expect(json.edition).toBe('Free');
    expect(json.totalCount).toBe(45);
    const full = JSON.parse(componentsJson());
    expect(full.edition).toBe('Pro');
    expect(full.totalCount).toBe(listComponents().length);
    expect(full.components.find((c: { name: string }) => c.name === 'SSN').edition).toBe('Pro');
    const binomial = json.components.find((c: { name: string }) => c.name === 'Binomial');
    expect(binomial.parameters.map((p: { name: string }) => p.name)).toEqual(['n', 'p', 'mode']);
    expect(binomial.parameters[2]).toMatchObject({
      defaultValue: 'standard',
      aliases: ['algorithm'],
      allowedValues: ['standard', 'fast'],
      order: 2,
    });
    expect(componentsMarkdown()).toMatch(
      /\| Poisson \| none \| lambda\[rate,mean\]=1\.0; mode\[algorithm\]=standard \{standard,large-lambda\}/,
    );
  });
});

describe('attributes', () => {
  it('accepts aliases case-insensitively', () => {
    const a = grind(xmlModel('N', '<Normal name="N" MEAN="5" StdDev="2"/>'), 3, 5);
    const b = grind(xmlModel('N', '<Normal name="N" mean="5" sigma="2"/>'), 3, 5);
    expect(a).toBe(b);
  });

  it('lets the main name win over an alias, whichever comes first', () => {
    const a = grind(xmlModel('N', '<Normal name="N" sd="100" sigma="2"/>'), 3, 5);
    const b = grind(xmlModel('N', '<Normal name="N" sigma="2" sd="100"/>'), 3, 5);
    const c = grind(xmlModel('N', '<Normal name="N" sigma="2"/>'), 3, 5);
    expect(a).toBe(c);
    expect(b).toBe(c);
  });

  it('rejects an unknown attribute naming the nearest valid one', () => {
    expect(load('<Normal name="N" sigmma="2"/>')).toThrow(
      /unknown attribute "sigmma" \(did you mean "sigma"\?\)/,
    );
  });

  it('rejects an unknown per-input attribute', () => {
    expect(load('<ToInteger name="N"><input name="U" weight="2"/></ToInteger><Uniform name="U"/>')).toThrow(
      /unknown attribute "weight"/,
    );
  });

  it('rejects values outside the allowed set, missing required ones and non-numbers', () => {
    expect(load('<Binomial name="N" mode="quick"/>')).toThrow(/not one of standard, fast/);
    expect(load('<Categorical name="N"/>')).toThrow(/missing required attribute "weights"/);
    expect(load('<Uniform name="N" min="abc"/>')).toThrow(/"abc" is not a number/);
  });

  it('gates Pro components, string constants and large models behind the Pro edition (--edition free)', () => {
    const licence = (f: () => string): string => {
      try {
        f();
      } catch (err) {
        return (err as SynthError).code;
      }
      return 'none';
    };
    expect(licence(load('<SSN name="N"/>', 'N', 'free'))).toBe('SYNTH_LICENSE');
    expect(licence(load('<Constant name="N" value="x" type="string"/>', 'N', 'free'))).toBe('SYNTH_LICENSE');
    const many = Array.from({ length: 21 }, (_, i) => `<Uniform name="N${i}"/>`).join('');
    expect(licence(() => grind(xmlModel('N0', many), 1, 1, 'csv', false, { edition: 'free' }))).toBe(
      'SYNTH_LICENSE',
    );
    // The full edition has no node limit and prints string constants verbatim.
    expect(grind(xmlModel('N0', many), 1, 1)).toMatch(/^0\.\d+\n$/);
    expect(load('<Constant name="N" value="x,y" type="string"/>')()).toBe('"x,y"\n');
    // ... and runs the Pro components.
    expect(load('<Constant name="N" value="x" type="string"/>')()).toBe('x\n');
    expect(load('<SSN name="N"/>')()).toMatch(/^\d{3}-\d{2}-\d{4}\n$/);
    expect(load('<Unifrom name="N"/>')).toThrow(
      /unknown component type "Unifrom" \("N"\) \(did you mean "Uniform"\?\)/,
    );
  });
});

function column(nodes: string, n = 4000, seed = 11): number[] {
  return rows(grind(xmlModel('N', nodes), seed, n)).map((r) => r[0]!);
}

function mean(xs: number[]): number {
  return xs.reduce((s, v) => s + v, 0) / xs.length;
}

describe('generator draws', () => {
  it.each([
    ['<Bernoulli name="N" p="0.3"/>', 0.3, 0.03],
    ['<Beta name="N" alpha="2" beta="6"/>', 0.25, 0.02],
    ['<Binomial name="N" n="10" p="0.4"/>', 4, 0.15],
    ['<Binomial name="N" n="10" p="0.4" mode="fast"/>', 4, 0.15],
    ['<ChiSquared name="N" df="3"/>', 3, 0.2],
    ['<Exponential name="N" rate="2"/>', 0.5, 0.04],
    ['<FDistribution name="N" d1="5" d2="10"/>', 1.25, 0.15],
    ['<Gamma name="N" shape="3" scale="2"/>', 6, 0.3],
    ['<Gamma name="N" shape="0.5" rate="2"/>', 0.25, 0.03],
    ['<Geometric name="N" p="0.25"/>', 4, 0.3],
    ['<Gumbel name="N" mu="1" beta="2"/>', 1 + 2 * 0.5772, 0.15],
    ['<Hypergeometric name="N" population="50" successStates="20" draws="10"/>', 4, 0.15],
    ['<InverseGaussian name="N" mu="2" lambda="4"/>', 2, 0.1],
    ['<Laplace name="N" mu="3" b="1"/>', 3, 0.1],
    ['<Logistic name="N" mu="-1" s="0.5"/>', -1, 0.06],
    ['<Lognormal name="N" mu="0" sigma="0.25"/>', Math.exp(0.03125), 0.03],
    ['<NegativeBinomial name="N" r="3" p="0.5"/>', 3, 0.25],
    ['<Normal name="N" mean="10" sigma="3"/>', 10, 0.2],
    ['<Pareto name="N" scale="1" shape="4"/>', 4 / 3, 0.05],
    ['<Poisson name="N" lambda="6"/>', 6, 0.15],
    ['<Poisson name="N" lambda="40" mode="large-lambda"/>', 40, 0.4],
    ['<Skellam name="N" lambda1="5" lambda2="2"/>', 3, 0.2],
    ['<StudentT name="N" df="8"/>', 0, 0.06],
    ['<Triangular name="N" min="0" mode="1" max="5"/>', 2, 0.06],
    ['<Uniform name="N" min="2" max="4"/>', 3, 0.04],
    ['<VonMises name="N" mu="1" kappa="4"/>', 1, 0.05],
    ['<Weibull name="N" shape="1" scale="2"/>', 2, 0.12],
    ['<Zipf name="N" n="3" s="1"/>', (1 + 1 + 1) / (1 + 1 / 2 + 1 / 3), 0.05],
    ['<Empirical name="N" values="1:1, 5:3"/>', 4, 0.1],
    ['<Categorical name="N" weights="1,1,2"/>', 1.25, 0.06],
  ])('%s has mean near %d', (node, expected, tolerance) => {
    expect(Math.abs(mean(column(node)) - expected)).toBeLessThan(tolerance);
  });

  it('keeps supports: Beta in (0,1), Poisson and Binomial non-negative ints, Zipf ranks 1..n', () => {
    expect(column('<Beta name="N" alpha="0.5" beta="0.5"/>').every((v) => v > 0 && v < 1)).toBe(true);
    expect(column('<Poisson name="N" lambda="2"/>').every((v) => Number.isInteger(v) && v >= 0)).toBe(true);
    expect(column('<Zipf name="N" n="4"/>').every((v) => [1, 2, 3, 4].includes(v))).toBe(true);
  });

  it('emits vectors: Dirichlet sums to 1, Multinomial counts sum to trials, Wishart is symmetric', () => {
    for (const r of rows(grind(xmlModel('N', '<Dirichlet name="N" alpha="1,2,3"/>'), 5, 200))) {
      expect(r.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 12);
    }
    for (const r of rows(
      grind(xmlModel('N', '<Multinomial name="N" weights="1,1,1" trials="7"/>'), 5, 200),
    )) {
      expect(r.reduce((s, v) => s + v, 0)).toBe(7);
    }
    for (const tag of ['Wishart', 'InverseWishart']) {
      for (const r of rows(grind(xmlModel('N', `<${tag} name="N" df="5" scale="2,0.5,0.5,1"/>`), 5, 50))) {
        expect(r).toHaveLength(4);
        expect(r[1]).toBeCloseTo(r[2]!, 9);
        expect(r[0]! > 0 && r[3]! > 0).toBe(true);
      }
    }
  });

  it('MVN with a full covariance reproduces the correlation', () => {
    const data = rows(
      grind(xmlModel('N', '<MultivariateNormal name="N" means="0,0" covariance="1,0.8;0.8,1"/>'), 9, 5000),
    );
    const cov = mean(data.map((r) => r[0]! * r[1]!));
    expect(Math.abs(cov - 0.8)).toBeLessThan(0.05);
  });

  it('Constant, Sequence and Polynomial are deterministic', () => {
    expect(grind(xmlModel('N', '<Constant name="N" value="3" type="int"/>'), 1, 2)).toBe('3\n3\n');
    expect(grind(xmlModel('N', '<Constant name="N" value="3"/>'), 1, 1)).toBe('3.0\n');
    expect(grind(xmlModel('N', '<Sequence name="N" start="1" step="0.5"/>'), 1, 3)).toBe('1.0\n1.5\n2.0\n');
    expect(
      grind(
        xmlModel('N', '<Polynomial name="N" coefficients="1,2,3" xMode="sequence" x="0" xStep="1"/>'),
        1,
        3,
      ),
    ).toBe('1.0\n6.0\n17.0\n');
  });
});
