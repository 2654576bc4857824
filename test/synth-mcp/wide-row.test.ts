// The widest row a model can ask for, against real server processes (the built CLI): the MCP
// server over stdio in embedded mode and `modelworks synth serve` over HTTP. Each refuses it as an
// invalid model naming MODELWORKS_SYNTH_MAX_COLUMNS, its peak memory stays near where it was
// (it used to grow by several GB and die), and it answers the next request. Peak memory is the
// kernel's high-water mark of the child (VmHWM), so the test runs where /proc is.
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSynth, startService, type Json, type ServiceChild, type SynthPeer } from './helpers.js';

const WIDEST = `dataset.seed = 7\ndataset.root = W\nW = Redimension(N, dimension=2147483647)\nN = Normal()\n`;
const WIDE = WIDEST.replace('2147483647', '50000000');
const MiB = 1024 * 1024;

function peakOf(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

describe.skipIf(!existsSync('/proc/self/status'))('the widest row, on real servers', () => {
  let peer: SynthPeer;
  let service: ServiceChild;
  beforeAll(async () => {
    peer = await connectSynth();
    service = await startService(['--port', '0']);
  });
  afterAll(async () => {
    await peer?.close();
    await service?.stop();
  });

  it('the MCP server refuses it without growing, and keeps answering', async () => {
    await peer.ok('generate', { modelText: WIDEST.replace('2147483647', '3'), count: 10 });
    const before = peakOf(peer.pid()!);
    for (const modelText of [WIDEST, WIDE]) {
      const r = await peer.call('generate', { modelText, count: 1 });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toMatchObject({ code: 'MODEL_INVALID' });
      expect(r.structuredContent!.error).toMatch(
        /over this server's limit of 10000 \(MODELWORKS_SYNTH_MAX_COLUMNS\)/,
      );
    }
    expect(peakOf(peer.pid()!) - before).toBeLessThan(64 * MiB);
    expect((await peer.ok('list_components', { name: 'Normal' })).totalCount).toBe(1);
  });

  it('the synth Service refuses it without growing, and keeps answering', async () => {
    const post = async (path: string, body: unknown): Promise<{ status: number; body: Json }> => {
      const res = await fetch(service.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const warm = await post('/v1/models', { modelText: WIDEST.replace('2147483647', '3') });
    expect((await post('/v1/generate', { modelId: warm.body.modelId, count: 10 })).status).toBe(200);
    const before = peakOf(service.child.pid!);
    for (const modelText of [WIDEST, WIDE]) {
      const r = await post('/v1/models', { modelText });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('MODEL_INVALID');
      expect(r.body.error.message).toContain('MODELWORKS_SYNTH_MAX_COLUMNS');
    }
    expect(peakOf(service.child.pid!) - before).toBeLessThan(64 * MiB);
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
  });
});
