/**
 * The effect runner against a real loopback HTTP server (issue 23, acceptance 1): the lifecycle of
 * §7 — in_flight, fold-back, retries, timeout, blocked, cancelled, superseded — as the model and its
 * audit trail record it. Runs are awaited (runner.idle, runner.next), never slept on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CalcService } from '../../src/service/calc-service.js';
import { EffectRunner, ServerExecutor } from '../../src/service/effects/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { openStore } from '../../src/store/open-store.js';

interface Received {
  method: string;
  url: string;
  body: string;
  respond(status: number, json?: unknown): void;
}

/** A loopback server that records each request and lets the test decide when and how it answers. */
async function loopback() {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  let handler: (r: Received) => void = (r) => r.respond(200, { ticket: 'T-1' });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
        respond(status, json) {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(json === undefined ? '' : JSON.stringify(json));
        },
      };
      received.push(r);
      handler(r);
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    answer(h: (r: Received) => void) {
      handler = h;
    },
    /** Resolves once `n` requests have arrived. */
    async requests(n: number): Promise<Received[]> {
      while (received.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Effect = Record<string, unknown>;

function approvalSpec(origin: string, effect: Effect = {}) {
  return {
    id: 'approval',
    version: '1.0.0',
    schema: {
      type: 'object',
      properties: {
        approved: { type: 'boolean' },
        quoteId: { type: 'string' },
        note: { type: 'string' },
        status: { type: 'object' },
        ticket: { type: 'string' },
        replyStatus: { type: 'number' },
      },
    },
    effects: [
      {
        id: 'notify',
        executor: 'server',
        trigger: 'approved = true',
        dedupeKey: 'quoteId',
        statusPath: '$.status',
        request: { method: 'POST', url: `${origin}/hook/{quoteId}`, body: { event: 'approved' } },
        response: { set: { '$.ticket': '$response.ticket', '$.replyStatus': '$status' } },
        policy: { timeoutMs: 2000, retries: 0 },
      },
    ].map((e) => withoutNulls({ ...e, ...effect })),
    constants: { base: origin },
  };
}

/** An effect with the fields a test set to null removed (a fan-out has no `request`). */
function withoutNulls(e: Effect): Effect {
  return Object.fromEntries(Object.entries(e).filter(([, v]) => v !== null));
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(options: { effect?: Effect; allow?: boolean; delays?: number[] } = {}) {
  const server = await loopback();
  const calc = new CalcService(new MemoryStore());
  const executor = new ServerExecutor({
    egressAllowlist: options.allow === false ? [] : [server.origin],
    maxResponseBytes: 1024,
    delay: (ms) => {
      options.delays?.push(ms);
      return Promise.resolve();
    },
  });
  const warnings: string[] = [];
  const runner = new EffectRunner(calc, { executors: [executor], warn: (m) => warnings.push(m) }).start();
  cleanups.push(async () => {
    await server.close();
    await runner.stop();
  });
  await calc.createModel(approvalSpec(server.origin, options.effect));
  const state = async () => (await calc.getState('approval')) as Record<string, unknown>;
  return { server, calc, runner, state, warnings };
}

describe('the effect runner with the server executor', () => {
  it('runs an approved request once and folds the reply back, audited as foldback', async () => {
    const { server, calc, runner, state, warnings } = await setup();
    const result = await calc.mutate('approval', { '$.quoteId': 'q1', '$.approved': true });
    expect(result.dispatchedEffects).toHaveLength(1);
    await runner.idle();
    expect(server.received.map((r) => [r.method, r.url, JSON.parse(r.body)])).toEqual([
      ['POST', '/hook/q1', { event: 'approved' }],
    ]);
    const s = await state();
    expect(s.ticket).toBe('T-1');
    expect(s.replyStatus).toBe(200);
    expect(s.status).toMatchObject({ phase: 'applied', key: 'q1', error: null });
    const audit = await calc.getAudit('approval');
    const foldbacks = audit.filter((r) => r.source === 'foldback').sort((a, b) => a.sequence - b.sequence);
    expect(foldbacks.map((r) => (r.mutations['$.status'] as { phase: string }).phase)).toEqual([
      'in_flight',
      'applied',
    ]);
    expect(foldbacks[1]!.mutations).toMatchObject({ '$.ticket': 'T-1', '$.replyStatus': 200 });
    // an unrelated write later does not fire it again
    await calc.mutate('approval', { '$.note': 'later' });
    await runner.idle();
    expect(server.received).toHaveLength(1);
    expect(warnings).toEqual([]);
  });

  it('does not re-fire itself when the trigger reads its own status', async () => {
    const { server, calc, runner, state } = await setup({
      effect: { trigger: 'approved = true and $not(status.phase = "cancelled")' },
    });
    await calc.mutate('approval', { '$.quoteId': 'q1', '$.approved': true });
    await runner.idle();
    expect((await state()).status).toMatchObject({ phase: 'applied', key: 'q1' });
    expect(server.received).toHaveLength(1);
  });

  it('retries a 503 with backoff, then applies the success', async () => {
    const delays: number[] = [];
    const { server, calc, runner, state } = await setup({
      delays,
      effect: { policy: { timeoutMs: 2000, retries: 3, backoff: 'exponential' } },
    });
    server.answer((r) =>
      server.received.length < 3 ? r.respond(503, { busy: true }) : r.respond(200, { ticket: 'T-3' }),
    );
    await calc.mutate('approval', { '$.quoteId': 'q1', '$.approved': true });
    await runner.idle();
    expect(server.received).toHaveLength(3);
    expect(delays).toEqual([200, 400]);
    expect(await state()).toMatchObject({ ticket: 'T-3', status: { phase: 'applied', key: 'q1' } });
  });

  it('fails with the last error when every attempt fails', async () => {
    const delays: number[] = [];
    const { server, calc, runner, state } = await setup({
      delays,
      effect: { policy: { timeoutMs: 2000, retries: 1 } },
    });
    server.answer((r) => r.respond(500));
    await calc.mutate('approval', { '$.quoteId': 'q1', '$.approved': true });
    await runner.idle();
    expect(server.received).toHaveLength(2);
    expect(delays).toEqual([200]);
    const s = await state();
    expect(s.status).toMatchObject({ phase: 'failed', key: 'q1', code: 'EFFECT_HTTP_STATUS' });
    expect(s.ticket).toBeUndefined();
  });

  it('a request that gets no answer within timeoutMs ends failed', async () => {
    const { server, calc, runner, state } = await setup({
      effect: { policy: { timeoutMs: 100, retries: 0 } },
    });
    server.answer(() => {}); // never answers
    await calc.mutate('approval', { '$.quoteId': 'q1', '$.approved': true });
    const settled = await runner.next();
    expect(settled).toMatchObject({ phase: 'failed', error: { code: 'EFFECT_TIMEOUT' } });
    await runner.idle();
    expect((await state()).status).toMatchObject({ phase: 'failed', code: 'EFFECT_TIMEOUT', key: 'q1' });
  });

  it('an origin outside the allowlist is blocked, naming the setting, and nothing is sent', async () => {
    const { server, calc, runner, state } = await setup({ allow: false });
    await calc.mutate('approval', { '$.quoteId': 'q1', '$.approved': true });
    await runner.idle();
    expect(server.received).toHaveLength(0);
    const status = (await state()).status as Record<string, unknown>;
    expect(status).toMatchObject({ phase: 'blocked', key: 'q1', code: 'EFFECT_BLOCKED' });
    expect(status.error).toContain('MODELWORKS_EFFECT_EGRESS_ALLOWLIST');
  });

  it('a reply larger than the bound fails the effect', async () => {
    const { server, calc, runner, state } = await setup();
    server.answer((r) => r.respond(200, { ticket: 'x'.repeat(5000) }));
    await calc.mutate('approval', { '$.quoteId': 'q1', '$.approved': true });
    await runner.idle();
    const s = await state();
    expect(s.status).toMatchObject({ phase: 'failed', code: 'EFFECT_RESPONSE_TOO_LARGE' });
    expect(s.ticket).toBeUndefined();
  });

  it('a fold-back the model refuses ends failed, and none of its values are written', async () => {
    const { calc, runner, state } = await setup({
      effect: { response: { set: { '$.ticket': '$response.ticket', '$.replyStatus': '"not a number"' } } },
    });
    await calc.mutate('approval', { '$.quoteId': 'q1', '$.approved': true });
    const settled = await runner.next();
    expect(settled).toMatchObject({ phase: 'failed', error: { code: 'EFFECT_FOLDBACK_FAILED' } });
    await runner.idle();
    const s = await state();
    expect(s.status).toMatchObject({ phase: 'failed', key: 'q1', code: 'EFFECT_FOLDBACK_FAILED' });
    expect(s.ticket).toBeUndefined();
  });

  it('a hostile reply is data: a __proto__ key is refused, not merged into any prototype', async () => {
    const { server, calc, runner, state } = await setup({
      effect: { response: { set: { '$.raw': '$response' } } },
    });
    server.answer((r) => {
      r.respond(200, JSON.parse('{"__proto__": {"polluted": true}, "ticket": "T"}'));
    });
    await calc.mutate('approval', { '$.quoteId': 'q1', '$.approved': true });
    await runner.idle();
    const s = await state();
    expect(s.status).toMatchObject({ phase: 'failed', code: 'EFFECT_FOLDBACK_FAILED' });
    expect(s.raw).toBeUndefined();
    expect((s.status as { error: string }).error).toContain('__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a trigger turned false while in flight cancels the fold-back', async () => {
    const { server, calc, runner, state } = await setup();
    server.answer(() => {}); // held until the test answers
    await calc.mutate('approval', { '$.quoteId': 'q1', '$.approved': true });
    const [first] = await server.requests(1);
    expect((await state()).status).toMatchObject({ phase: 'in_flight', key: 'q1' });
    await calc.mutate('approval', { '$.approved': false });
    first!.respond(200, { ticket: 'T-late' });
    await runner.idle();
    const s = await state();
    expect(s.status).toMatchObject({ phase: 'cancelled', key: null });
    expect(s.ticket).toBeUndefined();
  });

  it('a new dedupe key while in flight supersedes the reply and re-fires for the current value', async () => {
    const { server, calc, runner, state } = await setup();
    server.answer(() => {});
    await calc.mutate('approval', { '$.quoteId': 'q1', '$.approved': true });
    const [first] = await server.requests(1);
    // the guard holds while in flight: this write dispatches nothing itself
    const moved = await calc.mutate('approval', { '$.quoteId': 'q2' });
    expect(moved.dispatchedEffects).toEqual([]);
    server.answer((r) => r.respond(200, { ticket: `T-${r.url.split('/').pop()}` }));
    const superseded = runner.next((s) => s.phase === 'superseded');
    first!.respond(200, { ticket: 'T-q1' });
    expect(await superseded).toMatchObject({ key: 'q1' });
    await runner.idle();
    expect(server.received.map((r) => r.url)).toEqual(['/hook/q1', '/hook/q2']);
    const s = await state();
    expect(s).toMatchObject({ ticket: 'T-q2', status: { phase: 'applied', key: 'q2' } });
    const tickets = (await calc.getAudit('approval')).flatMap((r) =>
      '$.ticket' in r.mutations ? [r.mutations['$.ticket']] : [],
    );
    expect(tickets).toEqual(['T-q2']); // the superseded reply never reached the model
  });

  it("a fold-back that loses a race with another process is decided again on the winner's state", async () => {
    const server = await loopback();
    // two processes: two stores on one SQLite file (the memory store shares one process's objects)
    const dir = mkdtempSync(join(tmpdir(), 'mw-effects-'));
    const storeA = await openStore(`sqlite:${join(dir, 'm.db')}`);
    const storeB = await openStore(`sqlite:${join(dir, 'm.db')}`);
    const a = new CalcService(storeA);
    const b = new CalcService(storeB);
    const runner = new EffectRunner(a, {
      executors: [new ServerExecutor({ egressAllowlist: [server.origin], maxResponseBytes: 1024 })],
    }).start();
    cleanups.push(async () => {
      await server.close();
      await runner.stop();
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    });
    await a.createModel(approvalSpec(server.origin));
    // b withdraws the approval just as a commits the applied fold-back
    const commit = storeA.commitCycle.bind(storeA);
    let raced = false;
    storeA.commitCycle = async (id, revision, state, record) => {
      if (!raced && '$.ticket' in record.mutations) {
        raced = true;
        await b.mutate('approval', { '$.approved': false });
      }
      return commit(id, revision, state, record);
    };
    await a.mutate('approval', { '$.quoteId': 'q1', '$.approved': true });
    await runner.idle();
    expect(raced).toBe(true);
    const s = (await b.getState('approval')) as Record<string, unknown>;
    expect(s.status).toMatchObject({ phase: 'cancelled', key: null });
    expect(s.ticket).toBeUndefined();
    const sources = (await b.getAudit('approval')).map((r) => r.source).reverse();
    expect(sources).toEqual(['client', 'foldback', 'client', 'foldback']);
  });

  it("a fold-back refused as BUSY (the model's write queue is full) waits its turn and lands", async () => {
    const server = await loopback();
    const calc = new CalcService(new MemoryStore());
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const waits: number[] = [];
    const runner = new EffectRunner(calc, {
      executors: [new ServerExecutor({ egressAllowlist: [server.origin], maxResponseBytes: 1024 })],
      delay: async (ms) => {
        waits.push(ms);
        release();
        await new Promise((resolve) => setImmediate(resolve)); // one turn: the queue drains
      },
    }).start();
    cleanups.push(async () => {
      await server.close();
      await runner.stop();
    });
    await calc.createModel(approvalSpec(server.origin));
    server.answer(() => {});
    await calc.mutate('approval', { '$.quoteId': 'q1', '$.approved': true });
    const [first] = await server.requests(1);
    // ten writes that hold the model until the runner's first wait
    const held = Array.from({ length: 10 }, () => calc.effectWrite('approval', () => gate.then(() => ({}))));
    first!.respond(200, { ticket: 'T-1' });
    await runner.idle();
    release(); // a runner that gave up never released them
    await Promise.all(held);
    expect(waits.length).toBeGreaterThan(0);
    expect(await calc.getState('approval')).toMatchObject({ ticket: 'T-1', status: { phase: 'applied' } });
  });

  it('runs each descriptor of a requests fan-out under its own status', async () => {
    const { server, calc, runner, state } = await setup({
      effect: {
        request: null,
        response: null,
        requests: `[
          {"method": "PUT", "url": $const.base & "/a/" & quoteId, "body": {"q": quoteId}, "statusPath": "$.sa",
           "dedupeKey": quoteId & "-a", "set": {"$.ticketA": "$response.ticket"}},
          {"url": $const.base & "/b", "statusPath": "$.sb"}
        ]`,
      },
    });
    server.answer((r) => r.respond(200, { ticket: `T${r.url}` }));
    await calc.mutate('approval', { '$.quoteId': 'q1', '$.approved': true });
    await runner.idle();
    expect(server.received.map((r) => `${r.method} ${r.url}`).sort()).toEqual(['GET /b', 'PUT /a/q1']);
    expect(await state()).toMatchObject({
      ticketA: 'T/a/q1',
      sa: { phase: 'applied', key: 'q1-a' },
      sb: { phase: 'applied', key: 'q1' },
    });
  });
});
