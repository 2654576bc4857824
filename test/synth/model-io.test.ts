/** Model IO (§1): the three syntaxes describe the same model, round trips lose nothing. */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SynthError } from '../../src/synth/errors.js';
import { formatForPath, parseModel, sniffFormat, writeModel } from '../../src/synth/model/io.js';
import type { SynthModel } from '../../src/synth/model/types.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'synth');

const XML = `<?xml version="1.0"?>
<!-- a comment -->
<dataset seed="7" analysis.version="1" analysis.summary="a &amp; b">
  <root node="Head"/>
  <nodes>
    <Mix name="Head" synchronous="false">
      <input name="A" weight="2"/>
      <input name="B"/>
    </Mix>
    <MultivariateNormal name="A" means="1,2" covariance="1, 0.5; 0.5, 2"/>
    <Redimension name="B" dimension="2"><input name="C"/></Redimension>
    <Uniform name="C" min="-1" max="1e3"/>
  </nodes>
</dataset>`;

const SGM = `# the same model, compact
dataset.root = Head
dataset.seed = 7
analysis.version = "1"
analysis.summary = "a & b"

Head = Mix((A, 2), B, synchronous=false)
A = MultivariateNormal(means=(1, 2), covariance=((1, 0.5), (0.5, 2)))
B = Redimension(C, dimension=2)
C = Uniform(-1, 1e3)
`;

describe('model syntaxes', () => {
  it('sniffs the syntax from the text, not the name', () => {
    expect(sniffFormat('\uFEFF  <dataset/>')).toBe('xml');
    expect(sniffFormat('{"dataset":{}}')).toBe('json');
    expect(sniffFormat('dataset.root = X')).toBe('sgm');
    expect(formatForPath('out/model.SGM')).toBe('sgm');
    expect(formatForPath('model.txt')).toBeUndefined();
  });

  it('reads XML with inputs, per-input attributes, analysis entries and entities', () => {
    const m = parseModel(XML);
    expect(m.root).toBe('Head');
    expect(m.seed).toBe('7');
    expect(m.analysis).toEqual([
      ['version', '1'],
      ['summary', 'a & b'],
    ]);
    expect(m.nodes.map((n) => n.name)).toEqual(['Head', 'A', 'B', 'C']);
    expect(m.nodes[0]!.inputs).toEqual([
      { name: 'A', attributes: { weight: '2' } },
      { name: 'B', attributes: {} },
    ]);
  });

  it('reads the compact form: positionals in catalog order, tuples as vectors and matrices', () => {
    const sgm = parseModel(SGM);
    const xml = parseModel(XML);
    // Compact writes matrices with `;` rows and `,` values; the XML spells them with spaces.
    const normalise = (m: SynthModel): SynthModel => {
      const copy = structuredClone(m);
      for (const n of copy.nodes)
        for (const k of Object.keys(n.attributes)) n.attributes[k] = n.attributes[k]!.replace(/\s+/g, '');
      return copy;
    };
    expect(normalise(sgm)).toEqual(normalise(xml));
    expect(sgm.nodes[3]!.attributes).toEqual({ min: '-1', max: '1e3' });
  });

  it.each(['xml', 'json', 'sgm'] as const)('round-trips through %s without loss', (format) => {
    const m = parseModel(XML);
    expect(parseModel(writeModel(m, format))).toEqual(m);
  });

  it('round-trips awkward text: quotes, newlines, markup characters, role and value inputs', () => {
    const m: SynthModel = {
      root: 'S',
      customs: [{ name: 'T', className: 'x.Y' }],
      declares: [{ name: 'k', value: 'a "quoted"\nvalue <&>' }],
      analysis: [['summary', 'partial — 1 custom']],
      nodes: [
        {
          type: 'Switch',
          name: 'S',
          attributes: { key: '0' },
          inputs: [
            { name: 'In', attributes: { role: 'input' } },
            { name: 'B', attributes: { value: '*', weight: '2' } },
          ],
        },
        {
          type: 'Calculate',
          name: 'In',
          attributes: { expression: 'y[0] = -x[0]; y[1] = "x"' },
          inputs: [{ name: 'Q', attributes: {} }],
        },
      ],
    };
    for (const format of ['xml', 'json', 'sgm'] as const)
      expect(parseModel(writeModel(m, format)), format).toEqual(m);
  });

  it('reads every bundled example the same in all its syntaxes', () => {
    const files = readdirSync(EXAMPLES).filter((f) => /\.(xml|json|sgm)$/.test(f));
    const byBase = new Map<string, SynthModel[]>();
    for (const f of files) {
      const base = f.replace(/\.[^.]+$/, '');
      const m = parseModel(readFileSync(join(EXAMPLES, f), 'utf8'));
      byBase.set(base, [...(byBase.get(base) ?? []), m]);
    }
    expect(byBase.size).toBeGreaterThan(0);
    for (const [base, models] of byBase) {
      expect(models.length, base).toBe(3);
      for (const m of models.slice(1)) expect(m, base).toEqual(models[0]);
    }
  });

  it.each([
    ['malformed XML', '<dataset><root node="A"/><nodes></dataset>', /not well-formed/],
    ['XML without root', '<dataset><nodes><Uniform name="A"/></nodes></dataset>', /no <root/],
    ['malformed JSON', '{"dataset": ', /JSON is not well-formed/],
    [
      'JSON with an unknown key',
      '{"dataset": {"root": "A", "nodes": [], "colour": 1}}',
      /unknown dataset key/,
    ],
    ['sgm syntax error', 'dataset.root = A\nA = Uniform(1,', /line 2/],
    [
      'sgm positional after named',
      'dataset.root = A\nA = Uniform(min=1, 2)',
      /positional argument after a named/,
    ],
  ])('rejects %s with a parse error', (_name, text, message) => {
    expect(() => parseModel(text)).toThrow(message);
    try {
      parseModel(text);
    } catch (err) {
      expect(err).toBeInstanceOf(SynthError);
      expect((err as SynthError).code).toBe('SYNTH_PARSE');
    }
  });
});
