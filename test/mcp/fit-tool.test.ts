/** fit_model: model text plus report from sampleCsv, deterministic, stable error codes, lean listing. */
import { describe, expect, it } from 'vitest';
import { fitModelTool } from '../../src/mcp/fit-tool.js';
import { parseModel } from '../../src/synth/index.js';

const SAMPLE = [
  'size,colour',
  ...Array.from({ length: 60 }, (_, i) => `${(i * 7) % 13},${['red', 'blue'][i % 2]}`),
].join('\n');
const ctx = { signal: new AbortController().signal } as never;

describe('fit_model', () => {
  const tool = fitModelTool();

  it('returns model text in the asked syntax and the fit report, the same for the same input', async () => {
    const a = await tool.run({ sampleCsv: SAMPLE, options: { format: 'sgm', seed: 3 } }, ctx);
    const b = await tool.run({ sampleCsv: SAMPLE, options: { format: 'sgm', seed: 3 } }, ctx);
    const s = a.structuredContent as {
      format: string;
      modelText: string;
      report: { columns: { name: string }[] };
    };
    expect(a.isError).toBeFalsy();
    expect(s.format).toBe('sgm');
    expect(s.modelText).toMatch(/^dataset\.root = /m);
    expect(parseModel(s.modelText).seed).toBe('3');
    expect(s.report.columns.map((c) => c.name)).toEqual(['size', 'colour']);
    expect((b.structuredContent as { modelText: string }).modelText).toBe(s.modelText);
  });

  it('answers bad arguments and bad samples with stable codes', async () => {
    const code = async (args: Record<string, unknown>): Promise<unknown> =>
      ((await tool.run(args, ctx)).structuredContent as { code?: string }).code;
    expect(await code({})).toBe('BAD_REQUEST');
    expect(await code({ sampleCsv: SAMPLE, generationId: 'e-1' })).toBe('BAD_REQUEST');
    expect(await code({ sampleCsv: SAMPLE, options: { format: 'yaml' } })).toBe('BAD_REQUEST');
    expect(await code({ sampleCsv: SAMPLE, options: { __proto__: 1, colour: 2 } })).toBe('BAD_REQUEST');
    expect(await code({ sampleCsv: 'a\n1\n' })).toBe('FIT_INPUT');
  });

  it('keeps its tools/list entry small', () => {
    // JSON.stringify leaves the run function out, as tools/list does
    const bytes = JSON.stringify(tool).length;
    console.log(`fit_model tools/list entry: ${bytes} bytes`);
    expect(bytes).toBeLessThan(1200);
  });
});
