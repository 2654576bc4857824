// The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, the newest release
// that runs on Node 20, there with a resolve hook) against `modelworks mcp --http`, pending
// scenarios included, with the fixtures that exercise our own behaviour switched on
// (MODELWORKS_MCP_CONFORMANCE_FIXTURES=1). Every failure must be listed, with its reason, in
// test/conformance-baseline.yml; an unexpected failure or a stale baseline entry fails this test.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectConformance } from './helpers/conformance.js';
import { root, serverEnv, startHttpServer, type HttpServerChild } from './helpers/peers.js';

describe('MCP conformance suite', () => {
  let server: HttpServerChild;
  beforeAll(async () => {
    server = await startHttpServer({ ...serverEnv, MODELWORKS_MCP_CONFORMANCE_FIXTURES: '1' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('passes every scenario not in the baseline, and every baseline entry still fails', async () => {
    const { stdout, checks } = await expectConformance(
      server.url,
      join(root, 'test/conformance-baseline.yml'),
      'all',
    );
    const total = /Total: (\d+) passed, (\d+) failed/.exec(stdout);
    expect(total, stdout).not.toBeNull();
    expect(Number(total![1])).toBeGreaterThanOrEqual(17);

    // resumable streams: a priming event with the retry hint, the stream closed mid-call, the
    // answer replayed on the GET that carries Last-Event-ID
    const polling = checks.get('server-sse-polling') ?? [];
    expect(polling.filter((c) => c.status !== 'SUCCESS' && c.status !== 'INFO')).toEqual([]);
    expect(polling.filter((c) => c.status === 'SUCCESS').map((c) => c.id)).toEqual([
      'server-sse-priming-event',
      'server-sse-retry-field',
      'server-sse-disconnect-resume',
    ]);
    for (const scenario of ['tools-call-with-progress', 'tools-call-with-logging', 'json-schema-2020-12'])
      expect(
        checks.get(scenario)?.every((c) => c.status === 'SUCCESS' || c.status === 'INFO'),
        scenario,
      ).toBe(true);
  }, 150_000);
});
