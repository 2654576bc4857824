// The model-card tools as the seed gives them, through a real SDK Client: capability gating,
// render_model (limits, tests must pass, rejected inputs), valem_recompute (spec_unknown retry),
// explain_value, show_model + valem_card_edit on a stored model, and share links.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { CardRunner, MAX_EXPRESSIONS, specHash } from '../../src/service/card-runner.js';
import { decodeSharePayload, MAX_LINK_CHARS, shareLinkBuilder } from '../../src/service/share-links.js';
import { carLoan, linked, type Linked } from './helpers.js';

let peer: Linked | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

const CARD_TOOLS = [
  'valem_spec_guide',
  'render_model',
  'explain_value',
  'valem_recompute',
  'show_model',
  'valem_card_edit',
];

describe('capability gating', () => {
  it('offers the card to a client advertising the UI extension: _meta.ui on tools, app-only tools, the resource', async () => {
    peer = await linked();
    const { tools } = await peer.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of CARD_TOOLS) expect(byName.has(name), name).toBe(true);
    expect(byName.get('render_model')!._meta).toMatchObject({
      ui: { resourceUri: 'ui://valem/model-card.html', visibility: ['model', 'app'] },
    });
    expect(byName.get('valem_recompute')!._meta).toMatchObject({ ui: { visibility: ['app'] } });
    expect(byName.get('valem_card_edit')!._meta).toMatchObject({ ui: { visibility: ['app'] } });
    const { resources } = await peer.client.listResources();
    expect(resources).toContainEqual(
      expect.objectContaining({ uri: 'ui://valem/model-card.html', mimeType: 'text/html;profile=mcp-app' }),
    );
    const r = await peer.call('render_model', { spec: carLoan() });
    expect(r._meta?.['valem/card']).toMatchObject({
      mode: 'stateless',
      specHash: r.structuredContent!.specHash,
    });
  });

  it('treats a client with no extensions map as a card host', async () => {
    peer = await linked({ capabilities: {} });
    const names = (await peer.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(CARD_TOOLS));
  });

  it('gives a client listing other extensions a text-only render_model and no card tools', async () => {
    peer = await linked({ capabilities: { extensions: { 'example.com/other': {} } } });
    const { tools } = await peer.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['valem_spec_guide', 'render_model', 'explain_value']));
    for (const hidden of ['valem_recompute', 'show_model', 'valem_card_edit'])
      expect(names).not.toContain(hidden);
    expect(tools.find((t) => t.name === 'render_model')!._meta).toBeUndefined();
    const r = await peer.call('render_model', { spec: carLoan() });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent!.outputs['$.monthlyPayment']).toBe(480.78);
    expect(r._meta?.['valem/card']).toBeUndefined();
    const refused = await peer.call('valem_recompute', { specHash: 'x', inputs: {} });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toContain("Unknown tool: 'valem_recompute'");
    expect((await peer.client.listResources()).resources.map((r) => r.uri)).not.toContain(
      'ui://valem/model-card.html',
    );
  });
});

