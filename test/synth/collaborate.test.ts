/**
 * The engine side of collaborate links (synth-spec §1.6), with two small test components standing
 * in for the beacon and watcher (the real ones are built elsewhere): targets are built first and
 * reached through `ctx.collaborators`, links are outside the single-consumer and cycle checks, a
 * read leaves the target's state unchanged, and a link cycle is a validation failure.
 */
import { describe, expect, it } from 'vitest';
import type { BuildContext, CollaborateTarget, ComponentImpl } from '../../src/synth/components/component.js';
import { findComponent, type ComponentLookup } from '../../src/synth/components/registry.js';
import { DOUBLE } from '../../src/synth/engine/row.js';
import type { Row, RuntimeNode } from '../../src/synth/engine/row.js';
import { parseModel } from '../../src/synth/model/io.js';
import { analyzeModel } from '../../src/synth/validate/analyzer.js';
import { validateModel } from '../../src/synth/validate/validator.js';
import { grind, xmlModel } from './helpers.js';

const TEST_COMPONENTS: ComponentImpl[] = [
  {
    descriptor: {
      name: 'TestCounter',
      className: 'test.TestCounter',
      category: 'generator',
      edition: 'Pro',
      description: 'a counter peers can read',
      input: 'none',
      details: '',
      parameters: [
        {
          name: 'start',
          type: 'double',
          required: false,
          defaultValue: '100',
          aliases: [],
          allowedValues: [],
          description: 'the first value',
          multiple: false,
          attributes: [],
          minOccurrences: 0,
          maxOccurrences: 1,
          order: 0,
        },
      ],
    },
    inputAttributes: [],
    create(ctx: BuildContext): CollaborateTarget {
      let value = ctx.params.double('start');
      const peers = [...ctx.collaborators.values()];
      return {
        name: ctx.name,
        type: ctx.type,
        dimension: 1,
        synchronous: false,
        collaborateDimension: 1,
        next(out: Row, offset: number): void {
          out.nums[offset] = value++;
          out.kinds[offset] = DOUBLE;
        },
        collaborate(out: Row, offset: number): void {
          // A counter that itself follows a peer reports the sum (to exercise chained links).
          let v = value;
          for (const p of peers) {
            p.collaborate(out, offset);
            v += out.nums[offset]!;
          }
          out.nums[offset] = v;
          out.kinds[offset] = DOUBLE;
        },
      };
    },
  },
  {
    descriptor: {
      name: 'TestWatcher',
      className: 'test.TestWatcher',
      category: 'filter',
      edition: 'Pro',
      description: 'its input, then each peer',
      input: '1',
      details: '',
      parameters: [],
    },
    inputAttributes: [],
    create(ctx: BuildContext): RuntimeNode {
      const input = ctx.inputs[0]!;
      const peers = [...ctx.collaborators.entries()].sort(([a], [b]) => a.localeCompare(b));
      return {
        name: ctx.name,
        type: ctx.type,
        dimension: input.dimension + peers.length,
        synchronous: false,
        next(out: Row, offset: number): void {
          input.next(out, offset);
          peers.forEach(([, p], i) => p.collaborate(out, offset + input.dimension + i));
        },
      };
    },
  },
];

// The engine takes its component lookup from the caller: the test components, then the registry.
const components: ComponentLookup = (type) =>
  TEST_COMPONENTS.find((c) => c.descriptor.name.toLowerCase() === type.toLowerCase()) ?? findComponent(type);
const run = (model: string, seed: number, count: number): string =>
  grind(model, seed, count, 'csv', false, { components });

describe('collaborate links', () => {
  it('reads peers without advancing them; peers need no consumer and may be unreachable', () => {
    const model = xmlModel(
      'W',
      '<TestWatcher name="W" collaborate.primary="A" collaborate.secondary="B"><input name="S"/></TestWatcher>' +
        '<Sequence name="S" start="1"/><TestCounter name="A"/><TestCounter name="B"/>',
    );
    expect(run(model, 1, 3)).toBe('1.0,100.0,100.0\n2.0,100.0,100.0\n3.0,100.0,100.0\n');
  });

  it('lets a node be both an input and a collaborate target (links are not consumers)', () => {
    const model = xmlModel(
      'Both',
      '<Append name="Both"><input name="W"/><input name="A"/></Append>' +
        '<TestWatcher name="W" collaborate.peer="A"><input name="S"/></TestWatcher>' +
        '<Sequence name="S"/><TestCounter name="A"/>',
    );
    // W reads A before Append pulls A: 100 each time, while A's own pulls advance it.
    expect(run(model, 1, 3)).toBe('0.0,100.0,100.0\n1.0,101.0,101.0\n2.0,102.0,102.0\n');
  });

  it('builds chained targets first and reports a link cycle as a validation failure', () => {
    const chained = xmlModel(
      'W',
      '<TestWatcher name="W" collaborate.x="A"><input name="S"/></TestWatcher><Sequence name="S"/>' +
        '<TestCounter name="A" collaborate.up="B"/><TestCounter name="B"/>',
    );
    expect(run(chained, 1, 1)).toBe('0.0,200.0\n');
    // the validator configures every node through the same lookup
    expect(validateModel(parseModel(chained), { components })).toMatchObject({ valid: true, failures: [] });
    const cycle = validateModel(
      parseModel(
        xmlModel('A', '<TestCounter name="A" collaborate.p="B"/><TestCounter name="B" collaborate.p="A"/>'),
      ),
      { components },
    );
    expect(cycle.valid).toBe(false);
    expect(cycle.failures.map((f) => f.message).join('; ')).toMatch(/collaborate cycle through "A"/);
  });

  it('reads .sgm positional arguments by the parameters the lookup names', () => {
    // without the lookup's descriptor, "7" would be an extra positional argument (a parse error)
    const sgm = 'dataset.root = W\nW = TestWatcher(S, collaborate.x=A)\nS = Sequence()\nA = TestCounter(7)\n';
    expect(run(sgm, 1, 2)).toBe('0.0,7.0\n1.0,7.0\n');
  });

  it('analyzes a model of test components through the lookup it is given', () => {
    const model = parseModel(
      xmlModel(
        'W',
        '<TestWatcher name="W" collaborate.x="A"><input name="S"/></TestWatcher><Sequence name="S"/><TestCounter name="A"/>',
      ),
    );
    let clock = 0; // a counting clock: the figures are not checked, only that the run happened
    const analysis = analyzeModel(model, {
      throughput: true,
      samples: 10,
      warmupMs: 0,
      isolate: true,
      isolateRounds: 1,
      isolateIterations: 1,
      isolateWarmupRounds: 0,
      isolateThreshold: 1e9,
      now: () => clock++,
      timestamp: '2026-01-01T00:00:00Z',
      load: { components },
    });
    // without the lookup the model would not load, and both timed parts would be null
    expect(analysis.throughput?.sampleCount).toBe(10);
    expect(analysis.isolatedBenchmark?.problemNodeCount).toBe(0);
    expect(analysis.complexity.nodeCount).toBe(2);
  });
});
