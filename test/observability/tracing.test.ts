/**
 * Tracing (issue 28, acceptance 2): with the SDK's in-memory exporter, one REST mutate produces
 * request → calc.cycle → (calc.phase.*, store.commit) in one trace; one MCP mutate over HTTP
 * request → tools/call → calc.cycle → …; over stdio (no HTTP request) the tools/call span is the
 * trace's root. The standard OTEL settings decide whether tracing is on at all.
 */
import { Client, StreamableHTTPClientTransport, InMemoryTransport } from '@modelcontextprotocol/client';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { SpanKind } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serveHttp } from '../../src/mcp/http.js';
import { createMcpServer } from '../../src/mcp/server.js';
import {
  REQUEST_ID_ATTRIBUTE,
  startTracing,
  traceExportersFromEnv,
  type Tracing,
} from '../../src/observability/tracing.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { orderSpec } from '../mcp/helpers/specs.js';
import { testApp } from '../http/helpers.js';

describe('the OTEL settings', () => {
  it('leave tracing off by default and with none or OTEL_SDK_DISABLED', () => {
    expect(traceExportersFromEnv({})).toEqual([]);
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(traceExportersFromEnv({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toEqual([]);
    expect(traceExportersFromEnv({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toEqual([]);
  });

  it('turn it on with an OTLP endpoint or a named exporter', () => {
    expect(traceExportersFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual(['otlp']);
    expect(traceExportersFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toEqual([
      'otlp',
    ]);
    expect(traceExportersFromEnv({ OTEL_TRACES_EXPORTER: 'console, otlp' })).toEqual(['console', 'otlp']);
  });

  it('refuse an exporter or protocol we do not ship, naming the setting', () => {
    expect(() => traceExportersFromEnv({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(
      /OTEL_TRACES_EXPORTER.*zipkin/,
    );
    expect(() =>
      traceExportersFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      }),
    ).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL.*grpc/);
  });

  it('refuse the console exporter where stdout carries protocol messages', async () => {
    await expect(
      startTracing({ env: { OTEL_TRACES_EXPORTER: 'console' }, protocolOnStdout: true }),
    ).rejects.toThrow(/stdout/);
  });

  it('start nothing when off', async () => {
    expect(await startTracing({ env: {} })).toBeUndefined();
  });
});

const exporter = new InMemorySpanExporter();
let tracing: Tracing | undefined;
beforeAll(async () => {
  tracing = await startTracing({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
});
afterAll(async () => {
  await tracing?.shutdown();
});
beforeEach(() => exporter.reset());

const named = (spans: ReadableSpan[], name: string): ReadableSpan[] => spans.filter((s) => s.name === name);
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

/** The one calc.cycle under `request`, with its phases and store commit as children, all one trace. */
function expectCycleUnder(request: ReadableSpan, spans: ReadableSpan[]): void {
  const cycles = named(spans, 'calc.cycle').filter((s) => parentOf(s) === request.spanContext().spanId);
  expect(cycles).toHaveLength(1);
  const cycle = cycles[0]!;
  const cycleId = cycle.spanContext().spanId;
  const commits = named(spans, 'store.commit');
  expect(commits).toHaveLength(1);
  expect(parentOf(commits[0]!)).toBe(cycleId);
  const phases = spans.filter((s) => s.name.startsWith('calc.phase.'));
  expect(phases.map((s) => s.name)).toEqual([
    'calc.phase.validate',
    'calc.phase.write',
    'calc.phase.derive',
    'calc.phase.constraints',
    'calc.phase.effects',
  ]);
  for (const s of phases) expect(parentOf(s)).toBe(cycleId);
  for (const s of [cycle, ...commits, ...phases])
    expect(s.spanContext().traceId).toBe(request.spanContext().traceId);
}

describe('one mutate', () => {
  it('over REST: request span → calc.cycle → phases and store.commit', async () => {
    const t = await testApp();
    try {
      expect(
        (await t.app.inject({ method: 'POST', url: '/models', payload: orderSpec('m-trace') })).statusCode,
      ).toBe(201);
      exporter.reset();
      const res = await t.app.inject({
        method: 'POST',
        url: '/models/m-trace/mutations?token=secret',
        payload: { '$.items[0].price': 10, '$.items[0].qty': 2 },
      });
      expect(res.statusCode).toBe(200);
      const spans = exporter.getFinishedSpans();
      const requests = spans.filter((s) => s.kind === SpanKind.SERVER);
      expect(requests).toHaveLength(1);
      const request = requests[0]!;
      expect(request.name).toBe('POST /models/:id/mutations');
      expect(parentOf(request)).toBeUndefined();
      expect(request.attributes['http.response.status_code']).toBe(200);
      expect(request.attributes['url.path']).toBe('/models/m-trace/mutations'); // no query: no token
      expect(request.attributes[REQUEST_ID_ATTRIBUTE]).toEqual(expect.any(String));
      expectCycleUnder(request, spans);
    } finally {
      await t.close();
    }
  });

  it('a request carrying traceparent continues the caller’s trace', async () => {
    const t = await testApp();
    try {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      await t.app.inject({
        method: 'GET',
        url: '/health',
        headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      });
      const [request] = exporter.getFinishedSpans();
      expect(request?.spanContext().traceId).toBe(traceId);
      expect(parentOf(request!)).toBe('00f067aa0ba902b7');
    } finally {
      await t.close();
    }
  });

  it('over MCP without HTTP (as stdio): tools/call is the root, calc.cycle under it', async () => {
    const calc = new CalcService(new MemoryStore());
    const server = createMcpServer({ calc, guidanceTopics: [], groups: new Set(['calc']), modeLine: 'test' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'trace-test', version: '1' });
    try {
      await server.connect(serverSide);
      await client.connect(clientSide);
      await calc.createModel(orderSpec('m-stdio'));
      exporter.reset();
      const out = await client.callTool({
        name: 'mutate',
        arguments: { id: 'm-stdio', mutations: { '$.items[0].price': 10 } },
      });
      expect(out.isError).toBeFalsy();
      const spans = exporter.getFinishedSpans();
      const call = named(spans, 'tools/call mutate');
      expect(call).toHaveLength(1);
      expect(parentOf(call[0]!)).toBeUndefined();
      expectCycleUnder(call[0]!, spans);
    } finally {
      await client.close();
      await calc.close();
    }
  });

  it('over MCP (mcp --http): request span → tools/call → calc.cycle → phases and store.commit', async () => {
    const calc = new CalcService(new MemoryStore());
    const running = await serveHttp({
      host: '127.0.0.1',
      port: 0,
      allowedOrigins: [],
      log: () => {},
      createServer: () =>
        createMcpServer({ calc, guidanceTopics: [], groups: new Set(['calc']), modeLine: 'test' }),
    });
    const client = new Client({ name: 'trace-test', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
      await calc.createModel(orderSpec('m-mcp'));
      exporter.reset();
      const out = await client.callTool({
        name: 'mutate',
        arguments: { id: 'm-mcp', mutations: { '$.items[0].price': 10, '$.items[0].qty': 2 } },
      });
      expect(out.isError).toBeFalsy();
      await client.close();
      // the request span ends when its response closes
      await expect.poll(() => named(exporter.getFinishedSpans(), 'calc.cycle').length).toBe(1);
      const spans = exporter.getFinishedSpans();
      const call = named(spans, 'tools/call mutate');
      expect(call).toHaveLength(1);
      expect(call[0]!.attributes).toMatchObject({ 'gen_ai.tool.name': 'mutate' });
      const request = spans.find((s) => s.spanContext().spanId === parentOf(call[0]!));
      expect(request?.kind).toBe(SpanKind.SERVER);
      expect(request?.name).toBe('POST /mcp');
      expectCycleUnder(call[0]!, spans);
    } finally {
      await client.close();
      await running.close();
      await calc.close();
    }
  });
});
