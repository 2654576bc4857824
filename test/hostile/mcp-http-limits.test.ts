/**
 * `mcp --http` and `synth serve` bound their requests (issue 47), on real sockets on 127.0.0.1:
 * fit_model's documented 8 MB sample gets through (bodies were capped at 4 MiB) and runs off the
 * event loop (a ping is answered meanwhile); a body announced over the limit is a 413 the sender
 * reads; slow senders are cut off.
 */
import net from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitModelTool } from '../../src/mcp/fit-tool.js';
import { fitGate } from '../../src/service/fit-runner.js';
import { MAX_BODY_BYTES, serveHttp, type RunningHttpMcp } from '../../src/mcp/http.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { CalcService } from '../../src/service/calc-service.js';
import { SynthService } from '../../src/service/synth-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { buildSynthServiceApp } from '../../src/synth-service-http/app.js';

const calc = new CalcService(new MemoryStore());
let running: RunningHttpMcp;
beforeAll(async () => {
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
        groups: new Set(['calc']),
        modeLine: 'test',
        extraTools: [fitModelTool()],
      }),
  });
});
afterAll(async () => {
  await running.close();
  await calc.close();
});

/** A CSV of about `bytes` bytes (about 60 a row): two numbers, two categories and a flag per row. */
function sampleCsv(bytes: number): string {
  const lines = ['amount,score,region,active,product'];
  let size = lines[0]!.length + 1;
  for (let i = 0; size < bytes; i++) {
    const line = `${((i * 7919) % 100_000) / 100},${(((i * 104_729) % 9973) / 13).toFixed(3)},region-${i % 7},${i % 3 === 0},product-line-${String(i % 40).padStart(4, '0')}`;
    if (size + line.length + 1 > bytes) break;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

/** Sends `head`, then `pieces` one every `pauseMs`; resolves when the server closes the socket. */
function trickle(port: number, head: string, pieces: string[], pauseMs: number): Promise<number> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.on('data', () => {});
    socket.on('close', () => resolve(Date.now() - started));
    socket.write(head);
    let i = 0;
    const timer = setInterval(() => {
      if (socket.destroyed || i >= pieces.length) return clearInterval(timer);
      socket.write(pieces[i++]!);
    }, pauseMs);
    setTimeout(() => socket.destroy(), 15_000).unref();
  });
}

describe('mcp --http', () => {
  it("takes fit_model's documented 8 MB sample, and answers pings while it fits", async () => {
    const csv = sampleCsv(8 * 1000 * 1000);
    expect(Buffer.byteLength(csv)).toBeGreaterThan(4 * 1024 * 1024);
    const client = new Client({ name: 'limits-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
    try {
      let fitting = true;
      const fit = client
        .callTool({ name: 'fit_model', arguments: { sampleCsv: csv } }, { timeout: 120_000 })
        .finally(() => (fitting = false));
      const pings: number[] = [];
      while (fitting) {
        // pings while the fit runs in its worker (not while the 8 MB request is sent and parsed)
        const duringFit = fitGate().load.running > 0;
        const started = performance.now();
        await client.ping();
        if (duringFit) pings.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const result = await fit;
      console.log(JSON.stringify(result).slice(0, 400));
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ format: 'xml', report: { rows: expect.any(Number) } });
      const worst = Math.max(...pings);
      console.log(
        `fit of ${Buffer.byteLength(csv)} bytes: ${pings.length} pings, worst ${worst.toFixed(0)} ms; ${pings.map((p) => p.toFixed(0)).join(' ')}`,
      );
      expect(pings.length).toBeGreaterThan(5);
      // the old fit held the event loop for seconds at a time; the machine running this may be
      // loaded, so the bound is on the 95th percentile, with a loose one on the worst
      const p95 = [...pings].sort((a, b) => a - b)[Math.floor(pings.length * 0.95)]!;
      expect(p95).toBeLessThan(250);
      expect(worst).toBeLessThan(1000);
    } finally {
      await client.close();
    }
  }, 150_000);

  it('a body announced over the limit by Content-Length: a 413 the client reads', async () => {
    const res = await fetch(running.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: Buffer.alloc(MAX_BODY_BYTES + 1024, 0x20),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: -32700 } });
  });

  it('an unknown path answers in our shape, with a code', async () => {
    const res = await fetch(running.url.replace('/mcp', '/nowhere'));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a slow sender is cut off near the body timeout (3 s here)', async () => {
    const closedAfterMs = await trickle(
      running.port,
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
      Array.from({ length: 100 }, () => ' '),
      100,
    );
    expect(closedAfterMs).toBeLessThan(6000);
  });
});

describe('synth serve', () => {
  it('a slow sender is cut off near the body timeout', async () => {
    const service = new SynthService();
    const app = buildSynthServiceApp({ service, timeouts: { headersMs: 500, bodyMs: 1000 } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const port = (app.server.address() as net.AddressInfo).port;
      const closedAfterMs = await trickle(
        port,
        'POST /v1/validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
        Array.from({ length: 100 }, () => ' '),
        100,
      );
      expect(closedAfterMs).toBeLessThan(4000);
    } finally {
      await app.close();
    }
  });
});
