// `--edition free` for `modelworks mcp` and `modelworks synth serve`: the same gates as
// `grind --edition free` (the engine's load phase), and list_components reporting the edition.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SynthService } from '../../src/service/synth-service.js';
import { validateModelText } from '../../src/synth/validate/validator.js';
import { connectSynth, startService, type Json, type ServiceChild, type SynthPeer } from './helpers.js';

const PRO = '<dataset><root node="N"/><nodes><SSN name="N"/></nodes></dataset>';
const FREE = '<dataset><root node="U"/><nodes><Uniform name="U" min="0" max="1"/></nodes></dataset>';
const FREE_GATE = validateModelText(PRO, { edition: 'free' }).loadError!;

describe('SynthService with edition free', () => {
  it('lists only Free components and gates models as grind --edition free does', async () => {
    const free = new SynthService({ edition: 'free', allowlists: () => EMPTY });
    const full = new SynthService({ allowlists: () => EMPTY });
    try {
      const listed = free.components();
      expect(listed.edition).toBe('Free');
      expect(listed.components.every((c) => c.edition === 'Free')).toBe(true);
      expect(listed.totalCount).toBeLessThan(full.components().totalCount);
      expect(full.components().edition).toBe('Pro');
      expect(() => free.components({ name: 'SSN' })).toThrow(/unknown component 'SSN'/);
      expect(FREE_GATE).toBeDefined();
      expect(await free.validate(PRO)).toMatchObject({ valid: false, loadError: FREE_GATE });
      expect((await full.validate(PRO)).valid).toBe(true);
      await expect(free.generateEmbedded(PRO, { count: 1 })).rejects.toMatchObject({ code: 'MODEL_INVALID' });
      expect((await free.generateEmbedded(FREE, { count: 2, seed: 1 })).totalCount).toBe(2);
    } finally {
      await free.close();
      await full.close();
    }
  });
});

const EMPTY = {
  flatFilePathAllowlist: [],
  databaseUrlAllowlist: [],
  databaseAllowQuery: false,
  serviceUrlAllowlist: [],
};

describe('modelworks mcp --edition free', () => {
  let peer: SynthPeer;
  beforeAll(async () => {
    peer = await connectSynth({}, ['--tools', 'synth', '--edition', 'free']);
  });
  afterAll(async () => {
    await peer?.close();
  });

  it('list_components reports Free; a Pro model is refused as under grind --edition free', async () => {
    const listed = await peer.ok('list_components');
    expect(listed.edition).toBe('Free');
    expect((listed.components as Json[]).every((c) => c.edition === 'Free')).toBe(true);
    expect(await peer.ok('validate_model', { modelText: PRO })).toMatchObject({
      valid: false,
      loadError: FREE_GATE,
    });
    const refused = await peer.call('generate', { modelText: PRO, count: 1 });
    expect(refused.structuredContent).toMatchObject({ code: 'MODEL_INVALID' });
    expect((await peer.ok('generate', { modelText: FREE, count: 1, seed: 1 })).totalCount).toBe(1);
  });
});

describe('modelworks synth serve --edition free', () => {
  let service: ServiceChild;
  beforeAll(async () => {
    service = await startService(['--port', '0', '--edition', 'free']);
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('lists Free components and refuses a Pro model at registration', async () => {
    expect(service.stderr()).toContain('(Free edition)');
    const listed = (await (await fetch(`${service.url}/v1/components`)).json()) as Json;
    expect(listed.edition).toBe('Free');
    const pro = await fetch(`${service.url}/v1/models`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ modelText: PRO }),
    });
    expect(pro.status).toBe(422);
    expect(((await pro.json()) as Json).error.code).toBe('MODEL_INVALID');
    const plain = await fetch(`${service.url}/v1/models`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ modelText: FREE }),
    });
    expect(plain.status).toBe(201);
  });
});
