/**
 * compare_sample through a real SDK client (in-memory transport): a model's own sample gets no
 * high finding, a sample with copied identifiers does, a generation can stand in for the model,
 * and bad or oversized input is refused with a stable code. Also prints the tool's tools/list
 * entry size (the combined server's budget is watched in e2e.test.ts).
 */
import { readFileSync } from 'node:fs';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPARE_LIMITS } from '../../src/mcp/compare-tool.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { synthMcpGroup, type SynthMcpGroup } from '../../src/mcp/synth-setup.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { SynthRun, parseModel, renderChunks } from '../../src/synth/index.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MODEL = readFileSync(new URL('../../examples/synth/support-queue.xml', import.meta.url), 'utf8');

function csv(text: string, seed: number, count: number, header = true): string {
  let out = '';
  for (const chunk of renderChunks(new SynthRun(parseModel(text), BigInt(seed)), {
    count,
    format: 'csv',
    header,
  }))
    out += chunk;
  return out;
}

let client: Client;
let calc: CalcService;
let synth: SynthMcpGroup;

beforeAll(async () => {
  calc = new CalcService(new MemoryStore());
  synth = synthMcpGroup({}, () => {});
  const server = createMcpServer({
    calc,
    guidanceTopics: [],
    groups: new Set(['synth']),
    modeLine: 'compare test',
    extraTools: synth.tools,
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'compare-test', version: '1' });
  await server.connect(b);
  await client.connect(a);
});

afterAll(async () => {
  await client?.close();
  await synth?.close();
  await calc?.close();
});

async function call(args: Json): Promise<{ isError?: boolean; structuredContent?: Json; text: string }> {
  const r = (await client.callTool({ name: 'compare_sample', arguments: args })) as {
    isError?: boolean;
    structuredContent?: Json;
    content: { text: string }[];
  };
  return { ...r, text: r.content[0]!.text };
}

describe('compare_sample', () => {
  it('is listed beside the six synth tools, lean', async () => {
    const tools = (await client.listTools()).tools;
    const entry = tools.find((t) => t.name === 'compare_sample');
    expect(entry).toBeDefined();
    const bytes = JSON.stringify(entry).length;
    console.log(`compare_sample tools/list entry: ${bytes} bytes`);
    expect(bytes).toBeLessThan(1000);
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['generate', 'read_generation', 'list_components']),
    );
  });

  it('a sample drawn from the model itself: no high finding; the text is the structured content', async () => {
    const r = await call({ modelText: MODEL, sampleCsv: csv(MODEL, 9, 600), seed: 1 });
    expect(r.isError).toBeFalsy();
    expect(JSON.parse(r.text)).toEqual(r.structuredContent);
    expect(r.structuredContent).toMatchObject({
      seed: '1',
      seedSource: 'request', // a seed in the call, as generate says; `cli` belongs to the CLI
      sampleRows: 600,
      generatedRows: 600,
      highCount: 0,
    });
  });

  it('copied rows and identifiers: high findings; a generation can stand in for the model', async () => {
    const g = (
      await client.callTool({ name: 'generate', arguments: { modelText: MODEL, count: 600, seed: 4 } })
    ).structuredContent as Json;
    // the sample is the generation's own rows: everything in it is copied
    const sample = csv(MODEL, 4, 600);
    const r = await call({ generationId: g.generationId, sampleCsv: sample });
    expect(r.isError).toBeFalsy();
    const kinds = (r.structuredContent!.findings as Json[])
      .filter((f) => f.severity === 'high')
      .map((f) => f.kind);
    expect(kinds).toContain('copied-rows');
    expect(kinds).toContain('identifier');
  });

  it('ignore leaves sample columns out (a shifted one no longer fails); a bad list is refused', async () => {
    const [head, ...rows] = csv(MODEL, 9, 600).trim().split('\n');
    const shifted = [
      head,
      ...rows.map((r) =>
        r
          .split(',')
          .map((x, i) => (i === 2 ? String(Number(x) + 5) : x))
          .join(','),
      ),
    ].join('\n');
    const plain = await call({ modelText: MODEL, sampleCsv: shifted, seed: 1 });
    expect(plain.structuredContent!.highCount).toBeGreaterThan(0);
    const r = await call({ modelText: MODEL, sampleCsv: shifted, seed: 1, ignore: ['dim2'] });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ highCount: 0, ignored: ['dim2'] });
    const bad = await call({ modelText: MODEL, sampleCsv: shifted, seed: 1, ignore: 'dim2' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/ignore/);
  });

  it('refuses bad input with stable codes', async () => {
    const both = await call({ modelText: MODEL, generationId: 'e-x', sampleCsv: 'a\n1\n' });
    expect(both.isError).toBe(true);
    expect(both.structuredContent).toMatchObject({ code: 'BAD_REQUEST' });
    const ragged = await call({ modelText: MODEL, sampleCsv: 'a,b\n1,2\n3\n' });
    expect(ragged.structuredContent).toMatchObject({ code: 'COMPARE_INPUT' });
    const rows = Array.from({ length: COMPARE_LIMITS.rows + 1 }, (_, i) => String(i)).join('\n');
    const tooMany = await call({ modelText: MODEL, sampleCsv: `x\n${rows}\n` });
    expect(tooMany.structuredContent).toMatchObject({ code: 'COMPARE_LIMIT' });
    const broken = await call({ modelText: '<dataset><root node="Nope"/></dataset>', sampleCsv: 'a\n1\n' });
    expect(broken.isError).toBe(true);
    expect(broken.structuredContent!.code).toMatch(/^SYNTH_/);
    const option = await call({ modelText: MODEL, sampleCsv: 'a\n1\n', options: { highP: 2 } });
    expect(option.structuredContent).toMatchObject({ code: 'BAD_REQUEST' });
  });
});
