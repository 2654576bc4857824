// Custom components over MCP: the operator's folder allowlist reaches get_allowlists, and model
// text whose <custom> classes live in an allowed folder generates the same bytes as grind.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSynth, grindBytes, readAll, root, type Json, type SynthPeer } from './helpers.js';

const DIR = join(root, 'examples', 'synth', 'custom');
const SENSOR = readFileSync(join(DIR, 'sensor.xml'), 'utf8');
const ENV = 'MODELWORKS_SYNTH_CUSTOM_COMPONENT_DIR_ALLOWLIST';

describe('custom components through the MCP tools (embedded)', () => {
  let peer: SynthPeer;
  beforeAll(async () => {
    peer = await connectSynth({ [ENV]: DIR });
  });
  afterAll(async () => {
    await peer?.close();
  });

  const listed = async (): Promise<Json[]> => (await peer.ok('list_components')).components as Json[];

  it('get_allowlists reports the folders; generate matches grind byte for byte', async () => {
    expect((await peer.ok('get_allowlists')).customComponentDirAllowlist).toEqual([DIR]);
    // not listed until a model has loaded it
    expect((await listed()).map((c) => c.name)).not.toContain('SineWave');
    expect(await peer.ok('validate_model', { modelText: SENSOR })).toMatchObject({ valid: true });
    const custom = (await listed()).filter((c) => c.custom === true);
    expect(custom.map((c) => c.name)).toEqual(['SineWave', 'Clamp']);
    const byName = await peer.ok('list_components', { name: 'sinewave' });
    expect(byName).toMatchObject({ totalCount: 1, components: [{ name: 'SineWave', custom: true }] });
    const g = await peer.ok('generate', { modelText: SENSOR, count: 300, seed: 5, previewLimit: 10 });
    const text = (await readAll(peer, g)).text;
    expect(text).toBe(await grindBytes(SENSOR, ['--seed', '5', '--count', '300'], { [ENV]: DIR }));
  });
});

describe('custom components without an allowed folder', () => {
  it('validate_model reports the refusal as its load error', async () => {
    const peer = await connectSynth();
    try {
      const r = await peer.ok('validate_model', { modelText: SENSOR });
      expect(r).toMatchObject({ valid: false });
      expect(r.loadError).toContain(`no folder is allowed for custom components; set ${ENV}`);
      expect((await peer.ok('get_allowlists')).customComponentDirAllowlist).toEqual([]);
      // a refused module was never loaded, so it is not listed
      const names = ((await peer.ok('list_components')).components as Json[]).map((c) => c.name);
      expect(names).not.toContain('SineWave');
    } finally {
      await peer.close();
    }
  });
});
