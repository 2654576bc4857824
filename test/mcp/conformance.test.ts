// The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.13) against
// `modelworks mcp --http`. Every failure must be listed, with its reason, in
// test/conformance-baseline.yml; an unexpected failure or a stale baseline entry fails this test.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectConformance } from './helpers/conformance.js';
import { root, startHttpServer, type HttpServerChild } from './helpers/peers.js';

describe('MCP conformance suite', () => {
  let server: HttpServerChild;
  beforeAll(async () => {
    server = await startHttpServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('passes every scenario not in the baseline, and every baseline entry still fails', async () => {
    const stdout = await expectConformance(server.url, join(root, 'test/conformance-baseline.yml'));
    const total = /Total: (\d+) passed, (\d+) failed/.exec(stdout);
    expect(total, stdout).not.toBeNull();
    expect(Number(total![1])).toBeGreaterThanOrEqual(13);
  }, 150_000);
});
