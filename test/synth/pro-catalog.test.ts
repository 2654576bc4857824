/** The Pro descriptors: every one implemented, with the parameters, aliases, defaults and allowed values of §4.2/§4.4. */
import { describe, expect, it } from 'vitest';
import { PRO_CATALOG } from '../../src/synth/components/catalog-pro.js';
import { PRO_COMPONENTS, findDescriptor } from '../../src/synth/components/catalog.js';
import { findComponent } from '../../src/synth/components/registry.js';
import { componentsMarkdown } from '../../src/synth/components/render.js';
import { parseModel } from '../../src/synth/model/io.js';
import { analyzeModel } from '../../src/synth/validate/analyzer.js';

/** Outside data and composition, built elsewhere. */
const ELSEWHERE = ['Database', 'FlatFile', 'Import', 'ServiceCall'];

describe('Pro catalog', () => {
  it('covers every Pro component except outside data and composition, each implemented', () => {
    expect(PRO_CATALOG.map((d) => d.name).sort()).toEqual(
      [...PRO_COMPONENTS].filter((n) => !ELSEWHERE.includes(n)).sort(),
    );
    expect(PRO_CATALOG.filter((d) => d.category === 'generator')).toHaveLength(10);
    expect(PRO_CATALOG.filter((d) => d.category === 'filter')).toHaveLength(26);
    for (const d of PRO_CATALOG) {
      expect(d.edition).toBe('Pro');
      expect(findComponent(d.name)?.descriptor).toBe(d);
    }
  });

  it('declares parameters as the spec lists them', () => {
    const p = (component: string, name: string) =>
      findDescriptor(component)!.parameters.find((x) => x.name === name)!;
    expect(p('NachaFileAssembler', 'count')).toMatchObject({
      aliases: ['entries'],
      defaultValue: '10',
      type: 'int',
    });
    expect(p('NachaFileAssembler', 'companyName').defaultValue).toBe('SPICEGRINDER CO');
    expect(p('NachaEntryRender', 'transactionCode')).toMatchObject({
      defaultValue: '22',
      allowedValues: ['22', '27', '32', '37'],
    });
    expect(p('Perturb', 'synchronous')).toMatchObject({ aliases: ['sync'], defaultValue: 'false' });
    expect(p('FhirObservationRender', 'effectiveDateTime').defaultValue).toBe('2026-01-02T09:00:00Z');
    expect(p('FhirObservationRender', 'code').required).toBe(true);
    expect(p('FhirBundleAssembler', 'baseUrl').defaultValue).toBe('http://example.org/fhir');
    expect(p('FhirBloodPressureRender', 'unitCode').defaultValue).toBe('mm[Hg]');
    expect(p('Address', 'unitProbability').defaultValue).toBe('0.28');
    expect(p('Email', 'wordListFile').defaultValue).toBe('samples/pro/email_words.txt');
    expect(p('NPI', 'type')).toMatchObject({
      defaultValue: 'random',
      allowedValues: ['individual', 'organization', 'random'],
    });
    expect(p('Extract', 'fields').required).toBe(true);
    expect(p('Convert', 'class').required).toBe(true);
    expect(p('FhirIdRegistry', 'startAt').defaultValue).toBe('1');
    expect(componentsMarkdown()).toMatch(
      /\| NachaFileAssembler \| 1 \(entry records\) \| count\[entries\]=10; /,
    );
  });
});

describe('analyzer on Pro models', () => {
  const options = {
    timestamp: 't',
    throughput: true,
    samples: 50,
    warmupMs: 0,
    now: () => performance.now(),
    isolate: false,
    isolateRounds: 1,
    isolateIterations: 1,
    isolateWarmupRounds: 0,
    isolateThreshold: 3,
  };
  it('times implemented Pro models, lists Pro nodes as custom, and only scores models this build cannot run', () => {
    const ssn = analyzeModel(
      parseModel('<dataset><root node="S"/><nodes><SSN name="S"/></nodes></dataset>'),
      options,
    );
    expect(ssn.complexity.customComponentNames).toEqual(['S:SSN']);
    expect(ssn.throughput?.sampleCount).toBe(50);
    // A class this build cannot load still gets its complexity figures, untimed.
    const custom = analyzeModel(
      parseModel(
        '<dataset><root node="P"/><nodes><Phone name="P"><input name="C"/></Phone><com.example.Area name="C"/></nodes></dataset>',
      ),
      options,
    );
    expect(custom.complexity.customComponentCount).toBe(2);
    expect(custom.throughput).toBeNull();
    // A table is outside data: without a file port the load phase refuses it, naming the node.
    expect(() =>
      analyzeModel(
        parseModel(
          '<dataset><root node="P"/><nodes><Phone name="P"><input name="F"/></Phone><FlatFile name="F" file="a.csv"/></nodes></dataset>',
        ),
        options,
      ),
    ).toThrow(/FlatFile "F": reading files needs a file port/);
  });
});