describe('render_model', () => {
  it('validates, computes and returns the seed shape with the card payload and its graph', async () => {
    peer = await linked();
    const spec = carLoan();
    const r = await peer.call('render_model', { spec, inputs: { '$.deposit': 6000 } });
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent!;
    expect(Object.keys(s).sort()).toEqual(
      ['modelId', 'version', 'specHash', 'inputs', 'outputs', 'flags', 'warnings'].sort(),
    );
    expect(s).toMatchObject({ modelId: 'car-loan-calculator', version: '1.0.0', specHash: specHash(spec) });
    expect(s.inputs).toMatchObject({ '$.deposit': 6000, '$.vehiclePrice': 24000, '$.years': 4 });
    expect(s.outputs['$.amountFinanced']).toBe(18000);
    expect(JSON.parse(r.content[0]!.text!)).toEqual(s);
    const card = r._meta!['valem/card'];
    expect(card.given).toEqual({ '$.deposit': 6000 });
    expect(card.views.map((v: { viewId: string }) => v.viewId)).toEqual(['loan']);
    expect(card.graph.nodes).toContainEqual(
      expect.objectContaining({ key: '$.monthlyPayment', kind: 'DERIVED', label: 'Monthly payment' }),
    );
    expect(card.graph.edges).toContainEqual({ from: '$.amountFinanced', to: '$.monthlyPayment' });
  });

  it('falls back to the defaults for inputs a rollback rule or the schema rejects, and lists them', async () => {
    peer = await linked();
    const r = await peer.call('render_model', {
      spec: carLoan(),
      inputs: { '$.deposit': 30000, '$.years': 20, '$.annualRatePercent': 5 },
    });
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent!;
    expect(s.inputs).toMatchObject({ '$.deposit': 4000, '$.years': 4, '$.annualRatePercent': 5 });
    expect(s.rejectedInputs.map((x: { path: string }) => x.path).sort()).toEqual(['$.deposit', '$.years']);
    const reasons = Object.fromEntries(
      s.rejectedInputs.map((x: { path: string; reason: string }) => [x.path, x.reason]),
    );
    expect(reasons['$.deposit']).toContain('deposit cannot exceed');
    expect(reasons['$.years']).toMatch(/10/);
    expect(r._meta!['valem/card'].given).toEqual({ '$.annualRatePercent': 5 });
  });

  it('keeps inputs whose order alone would trip a rollback rule', async () => {
    peer = await linked();
    const r = await peer.call('render_model', {
      spec: carLoan(),
      inputs: { '$.deposit': 30000, '$.vehiclePrice': 40000 },
    });
    expect(r.structuredContent!.rejectedInputs).toBeUndefined();
    expect(r.structuredContent!.outputs['$.amountFinanced']).toBe(10000);
  });

  it('reports flag rules failing now', async () => {
    peer = await linked();
    const r = await peer.call('render_model', {
      spec: carLoan(),
      inputs: { '$.annualRatePercent': 30, '$.years': 10 },
    });
    expect(r.structuredContent!.flags).toEqual([
      { constraintId: 'long-expensive-loan', message: expect.any(String), policy: 'flag' },
    ]);
  });

  it('answers an invalid spec with {valid:false, errors}', async () => {
    peer = await linked();
    const spec = carLoan();
    spec.derivations[0].expr = '$max([vehiclePrice - ';
    const r = await peer.call('render_model', { spec });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({
      valid: false,
      errors: [expect.objectContaining({ location: expect.any(String) })],
    });
  });

  it('treats a failing embedded test as an error', async () => {
    peer = await linked();
    const spec = carLoan();
    spec.tests[0].expect['$.monthlyPayment'] = 999;
    const r = await peer.call('render_model', { spec });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ valid: false });
    expect(r.structuredContent!.errors[0]).toMatchObject({
      location: 'tests[0]',
      message: expect.stringContaining('failed'),
    });
  });

  it('refuses a spec over 64 KB and one over 200 expressions, and one without views', async () => {
    peer = await linked();
    const big = carLoan();
    big._description = 'x'.repeat(64 * 1024);
    const r1 = await peer.call('render_model', { spec: big });
    expect(r1.isError).toBe(true);
    expect(r1.structuredContent!.errors[0].message).toMatch(/at most 65536/);

    const many = carLoan();
    many.tests = [];
    for (let i = 0; i < MAX_EXPRESSIONS; i++) many.derivations.push({ path: `$.d${i}`, expr: `${i} + 1` });
    const r2 = await peer.call('render_model', { spec: many });
    expect(r2.isError).toBe(true);
    expect(r2.structuredContent!.errors[0].message).toMatch(/expressions; a card takes at most 200/);
    many.derivations.splice(-9); // 6 rules + 191 + 2 constraints = 199 expressions
    const r3 = await peer.call('render_model', { spec: many });
    expect(r3.isError, JSON.stringify(r3.structuredContent)).toBeFalsy();

    const bare = carLoan();
    delete bare.viewDefinition;
    const r4 = await peer.call('render_model', { spec: bare });
    expect(r4.structuredContent!.errors[0]).toMatchObject({ location: 'viewDefinition' });
  });
});

