/** Validator (§6.2) and analyzer (§7.1) result shapes and the verifiable figures. */
import { describe, expect, it } from 'vitest';
import { parseModel } from '../../src/synth/model/io.js';
import type { AnalysisOptions } from '../../src/synth/validate/analyzer.js';
import { analyzeModel, complexityOf } from '../../src/synth/validate/analyzer.js';
import { validateModelText } from '../../src/synth/validate/validator.js';
import { xmlModel } from './helpers.js';

const CHOICE = xmlModel(
  'Choice',
  '<Mix name="Choice"><input name="A" weight="2"/><input name="B"/></Mix><Binomial name="A" n="1" p="0.3"/><Binomial name="B" n="1" p="0.45"/>',
);

let tick = 0;
const OPTIONS: AnalysisOptions = {
  throughput: true,
  samples: 500,
  warmupMs: 0,
  isolate: true,
  isolateRounds: 3,
  isolateIterations: 20,
  isolateWarmupRounds: 1,
  isolateThreshold: 3,
  now: () => (tick += 2),
  timestamp: '2026-01-15T08:30:00Z',
};

describe('validator', () => {
  it('returns the §6.2 shape for a valid model', () => {
    expect(validateModelText(CHOICE)).toEqual({
      valid: true,
      rootName: 'Choice',
      nodeCount: 3,
      failures: [],
    });
  });

  it('reports load errors with null root and count', () => {
    const r = validateModelText(xmlModel('X', '<Uniform name="U"/>'));
    expect(r).toMatchObject({ valid: false, rootName: null, nodeCount: null, failures: [] });
    expect(r.loadError).toMatch(/root node "X" is not defined/);
    expect(validateModelText('<dataset>').loadError).toMatch(/not well-formed/);
  });

  it('Poisson large-lambda below 30 is a load error (a parameter bound, §6.1), not a node failure', () => {
    const r = validateModelText(xmlModel('P', '<Poisson name="P" lambda="12" mode="large-lambda"/>'));
    expect(r).toMatchObject({ valid: false, rootName: null, nodeCount: null, failures: [] });
    expect(r.loadError).toBe('Poisson "P": mode large-lambda needs lambda >= 30');
    expect(
      validateModelText(xmlModel('P', '<Poisson name="P" lambda="30" mode="large-lambda"/>')).valid,
    ).toBe(true);
  });

  it('reports node-level failures with name, type and message', () => {
    const r = validateModelText(
      xmlModel(
        'M',
        '<Mix name="M"><input name="U"/></Mix><Uniform name="U"/><Truncate name="T" min="3" max="1"><input name="V"/></Truncate><Uniform name="V"/>',
      ),
    );
    expect(r.valid).toBe(false);
    expect(r.rootName).toBe('M');
    expect(r.failures.map((f) => [f.nodeName, f.nodeType])).toEqual([
      ['M', 'Mix'],
      ['T', 'Truncate'],
    ]);
  });
});

describe('analyzer', () => {
  it('computes the §7.1 complexity of a Mix of two leaves', () => {
    expect(complexityOf(parseModel(CHOICE))).toEqual({
      mode: 'FULLY_COMPUTED',
      nodeCount: 3,
      minDepth: 2,
      maxDepth: 2,
      predictedAverageDepth: 2,
      score: 30,
      customComponentCount: 0,
      customComponentNames: [],
      summary: 'fully computed: nodes=3 minDepth=2 maxDepth=2 predictedAvgDepth=2.000 score=30',
    });
  });

  it('weights leaf depths by Mix probabilities and counts Pro nodes as custom', () => {
    const m = parseModel(
      xmlModel(
        'M',
        '<Mix name="M"><input name="A" weight="3"/><input name="T"/></Mix><Uniform name="A"/><ToInteger name="T"><input name="U"/></ToInteger><Uniform name="U"/>',
      ),
    );
    expect(complexityOf(m)).toMatchObject({
      nodeCount: 4,
      minDepth: 2,
      maxDepth: 3,
      predictedAverageDepth: 2.25,
    });
    const pro = complexityOf(
      parseModel(xmlModel('P', '<Phone name="P"><input name="A"/></Phone><FlatFile name="A" file="x.csv"/>')),
    );
    expect(pro.mode).toBe('PARTIAL');
    const perturb = parseModel(
      xmlModel(
        'P',
        '<Perturb name="P"><input name="N" role="normal"/><input name="D" role="disturbance"/><input name="W" role="wait"/><input name="L" role="duration"/></Perturb>' +
          '<Normal name="N"/><Normal name="D"/><Constant name="W" value="8"/><Constant name="L" value="2"/>',
      ),
    );
    // Only the normal branch counts toward the score in the steady state (the original prints 20).
    expect(complexityOf(perturb)).toMatchObject({ nodeCount: 5, minDepth: 2, maxDepth: 2, score: 20 });
    expect(pro.summary).toBe(
      'partial — 2 custom component(s) excluded from predicted average: nodes=2 minDepth=2 maxDepth=2 score=20; customs=[P:Phone, A:FlatFile]',
    );
  });

  it('returns throughput and isolated benchmark figures from the injected clock', () => {
    const a = analyzeModel(parseModel(CHOICE), OPTIONS);
    expect(a.rootName).toBe('Choice');
    expect(a.timestamp).toBe('2026-01-15T08:30:00Z');
    expect(a.throughput).toEqual({ sampleCount: 500, sampleDurationMs: 2, observationsPerSecond: 250000 });
    expect(a.isolatedBenchmark).toMatchObject({
      problemNodeCount: expect.any(Number),
      problemNodes: expect.any(Array),
    });
    expect(a.isolatedBenchmark!.baselineNanosPerCall).toBeGreaterThan(0);
  });
});
