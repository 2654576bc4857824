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

  // a sample big enough to take several steps: 12 columns of seeded numbers
  const wide = (rows: number, seed: number): string => {
    let x = seed;
    const next = (): number => (x = (x * 48271) % 2147483647) / 2147483647;
    const header = Array.from({ length: 12 }, (_, j) => `c${j}`).join(',');
    const lines = Array.from({ length: rows }, () =>
      Array.from({ length: 12 }, () => (next() * 100).toFixed(3)).join(','),
    );
    return [header, ...lines].join('\n');
  };

  it('stops a fit over its time budget with FIT_LIMIT, and the server answers meanwhile', async () => {
    const slow = fitModelTool(undefined, 0);
    const order: string[] = [];
    const over = slow.run({ sampleCsv: wide(2000, 7) }, ctx).then((r) => {
      order.push('over-budget');
      return r;
    });
    // a quick request started after it is answered too: the fit gives the event loop back
    const quick = tool.run({ sampleCsv: SAMPLE }, ctx).then((r) => {
      order.push('quick');
      return r;
    });
    const [r, q] = await Promise.all([over, quick]);
    expect(r.isError).toBe(true);
    expect((r.structuredContent as { code: string }).code).toBe('FIT_LIMIT');
    expect(q.isError).toBeFalsy();
    expect(order).toContain('quick');
  });

  it('runs off the event loop, one fit at a time (MODELWORKS_FIT_WORKERS=1): the next waits its turn', async () => {
    const order: string[] = [];
    const big = tool.run({ sampleCsv: wide(3000, 11) }, ctx).then(() => order.push('big'));
    const small = tool.run({ sampleCsv: SAMPLE }, ctx).then(() => order.push('small'));
    // the event loop stays free while the fits run in their worker
    let worstLagMs = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      worstLagMs = Math.max(worstLagMs, now - last - 10);
      last = now;
    }, 10);
    await Promise.all([big, small]);
    clearInterval(ticker);
    expect(order).toEqual(['big', 'small']);
    expect(worstLagMs).toBeLessThan(200);
  });

  it('stops a cancelled fit with CANCELLED before it fits the remaining columns', async () => {
    const abort = new AbortController();
    const pending = tool.run({ sampleCsv: wide(3000, 5) }, { signal: abort.signal });
    abort.abort();
    const r = await pending;
    expect(r.isError).toBe(true);
    expect((r.structuredContent as { code: string }).code).toBe('CANCELLED');
  });

  it('keeps its tools/list entry small', () => {
    // JSON.stringify leaves the run function out, as tools/list does
    const bytes = JSON.stringify(tool).length;
    console.log(`fit_model tools/list entry: ${bytes} bytes`);
    expect(bytes).toBeLessThan(1200);
  });
});

describe('fit_model on a Free-edition server', () => {
  it('refuses with SYNTH_LICENSE and why, instead of returning a model the server would refuse', async () => {
    const { SynthService } = await import('../../src/service/synth-service.js');
    const free = fitModelTool(new SynthService({ edition: 'free' }));
    const wide = [
      'a,b,c,d,e,f',
      ...Array.from(
        { length: 80 },
        (_, i) =>
          `${i % 7},${(i * 3) % 11},${(i * 5) % 13}.5,x${i % 3},${i % 2 ? 'yes' : 'no'},${(i * 7) % 17}`,
      ),
    ].join('\n');
    const r = await free.run({ sampleCsv: wide }, ctx);
    expect(r.isError).toBe(true);
    const s = r.structuredContent as { code: string; error: string };
    expect(s.code).toBe('SYNTH_LICENSE');
    expect(s.error).toMatch(/Free edition/);
    // the same sample on a full server fits
    expect((await fitModelTool(new SynthService()).run({ sampleCsv: wide }, ctx)).isError).toBeFalsy();
  });
});
