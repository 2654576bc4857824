// A host configured the way SpiceGrinder's documentation says (CONNECTING A HOST: only
// SPICEGRINDER_MCP_* variables) reaches the Service it names: a real `modelworks synth serve` and
// a real `modelworks mcp` child, the generation checked on the Service itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp } from '../mcp/helpers/peers.js';
import { startAnnounced } from '../helpers/child.js';
import { describeAliases, withSeedAliases } from '../../src/mcp/synth-env-aliases.js';
import {
  childEnv,
  cli,
  connectSynth,
  root,
  startService,
  SUPPORT_QUEUE,
  type Json,
  type ServiceChild,
} from './helpers.js';

const TOKEN = 'seed-config-token';

async function serviceGet(service: ServiceChild, path: string): Promise<{ status: number; body: Json }> {
  const r = await fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return { status: r.status, body: (await r.json()) as Json };
}

describe('SPICEGRINDER_MCP_* settings as aliases of ours', () => {
  it('fills our names from the aliases, ours winning, and says which were used', () => {
    const a = withSeedAliases({
      SPICEGRINDER_MCP_SERVICE_URL: 'http://seed:8085',
      SPICEGRINDER_MCP_GENERATE_MODE: 'proxy',
      MODELWORKS_SYNTH_GENERATE_MODE: 'embedded',
      SPICEGRINDER_MCP_HTTP_PORT: '  ',
    });
    expect(a.env.MODELWORKS_SYNTH_SERVICE_URL).toBe('http://seed:8085');
    expect(a.env.MODELWORKS_SYNTH_GENERATE_MODE).toBe('embedded');
    expect(a.env.MODELWORKS_MCP_HTTP_PORT).toBeUndefined();
    expect(describeAliases(a)).toBe(
      'using SpiceGrinder setting SPICEGRINDER_MCP_SERVICE_URL (as MODELWORKS_SYNTH_SERVICE_URL); ' +
        'ignoring SPICEGRINDER_MCP_GENERATE_MODE (MODELWORKS_SYNTH_GENERATE_MODE is set)',
    );
    expect(describeAliases(withSeedAliases({ MODELWORKS_SYNTH_SERVICE_URL: 'http://x' }))).toBeUndefined();
  });
});

describe("a host configured from the seed's CONNECTING A HOST section", () => {
  let service: ServiceChild;
  beforeAll(async () => {
    service = await startService(['--port', '0'], { MODELWORKS_SYNTH_SERVICE_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('Claude Desktop env (service URL and token only) generates on that Service', async () => {
    const peer = await connectSynth({
      SPICEGRINDER_MCP_SERVICE_URL: service.url,
      SPICEGRINDER_MCP_SERVICE_TOKEN: TOKEN,
    });
    try {
      const g = await peer.ok('generate', { modelText: SUPPORT_QUEUE, count: 20, seed: 7 });
      expect(g.generationId).toMatch(/^g-[0-9a-f]{16}$/);
      // the Service itself knows the registration and the generation: not generated in-process
      const models = (await serviceGet(service, '/v1/models')).body.models as Json[];
      expect(models.map((m) => m.modelId)).toContain(g.modelId);
      const meta = await serviceGet(service, `/v1/generate/${g.generationId as string}`);
      expect(meta.status).toBe(200);
      expect(meta.body).toMatchObject({ generationId: g.generationId, count: 20, seed: '7' });
      expect(peer.stderr()).toContain(
        'using SpiceGrinder settings SPICEGRINDER_MCP_SERVICE_URL (as MODELWORKS_SYNTH_SERVICE_URL), ' +
          'SPICEGRINDER_MCP_SERVICE_TOKEN (as MODELWORKS_SYNTH_SERVICE_TOKEN)',
      );
      expect(peer.stderr()).toContain('proxy mode');
    } finally {
      await peer.close();
    }
  });

  it('our setting wins over its alias, and the ignored alias is named', async () => {
    const peer = await connectSynth({
      SPICEGRINDER_MCP_SERVICE_URL: 'http://127.0.0.1:9',
      MODELWORKS_SYNTH_SERVICE_URL: service.url,
      SPICEGRINDER_MCP_SERVICE_TOKEN: TOKEN,
      SPICEGRINDER_MCP_GENERATE_MODE: 'proxy',
    });
    try {
      const g = await peer.ok('generate', { modelText: SUPPORT_QUEUE, count: 3, seed: 1 });
      expect(g.generationId).toMatch(/^g-/);
      expect(peer.stderr()).toContain(
        'ignoring SPICEGRINDER_MCP_SERVICE_URL (MODELWORKS_SYNTH_SERVICE_URL is set)',
      );
    } finally {
      await peer.close();
    }
  });

  it('embedded mode by the alias, and the alias size cap holds', async () => {
    const peer = await connectSynth({
      SPICEGRINDER_MCP_GENERATE_MODE: 'embedded',
      SPICEGRINDER_MCP_SERVICE_URL: service.url,
      SPICEGRINDER_MCP_EMBEDDED_MAX_BYTES: '1000',
    });
    try {
      const small = await peer.ok('generate', { modelText: SUPPORT_QUEUE, count: 3, seed: 1 });
      expect(small.generationId).toMatch(/^e-/);
      const big = await peer.call('generate', { modelText: SUPPORT_QUEUE, count: 5000, seed: 1 });
      expect(big.structuredContent).toMatchObject({ code: 'TOO_LARGE', maxBytes: 1000 });
    } finally {
      await peer.close();
    }
  });

  it('SPICEGRINDER_MCP_TRANSPORT=http with _HTTP_BIND/_PORT serves Streamable HTTP there', async () => {
    const server = await startAnnounced({
      args: [cli, 'mcp', '--tools', 'synth'],
      env: childEnv({
        SPICEGRINDER_MCP_TRANSPORT: 'http',
        SPICEGRINDER_MCP_GENERATE_MODE: 'embedded',
        SPICEGRINDER_MCP_HTTP_BIND: '127.0.0.1',
        SPICEGRINDER_MCP_HTTP_PORT: '0',
      }),
      cwd: root,
      announce: /MCP over Streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
      what: 'modelworks mcp (SpiceGrinder HTTP settings)',
    });
    try {
      const peer = await connectHttp(server.match[1]!);
      // synth results are compact JSON, so read structuredContent rather than the calc helper's ok()
      const g = await peer.call('generate', { modelText: SUPPORT_QUEUE, count: 2, seed: 3 });
      expect(g.isError).toBeFalsy();
      expect((g.structuredContent as Json).generationId).toMatch(/^e-/);
      await peer.close();
    } finally {
      await server.stop();
    }
  });
});