describe('valem_recompute and explain_value', () => {
  it('recomputes with the inputs on screen, and reports a refused edit as rejected with issues', async () => {
    peer = await linked();
    const r = await peer.call('render_model', { spec: carLoan() });
    const hash = r.structuredContent!.specHash as string;
    const ok = await peer.call('valem_recompute', { specHash: hash, inputs: { '$.deposit': 8000 } });
    expect(ok.structuredContent).toMatchObject({
      specHash: hash,
      state: { amountFinanced: 16000 },
      flags: [],
    });
    expect(
      ok.structuredContent!.views[0].components.find((c: { id: string }) => c.id === 'payment').value,
    ).toBe(ok.structuredContent!.state.monthlyPayment);
    const rollback = await peer.call('valem_recompute', { specHash: hash, inputs: { '$.deposit': 90000 } });
    expect(rollback.isError).toBeFalsy();
    expect(rollback.structuredContent).toEqual({
      specHash: hash,
      rejected: true,
      issues: [
        { constraintId: 'deposit-within-price', message: 'The deposit cannot exceed the vehicle price' },
      ],
    });
    const schema = await peer.call('valem_recompute', { specHash: hash, inputs: { '$.years': 'four' } });
    expect(schema.structuredContent).toMatchObject({ rejected: true, issues: [{ path: '$.years' }] });
  });

  it('answers spec_unknown once the cache has dropped the spec (one hour idle), then works with the spec attached', async () => {
    let now = 0;
    const runner = new CardRunner({ now: () => now });
    peer = await linked({ runner });
    const spec = carLoan();
    const hash = (await peer.call('render_model', { spec })).structuredContent!.specHash as string;
    now += 59 * 60 * 1000;
    expect((await peer.call('valem_recompute', { specHash: hash, inputs: {} })).isError).toBeFalsy();
    now += 60 * 60 * 1000 + 1; // an hour idle since that use
    const gone = await peer.call('valem_recompute', { specHash: hash, inputs: { '$.years': 5 } });
    expect(gone.isError).toBe(true);
    expect(gone.structuredContent).toMatchObject({ error: 'spec_unknown', specHash: hash });
    const again = await peer.call('valem_recompute', { specHash: hash, inputs: { '$.years': 5 }, spec });
    expect(again.structuredContent).toMatchObject({ specHash: hash, state: { payments: 60 } });
    const why = await peer.call('explain_value', { specHash: 'nope', path: '$.total' });
    expect(why.structuredContent).toMatchObject({ error: 'spec_unknown' });
  });

  it('keeps at most 200 compiled specs, dropping the least recently used', async () => {
    const runner = new CardRunner();
    const tiny = (i: number) => ({
      id: `t${i}`,
      schema: {},
      derivations: [{ path: '$.x', expr: `${i}` }],
      viewDefinition: { views: [{ id: 'v', components: [{ id: 'x', type: 'label', bind: '$.x' }] }] },
    });
    const first = await runner.compile(tiny(0));
    for (let i = 1; i < 200; i++) await runner.compile(tiny(i));
    expect(runner.size()).toBe(200);
    expect(runner.lookup(first.specHash)).toBeDefined(); // touched: now the most recent
    await runner.compile(tiny(200));
    expect(runner.size()).toBe(200);
    expect(runner.lookup(first.specHash)).toBeDefined();
    expect(runner.lookup(specHash(tiny(1)))).toBeUndefined();
  });

  it('explain_value answers with the seed shape and a one-line text', async () => {
    peer = await linked();
    const spec = carLoan();
    const hash = (await peer.call('render_model', { spec })).structuredContent!.specHash;
    const r = await peer.call('explain_value', {
      specHash: hash,
      path: '$.monthlyPayment',
      inputs: { '$.deposit': 0 },
    });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      path: '$.monthlyPayment',
      kind: 'computed',
      label: 'Monthly payment',
      value: 576.94,
      expression: expect.stringContaining('$payment'),
    });
    expect(r.structuredContent!.inputs).toContainEqual(
      expect.objectContaining({ path: '$.amountFinanced', value: 24000 }),
    );
    expect(r.structuredContent!.baseInputs).toContainEqual(
      expect.objectContaining({ path: '$.deposit', value: 0 }),
    );
    expect(r.content[0]!.text).not.toContain('\n');
    expect(r.content[0]!.text).toContain('Monthly payment ($.monthlyPayment) = 576.94');
    const input = await peer.call('explain_value', { specHash: hash, path: '$.deposit' });
    expect(input.structuredContent).toMatchObject({ kind: 'input', value: 4000 });
    const unknown = await peer.call('explain_value', { specHash: hash, path: '$.nothing' });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]!.text).toContain('$.monthlyPayment');
  });

  it('valem_spec_guide returns the guides and card notes as one text', async () => {
    peer = await linked();
    const r = await peer.call('valem_spec_guide');
    const text = r.content[0]!.text!;
    expect(text).toContain('# The view system');
    expect(text).toContain('Model cards');
    expect(text).toContain('spec_unknown');
  });
});

