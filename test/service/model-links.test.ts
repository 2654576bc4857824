// Links between models run (issue 41; valem-parity.md §5.1 C3, C4, C5, C7b): write-links fan in to
// an aggregate and fold its answer back, a read-link copies a value without touching the target's
// history, a target's rollback constraint fails the link with target_rejected, and a guarded
// ping⇄pong settles. The effect runner runs them in-process (src/service/effects/model-links.ts).
import { describe, expect, it } from 'vitest';
import { linkedModels } from './helpers/linked-models.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const setup = linkedModels;

const obj = { type: 'object' };
const num = { type: 'number' };

/** A write-link effect pushing `body` to `ref` at `path`, guarded, its status at $.io.<id>. */
function link(id: string, ref: string, target: Json, body: string, trigger: string, set?: Json) {
  return {
    id,
    executor: 'server',
    trigger,
    dedupeKey: body,
    statusPath: `$.io.${id}`,
    target: { ref, ...target },
    ...(target.path !== undefined ? { body } : {}),
    ...(set ? { response: { set } } : {}),
  };
}

describe('links between models', () => {
  it('C3: two leaves write into an aggregate, and its total comes back to the writer', async () => {
    const { calc, state, write } = setup();
    await calc.createModel({
      id: 'agg',
      schema: { type: 'object', properties: { children: obj, total: num } },
      derivations: [{ path: '$.total', expr: '$sum(children.*.subtotal)' }],
    });
    for (const leaf of ['a', 'b'])
      await calc.createModel({
        id: `leaf-${leaf}`,
        schema: { type: 'object', properties: { subtotal: num, io: obj } },
        effects: [
          link('push', 'agg', { path: `$.children.${leaf}.subtotal` }, 'subtotal', 'subtotal > 0', {
            '$.io.ackTotal': '$response.total',
          }),
        ],
      });
    await write('leaf-a', { '$.subtotal': 100 });
    await write('leaf-b', { '$.subtotal': 250 });
    expect((await state('agg')).total).toBe(350);
    expect((await state('leaf-b')).io.ackTotal).toBe(350);
    expect((await state('leaf-a')).io.push.phase).toBe('applied');
  });

  it('C4: a read-link copies the rate and leaves the rates model’s history alone', async () => {
    const { calc, state, write } = setup();
    await calc.createModel({ id: 'rates', schema: { type: 'object', properties: { usd: num } } });
    await calc.mutate('rates', { '$.usd': 1.1 });
    await calc.createModel({
      id: 'invoice',
      schema: { type: 'object', properties: { need: { type: 'boolean' }, fxRate: num, io: obj } },
      effects: [link('fx', 'rates', { read: '$.usd' }, 'need', 'need = true', { '$.fxRate': '$response' })],
    });
    const before = (await calc.getHistory('rates')).length;
    const audit = (await calc.getAudit('rates')).length;
    await write('invoice', { '$.need': true });
    expect((await state('invoice')).fxRate).toBe(1.1);
    expect((await calc.getHistory('rates')).length).toBe(before);
    expect((await calc.getAudit('rates')).length).toBe(audit);
  });

  it('C5: a target’s rollback constraint fails the link with target_rejected', async () => {
    const { calc, state, write } = setup();
    await calc.createModel({
      id: 'guarded',
      schema: { type: 'object', properties: { inbound: num } },
      constraints: [{ id: 'cap', expr: 'inbound <= 100', message: 'at most 100', policy: 'rollback' }],
    });
    await calc.createModel({
      id: 'pusher',
      schema: { type: 'object', properties: { amount: num, io: obj } },
      effects: [link('push', 'guarded', { path: '$.inbound' }, 'amount', 'amount > 0')],
    });
    await write('pusher', { '$.amount': 500 });
    const status = (await state('pusher')).io.push as Json;
    expect(status.phase).toBe('failed');
    expect(status.error).toMatch(/^target_rejected/);
    expect((await state('guarded')).inbound ?? null).toBeNull();
  });

  it('C7b: a guarded ping⇄pong settles with both sides at 5', async () => {
    const { calc, state, write } = setup();
    const pong = {
      id: 'pong',
      version: '1.0.0',
      schema: { type: 'object', properties: { fromPing: num, echo2: num, io: obj } },
    };
    await calc.createModel(pong);
    await calc.createModel({
      id: 'ping',
      schema: { type: 'object', properties: { n: num, fromPong: num, echo: num, io: obj } },
      effects: [
        link('toPong', 'pong', { path: '$.fromPing' }, 'n', 'n > 0', { '$.echo': '$response.fromPing' }),
      ],
    });
    await calc.evolveSpec('pong', {
      newVersion: '1.0.1',
      upsertEffects: [
        link('toPing', 'ping', { path: '$.fromPong' }, 'fromPing', 'fromPing > 0', {
          '$.echo2': '$response.fromPong',
        }),
      ],
    });
    await write('ping', { '$.n': 5 });
    const [a, b] = [await state('ping'), await state('pong')];
    expect(b.fromPing).toBe(5);
    expect(a.fromPong).toBe(5);
    expect(a.echo).toBe(5);
    expect(b.echo2).toBe(5);
    expect(a.io.toPong.phase).toBe('applied');
    expect(b.io.toPing.phase).toBe('applied');
  });
});

