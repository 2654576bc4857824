/**
 * compare_sample off the event loop (issue 47): a comparison of a sample near its documented
 * maximum (4 MiB, 20,000 rows) against as many of the model's rows runs in a worker thread, so
 * pings from another request are answered while it runs. The comparison used to parse, draw and
 * compare on the server's thread, holding every other client for seconds.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPARE_LIMITS } from '../../src/mcp/compare-tool.js';
import { serveHttp, type RunningHttpMcp } from '../../src/mcp/http.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { synthMcpGroup, type SynthMcpGroup } from '../../src/mcp/synth-setup.js';
import { CalcService } from '../../src/service/calc-service.js';
import { fitGate } from '../../src/service/fit-runner.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { SynthRun, parseModel, renderChunks } from '../../src/synth/index.js';

/** Ten normal columns and a category: about 185 bytes a row of csv. */
const COLUMNS = 10;
const MODEL = `<dataset seed="7"><root node="Row"/><nodes>
<Append name="Row">${Array.from({ length: COLUMNS }, (_, i) => `<input name="N${i}"/>`).join('')}<input name="Kind"/></Append>
${Array.from({ length: COLUMNS }, (_, i) => `<Normal name="N${i}" mean="${i * 10}" sd="${i + 1}"/>`).join('\n')}
<Categorical name="Kind" weights="0.5, 0.3, 0.2"/>
</nodes></dataset>`;

function sampleCsv(rows: number): string {
  let out = '';
  for (const chunk of renderChunks(new SynthRun(parseModel(MODEL), 99n), {
    count: rows,
    format: 'csv',
    header: true,
  }))
    out += chunk;
  return out;
}

const calc = new CalcService(new MemoryStore());
let synth: SynthMcpGroup;
let running: RunningHttpMcp;
beforeAll(async () => {
  synth = synthMcpGroup({}, () => {});
  running = await serveHttp({
    host: '127.0.0.1',
    port: 0,
    allowedOrigins: [],
    log: () => {},
    timeouts: { headersMs: 1000, bodyMs: 3000 },
    createServer: () =>
      createMcpServer({
        calc,
        guidanceTopics: [],
        groups: new Set(['synth']),
        modeLine: 'compare yields test',
        extraTools: synth.tools,
      }),
  });
});
afterAll(async () => {
  await running.close();
  await synth.close();
  await calc.close();
});

describe('compare_sample under load', () => {
  it('answers pings while a 4 MiB sample is compared', async () => {
    const csv = sampleCsv(COMPARE_LIMITS.rows);
    const bytes = Buffer.byteLength(csv);
    expect(bytes).toBeGreaterThan(3 * 1024 * 1024);
    expect(bytes).toBeLessThanOrEqual(COMPARE_LIMITS.sampleBytes);
    const client = new Client({ name: 'compare-yields', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
    try {
      let comparing = true;
      const compare = client
        .callTool(
          { name: 'compare_sample', arguments: { modelText: MODEL, sampleCsv: csv, seed: 5 } },
          { timeout: 120_000 },
        )
        .finally(() => (comparing = false));
      const pings: number[] = [];
      while (comparing) {
        // the server runs in this process: a held event loop shows as a late timer as well as a
        // late answer, so a ping is timed from when it was due (the end of the pause), and counted
        // when the comparison was under way as the pause began
        const due = performance.now() + 50;
        const whileComparing = comparing;
        await new Promise((resolve) => setTimeout(resolve, 50));
        await client.ping();
        if (whileComparing) pings.push(performance.now() - due);
      }
      const worst = Math.max(...pings);
      const p95 = [...pings].sort((x, y) => x - y)[Math.floor(pings.length * 0.95)] ?? Infinity;
      console.log(
        `compare of ${bytes} bytes: ${pings.length} pings, p95 ${p95.toFixed(0)} ms, worst ${worst.toFixed(0)} ms; ${pings.map((p) => p.toFixed(0)).join(' ')}`,
      );
      const result = await compare;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        seed: '5',
        sampleRows: COMPARE_LIMITS.rows,
        generatedRows: COMPARE_LIMITS.rows,
      });
      expect(pings.length).toBeGreaterThan(5);
      // the machine running this may be loaded: the bound is on the 95th percentile, with a
      // looser one on the worst
      expect(p95).toBeLessThan(250);
      expect(worst).toBeLessThan(1000);
    } finally {
      await client.close();
    }
  }, 150_000);

  it('stops the worker when the caller cancels: the gate is free at once', async () => {
    const csv = sampleCsv(COMPARE_LIMITS.rows);
    const client = new Client({ name: 'compare-cancel', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
    try {
      const abort = new AbortController();
      const compare = client.callTool(
        { name: 'compare_sample', arguments: { modelText: MODEL, sampleCsv: csv, seed: 5 } },
        { timeout: 120_000, signal: abort.signal },
      );
      compare.catch(() => {});
      // wait until the comparison holds the gate, then give it a moment to be well under way
      // (the old main-thread comparison held the event loop from start to end: never seen running)
      const giveUpAt = performance.now() + 20_000;
      while (fitGate().load.running === 0 && performance.now() < giveUpAt)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(fitGate().load.running).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const cancelledAt = performance.now();
      abort.abort();
      await expect(compare).rejects.toThrow();
      while (fitGate().load.running > 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const freedMs = performance.now() - cancelledAt;
      console.log(`gate free ${freedMs.toFixed(0)} ms after the cancel`);
      // the whole comparison takes seconds here; a stopped worker frees the gate at once
      expect(freedMs).toBeLessThan(1000);
      // and the server compares again afterwards
      const small = await client.callTool({
        name: 'compare_sample',
        arguments: { modelText: MODEL, sampleCsv: sampleCsv(200), seed: 5 },
      });
      expect(small.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  }, 150_000);

  it('stops the worker past its time budget with COMPARE_LIMIT', async () => {
    const csv = sampleCsv(COMPARE_LIMITS.rows);
    const client = new Client({ name: 'compare-budget', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
    const budgetMs = COMPARE_LIMITS.timeMs;
    // the runner's own timer reads the limit as the comparison starts; the worker keeps its 30 s
    COMPARE_LIMITS.timeMs = 500;
    try {
      const started = performance.now();
      const r = (await client.callTool(
        { name: 'compare_sample', arguments: { modelText: MODEL, sampleCsv: csv, seed: 5 } },
        { timeout: 120_000 },
      )) as { isError?: boolean; structuredContent?: Record<string, unknown> };
      const tookMs = performance.now() - started;
      console.log(
        `stopped after ${tookMs.toFixed(0)} ms: ${JSON.stringify(r.structuredContent).slice(0, 200)}`,
      );
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toMatchObject({
        code: 'COMPARE_LIMIT',
        error: expect.stringMatching(/budget/),
      });
      expect(tookMs).toBeLessThan(3000);
      expect(fitGate().load.running).toBe(0);
    } finally {
      COMPARE_LIMITS.timeMs = budgetMs;
      await client.close();
    }
  }, 150_000);
});