describe('show_model and valem_card_edit on a stored model', () => {
  it('edits are mutations (get_state, explain and the audit trail see them); refusals leave the model alone', async () => {
    peer = await linked();
    await peer.call('create_model', { spec: carLoan() });
    const shown = await peer.call('show_model', { id: 'car-loan-calculator' });
    expect(shown.isError).toBeFalsy();
    expect(Object.keys(shown.structuredContent!).sort()).toEqual(['flags', 'modelId', 'outputs', 'version']);
    expect(shown.structuredContent!.outputs['$.monthlyPayment']).toBe(480.78);
    const card = shown._meta!['valem/card'];
    expect(card).toMatchObject({ mode: 'stored', modelId: 'car-loan-calculator' });
    // the card's graph is what CalcService.getGraph (GET /models/{id}/graph) answers
    expect(card.graph).toEqual(await peer.calc.getGraph('car-loan-calculator'));
    expect(card.graph).toMatchObject({ modelId: 'car-loan-calculator', levels: expect.any(Array) });
    const hash = card.specHash as string;

    const read = await peer.call('valem_card_edit', { id: 'car-loan-calculator', specHash: hash });
    expect(read.structuredContent).toMatchObject({ specHash: hash, state: { deposit: 4000 } });
    expect(read.structuredContent!.spec).toBeUndefined();

    const edit = await peer.call('valem_card_edit', {
      id: 'car-loan-calculator',
      specHash: hash,
      mutations: { '$.deposit': 10000 },
    });
    expect(edit.structuredContent).toMatchObject({
      specHash: hash,
      state: { deposit: 10000, amountFinanced: 14000 },
    });
    const state = await peer.call('get_state', { id: 'car-loan-calculator', paths: ['$.amountFinanced'] });
    expect(state.structuredContent).toEqual({ amountFinanced: 14000 });
    // the agent's own write through MCP; the audit trail tells the two apart (issue 42)
    await peer.call('mutate', { id: 'car-loan-calculator', mutations: { '$.years': 5 } });
    const audit = await peer.call('get_audit', { id: 'car-loan-calculator' });
    const records = JSON.parse(audit.content[0]!.text!) as { source: string; mutations: object }[];
    expect(records.slice(0, 2).map((r) => [r.source, r.mutations])).toEqual([
      ['agent', { '$.years': 5 }],
      ['person', { '$.deposit': 10000 }],
    ]);
    const traces = JSON.parse(
      (await peer.call('explain', { id: 'car-loan-calculator', path: '$.amountFinanced' })).content[0]!.text!,
    );
    expect(traces.at(-1).result).toBe(14000);

    const refused = await peer.call('valem_card_edit', {
      id: 'car-loan-calculator',
      specHash: hash,
      mutations: { '$.deposit': 99999 },
    });
    expect(refused.structuredContent).toMatchObject({
      specHash: hash,
      rejected: true,
      issues: [{ constraintId: 'deposit-within-price' }],
    });
    expect(
      (await peer.call('get_field', { id: 'car-loan-calculator', path: '$.deposit' })).content[0]!.text,
    ).toBe('10000');
  });

  it('sends the spec and graph back when evolve_spec changed the model since the card opened', async () => {
    peer = await linked();
    await peer.call('create_model', { spec: carLoan() });
    const hash = (await peer.call('show_model', { id: 'car-loan-calculator' }))._meta!['valem/card'].specHash;
    const evolved = await peer.call('evolve_spec', {
      id: 'car-loan-calculator',
      evolution: { upsertDerivations: [{ path: '$.payments', expr: 'years * 12 + 0' }] },
    });
    expect(evolved.isError, evolved.content[0]!.text).toBeFalsy();
    const r = await peer.call('valem_card_edit', { id: 'car-loan-calculator', specHash: hash });
    expect(r.structuredContent!.specHash).not.toBe(hash);
    expect(r.structuredContent!.spec.derivations).toContainEqual(
      expect.objectContaining({ path: '$.payments', expr: 'years * 12 + 0' }),
    );
    expect(r.structuredContent!.graph.nodes).toContainEqual(
      expect.objectContaining({ expression: 'years * 12 + 0' }),
    );
  });

  it('refuses a model without a viewDefinition, naming evolve_spec', async () => {
    peer = await linked();
    const spec = carLoan();
    delete spec.viewDefinition;
    await peer.call('create_model', { spec });
    const r = await peer.call('show_model', { id: 'car-loan-calculator' });
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toContain('evolve_spec');
  });
});