describe('a watched read-link', () => {
  it('C10: follows the target after its first fold, and stops once the watch is dropped', async () => {
    const { calc, runner, state, write } = setup();
    await calc.createModel({
      id: 'rates',
      version: '1.0.0',
      schema: { type: 'object', properties: { usd: num } },
    });
    await calc.mutate('rates', { '$.usd': 1.0 });
    const watch = {
      ...link('fx', 'rates', { read: '$.usd', watch: true }, 'need', 'need = true', {
        '$.fxRate': '$response',
      }),
    };
    await calc.createModel({
      id: 'invoice',
      version: '1.0.0',
      schema: { type: 'object', properties: { need: { type: 'boolean' }, fxRate: num, io: obj } },
      effects: [watch],
    });
    await write('invoice', { '$.need': true });
    expect((await state('invoice')).fxRate).toBe(1.0);
    const follow = async (usd: number) => {
      await write('rates', { '$.usd': usd });
      for (let i = 0; i < 50 && (await state('invoice')).fxRate !== usd; i++)
        await new Promise((r) => setTimeout(r, 10));
    };
    await follow(1.5);
    expect((await state('invoice')).fxRate).toBe(1.5);
    await follow(1.7);
    expect((await state('invoice')).fxRate).toBe(1.7);
    expect(runner.watches.size).toBe(1);
    // the source drops the watch: the next rate does not arrive
    await calc.evolveSpec('invoice', {
      newVersion: '1.0.1',
      upsertEffects: [{ ...watch, target: { ref: 'rates', read: '$.usd' } }],
    });
    for (let i = 0; i < 50 && runner.watches.size > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(runner.watches.size).toBe(0);
    await write('rates', { '$.usd': 9.9 });
    await new Promise((r) => setTimeout(r, 100));
    expect((await state('invoice')).fxRate).toBe(1.7);
  });

  it('ends with its source', async () => {
    const { calc, runner, write } = setup();
    await calc.createModel({ id: 'rates', schema: { type: 'object', properties: { usd: num } } });
    await calc.mutate('rates', { '$.usd': 1 });
    await calc.createModel({
      id: 'invoice',
      schema: { type: 'object', properties: { need: { type: 'boolean' }, fxRate: num, io: obj } },
      effects: [
        link('fx', 'rates', { read: '$.usd', watch: true }, 'need', 'need = true', {
          '$.fxRate': '$response',
        }),
      ],
    });
    await write('invoice', { '$.need': true });
    expect(runner.watches.size).toBe(1);
    await calc.deleteModel('invoice');
    expect(runner.watches.size).toBe(0);
    await write('rates', { '$.usd': 2 }); // nothing to push into: no error, no model
    expect(await calc.listModels()).toEqual(['rates']);
  });
});
