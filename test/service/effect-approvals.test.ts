// Inherited effects from another owner wait for approval (issue 41; valem-parity.md §5.1 C8): a
// globex branch of acme's model inherits acme's server effect, which writes
// `effect_approval_required` to its status and calls nothing until globex approves it; a
// same-owner branch runs at once; an edit of an approved effect needs approving again; the
// `allow` and `deny` policies. A real loopback server stands for the effect's target.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CalcService } from '../../src/service/calc-service.js';
import { EffectRunner, ServerExecutor } from '../../src/service/effects/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { openStore } from '../../src/store/open-store.js';
import { testApp } from '../http/helpers.js';
import { tempDbPath, TEST_AUDIT_KEY_TEXT } from '../store/helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A loopback target recording the paths it was called on. */
async function sink(): Promise<{ origin: string; got: string[] }> {
  const got: string[] = [];
  const server = createServer((req, res) => {
    got.push(req.url ?? '');
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got };
}

function baseSpec(id: string, origin: string) {
  return {
    id,
    version: '1.0.0',
    schema: { type: 'object', properties: { n: { type: 'number' }, io: { type: 'object' } } },
    effects: [
      {
        id: 'exfil',
        executor: 'server',
        trigger: 'n > 0',
        dedupeKey: 'n',
        statusPath: '$.io.exfil',
        request: { method: 'POST', url: `${origin}/got/{n}`, body: { event: 'n' } },
        policy: { timeoutMs: 2000, retries: 0 },
      },
    ],
  };
}

async function setup(inheritedEffects?: 'approve' | 'allow' | 'deny') {
  const target = await sink();
  const calc = new CalcService(new MemoryStore(), inheritedEffects ? { inheritedEffects } : {});
  const executor = new ServerExecutor({ egressAllowlist: [target.origin], maxResponseBytes: 1024 });
  const runner = new EffectRunner(calc, { executors: [executor], warn: () => {} }).start();
  cleanups.push(() => runner.stop());
  await calc.createModel(baseSpec('acme/base', target.origin));
  const branch = async (id: string) =>
    calc.createModel({ id, version: '1.0.0', schema: {}, template: { ref: 'acme/base' } });
  const fire = async (id: string, n: number) => {
    await calc.mutate(id, { '$.n': n });
    await runner.idle();
    return ((await calc.getState(id)) as Json).io.exfil as Json;
  };
  return { calc, target, branch, fire };
}

describe('inherited effects from another owner', () => {
  it('C8: wait for approval, call nothing meanwhile, and run once approved', async () => {
    const { calc, target, branch, fire } = await setup();
    await branch('globex/quote');
    const pending = await calc.pendingEffects('globex/quote');
    expect(pending).toEqual([
      {
        effectId: 'exfil',
        executor: 'server',
        definitionHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        fromRef: 'acme/base',
        fromOwner: 'acme',
      },
    ]);
    const blocked = await fire('globex/quote', 3);
    expect(blocked.phase).toBe('blocked');
    expect(blocked.error).toMatch(/^effect_approval_required/);
    expect(target.got).toEqual([]);
    expect(await calc.approveEffect('globex/quote', 'exfil')).toEqual({
      id: 'globex/quote',
      effectId: 'exfil',
      approved: true,
    });
    expect(await calc.pendingEffects('globex/quote')).toEqual([]);
    expect((await fire('globex/quote', 8)).phase).toBe('applied');
    expect(target.got).toEqual(['/got/8']);
  });

  it('lets a same-owner branch and the model’s own effects run at once', async () => {
    const { calc, target, branch, fire } = await setup();
    await branch('acme/quote');
    expect(await calc.pendingEffects('acme/quote')).toEqual([]);
    expect((await fire('acme/quote', 5)).phase).toBe('applied');
    expect((await fire('acme/base', 6)).phase).toBe('applied');
    expect(target.got).toEqual(['/got/5', '/got/6']);
  });

  it('needs a new approval after the effect is edited', async () => {
    const { calc, target, branch, fire } = await setup();
    await branch('globex/quote');
    await calc.approveEffect('globex/quote', 'exfil');
    const spec = (await calc.getSpec('globex/quote')) as unknown as Json;
    const exfil = spec.effects[0] as Json;
    const edited = { ...exfil, request: { ...exfil.request, url: `${target.origin}/other/{n}` } };
    await calc.evolveSpec('globex/quote', { newVersion: '1.0.1', upsertEffects: [edited] });
    expect((await calc.pendingEffects('globex/quote')).map((p) => p.effectId)).toEqual(['exfil']);
    expect((await fire('globex/quote', 4)).phase).toBe('blocked');
    expect(target.got).toEqual([]);
  });

  it('follows the allow and deny policies', async () => {
    const allow = await setup('allow');
    await allow.branch('globex/quote');
    expect(await allow.calc.pendingEffects('globex/quote')).toEqual([]);
    expect((await allow.fire('globex/quote', 2)).phase).toBe('applied');
    const deny = await setup('deny');
    await deny.branch('globex/quote');
    await deny.calc.approveEffect('globex/quote', 'exfil');
    expect((await deny.fire('globex/quote', 2)).phase).toBe('blocked');
    expect(deny.target.got).toEqual([]);
  });
});

describe('an approval kept with the model', () => {
  it('is one audited change in the stored spec, seen by every process on the store, never inherited', async () => {
    const file = `sqlite:${tempDbPath()}`;
    const env = { ...process.env, MODELWORKS_AUDIT_KEY: TEST_AUDIT_KEY_TEXT };
    const [one, two] = [
      new CalcService(await openStore(file, env)),
      new CalcService(await openStore(file, env)),
    ];
    cleanups.push(async () => {
      await one.close();
      await two.close();
    });
    await one.createModel(baseSpec('acme/base', 'http://127.0.0.1:9'));
    await one.createModel({ id: 'globex/quote', schema: {}, template: { ref: 'acme/base' } });
    expect((await two.pendingEffects('globex/quote')).map((p) => p.effectId)).toEqual(['exfil']);
    const before = (await two.getModelInfo('globex/quote')).revision;

    await one.approveEffect('globex/quote', 'exfil');
    // the other process (and a restart) sees it: it is in the store, not in one process's memory
    expect(await two.pendingEffects('globex/quote')).toEqual([]);
    expect((await two.getModelInfo('globex/quote')).revision).toBe(before + 1);
    const [record] = await two.getAudit('globex/quote', { limit: 1 });
    const origin = (await two.getSpec('globex/quote')).effects[0]!.origin as Json;
    expect(record).toMatchObject({
      source: 'approval',
      origin: { effectId: 'exfil', definitionHash: origin.approved.definitionHash },
      mutations: {},
    });
    expect(origin).toMatchObject({
      fromRef: 'acme/base',
      fromOwner: 'acme',
      approved: { at: expect.any(String) },
    });
    expect(await two.verifyAudit('globex/quote')).toMatchObject({ valid: true });
    // approving again changes nothing: no second record
    await two.approveEffect('globex/quote', 'exfil');
    expect((await one.getModelInfo('globex/quote')).revision).toBe(before + 1);

    // a branch of the approved model is another owner's: it approves for itself
    await two.createModel({ id: 'initech/quote', schema: {}, template: { ref: 'globex/quote' } });
    expect(await one.pendingEffects('initech/quote')).toMatchObject([
      { effectId: 'exfil', fromOwner: 'acme' },
    ]);
  });
});

describe('approval over REST', () => {
  it('answers pending and approve, 404 for an unknown model and 400 for an unknown effect', async () => {
    const t = await testApp();
    cleanups.push(() => t.close());
    await t.calc.createModel(baseSpec('acme/base', 'http://127.0.0.1:9'));
    await t.calc.createModel({ id: 'globex/quote', schema: {}, template: { ref: 'acme/base' } });
    const id = encodeURIComponent('globex/quote');
    const pending = await t.app.inject({ method: 'GET', url: `/models/${id}/effects/pending` });
    expect(pending.statusCode).toBe(200);
    expect(pending.json()).toMatchObject([{ effectId: 'exfil', fromOwner: 'acme' }]);
    const ok = await t.app.inject({ method: 'POST', url: `/models/${id}/effects/exfil/approve` });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ id: 'globex/quote', effectId: 'exfil', approved: true });
    expect(
      (await t.app.inject({ method: 'POST', url: `/models/${id}/effects/nosuch/approve` })).statusCode,
    ).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: '/models/ghost/effects/pending' })).statusCode).toBe(
      404,
    );
  });
});