describe('share links', () => {
  const links = shareLinkBuilder('http://models.test/');

  it('render_model and valem_recompute(share) carry links whose payload is the spec and the values on screen', async () => {
    peer = await linked({ shareLinks: links });
    const spec = carLoan();
    const r = await peer.call('render_model', { spec, inputs: { '$.deposit': 5000 } });
    const s = r.structuredContent!;
    expect(s.shareUrl).toMatch(/^http:\/\/models\.test\/share\/card\?m=[A-Za-z0-9_-]+$/);
    expect(s.embedUrl).toMatch(/^http:\/\/models\.test\/share\/embed\?m=/);
    const payload = decodeSharePayload(new URL(s.shareUrl).searchParams.get('m')!);
    expect(payload).toEqual({ spec, inputs: { '$.deposit': 5000 } });
    expect(r._meta!['valem/card'].canShare).toBe(true);
    const again = await peer.call('valem_recompute', {
      specHash: s.specHash,
      inputs: { '$.years': 6 },
      share: true,
    });
    const later = decodeSharePayload(new URL(again.structuredContent!.shareUrl).searchParams.get('m')!);
    expect(later!.inputs).toEqual({ '$.years': 6 });
  });

  it('drops a link over 8,000 characters', async () => {
    peer = await linked({ shareLinks: links });
    const spec = carLoan();
    spec._description = randomBytes(9000).toString('base64'); // incompressible
    const r = await peer.call('render_model', { spec });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent!.shareUrl).toBeUndefined();
    expect(r.structuredContent!.embedUrl).toBeUndefined();
    expect(links.shareUrl({ spec: carLoan(), inputs: {} })!.length).toBeLessThanOrEqual(MAX_LINK_CHARS);
  });
});
