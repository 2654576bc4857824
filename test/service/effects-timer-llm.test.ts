/**
 * Timer and llm effects (issue 23, acceptance 2 and 4). Timers: fired with the state at fire time,
 * cancelled at once when the trigger turns false, and — stored with the run — fired by the next
 * runner after a restart. llm: a real MCP SDK client that answers sampling requests, one that
 * declares no sampling (blocked), and an answer the responseSchema refuses (failed). Runs are
 * awaited (runner.next), never slept on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import type { CreateMessageRequest } from '@modelcontextprotocol/server';
import { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { modelTools } from '../../src/mcp/calc-tools.js';
import { CalcClient } from '../../src/remote/calc-client.js';
import { CalcService } from '../../src/service/calc-service.js';
import { EffectRunner, LlmExecutor, TimerExecutor, pendingEffects } from '../../src/service/effects/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function reminderSpec(timer: Record<string, unknown>) {
  return {
    id: 'ticket',
    version: '1.0.0',
    schema: {
      type: 'object',
      properties: {
        open: { type: 'boolean' },
        ticketId: { type: 'string' },
        remindAt: { type: 'number' },
        reminder: { type: 'object' },
        escalated: { type: 'boolean' },
        escalatedAt: { type: 'number' },
      },
    },
    effects: [
      {
        id: 'remind',
        executor: 'timer',
        trigger: 'open = true',
        dedupeKey: 'ticketId',
        statusPath: '$.reminder',
        ...timer,
        response: { set: { '$.escalated': 'open', '$.escalatedAt': '$now' } },
      },
    ],
  };
}

function timerService(store = new MemoryStore() as MemoryStore | SqliteStore) {
  const calc = new CalcService(store);
  const runner = new EffectRunner(calc, { executors: [new TimerExecutor()] }).start();
  cleanups.push(async () => {
    await runner.stop();
    await calc.close();
  });
  return Promise.resolve({ calc, runner });
}

const stateOf = async (calc: CalcService) => (await calc.getState('ticket')) as Record<string, unknown>;

describe('timer effects', () => {
  it('fires at its time, folding back values read from the state then ($now: the fire time)', async () => {
    const { calc, runner } = await timerService();
    await calc.createModel(reminderSpec({ afterMs: 0 }));
    const fired = runner.next((s) => s.phase !== 'skipped');
    const before = Date.now();
    await calc.mutate('ticket', { '$.ticketId': 't1', '$.open': true });
    expect(await fired).toMatchObject({ executor: 'timer', phase: 'applied', key: 't1' });
    const s = await stateOf(calc);
    expect(s.escalated).toBe(true);
    expect(s.escalatedAt).toBeGreaterThanOrEqual(before);
    expect(s.reminder).toMatchObject({ phase: 'applied', key: 't1' });
    const audit = await calc.getAudit('ticket');
    const foldbacks = audit.filter((r) => r.source === 'foldback');
    expect(foldbacks.map((r) => (r.mutations['$.reminder'] as { phase: string }).phase).sort()).toEqual([
      'applied',
      'in_flight',
    ]);
  });

  it('is cancelled at once when the trigger turns false while it waits', async () => {
    const { calc, runner } = await timerService();
    await calc.createModel(reminderSpec({ afterMs: 3_600_000 }));
    const settled = runner.next((s) => s.phase !== 'skipped');
    await calc.mutate('ticket', { '$.ticketId': 't2', '$.open': true });
    await expect
      .poll(async () => (await pendingEffects(calc.store, 'ticket')).map((p) => p.key))
      .toEqual(['t2']);
    const [pending] = await pendingEffects(calc.store, 'ticket');
    expect(Date.parse(pending!.dueAt)).toBeGreaterThan(Date.now() + 3_000_000);
    // get_model_info shows it beside the model's info
    const info = modelTools(calc).find((t) => t.name === 'get_model_info')!;
    const shown = (await info.run({ id: 'ticket' }, { signal: new AbortController().signal }))
      .structuredContent;
    const listed = { effectId: 'remind', statusPath: '$.reminder', key: 't2', leased: true };
    expect(shown).toMatchObject({ id: 'ticket', pendingEffects: [listed] });
    // over REST too, and so through a client of that server (`mcp --url`)
    const app = await buildApp({ calc });
    cleanups.push(() => app.close());
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const rest = await fetch(`${url}/models/ticket`);
    expect(await rest.json()).toMatchObject({
      id: 'ticket',
      revision: expect.any(Number),
      pendingEffects: [listed],
    });
    const remote = modelTools(new CalcClient({ url })).find((t) => t.name === 'get_model_info')!;
    expect(
      (await remote.run({ id: 'ticket' }, { signal: new AbortController().signal })).structuredContent,
    ).toMatchObject({ id: 'ticket', pendingEffects: [listed] });
    await calc.mutate('ticket', { '$.open': false });
    expect(await settled).toMatchObject({ phase: 'cancelled' });
    expect((await stateOf(calc)).reminder).toMatchObject({ phase: 'cancelled', key: null });
    expect((await stateOf(calc)).escalated).toBeUndefined();
    expect(await pendingEffects(calc.store, 'ticket')).toEqual([]);
    expect(
      (await info.run({ id: 'ticket' }, { signal: new AbortController().signal })).structuredContent,
    ).not.toHaveProperty('pendingEffects');
  });

  it('set before a restart, fires after it, once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mw-timer-'));
    cleanups.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    const path = join(dir, 'store.db');
    const first = new CalcService(SqliteStore.open(path));
    const before = new EffectRunner(first, { executors: [new TimerExecutor()] }).start();
    await first.createModel(reminderSpec({ at: 'remindAt' }));
    // due a few seconds out: long enough for the first runner to stop before it fires
    const dueAt = Date.now() + 4000;
    await first.mutate('ticket', { '$.ticketId': 't3', '$.open': true, '$.remindAt': dueAt });
    await expect.poll(async () => (await pendingEffects(first.store, 'ticket')).length).toBe(1);
    await before.stop();
    await first.close();

    const { calc, runner } = await timerService(SqliteStore.open(path));
    const s0 = await stateOf(calc);
    expect(s0.reminder, 'the first runner stopped before the timer was due').toMatchObject({
      phase: 'in_flight',
    });
    const fired = await runner.next((s) => s.phase !== 'skipped');
    expect(fired).toMatchObject({ phase: 'applied', key: 't3' });
    const s = await stateOf(calc);
    expect(s.escalated).toBe(true);
    expect(s.escalatedAt).toBeGreaterThanOrEqual(dueAt);
    const applied = (await calc.getAudit('ticket')).filter(
      (r) => (r.mutations['$.reminder'] as { phase?: string } | undefined)?.phase === 'applied',
    );
    expect(applied).toHaveLength(1);
    expect(await pendingEffects(calc.store, 'ticket')).toEqual([]);
  });
});

/** An MCP server and a real SDK client over an in-memory pair; `answer` handles sampling, or none is declared. */
async function connected(llm: LlmExecutor, answer?: (req: CreateMessageRequest) => string) {
  const server = new Server({ name: 'modelworks-test', version: '0.0.0' }, { capabilities: {} });
  const client = new Client(
    { name: 'sampling-client', version: '0.0.0' },
    { capabilities: answer ? { sampling: {} } : {} },
  );
  const asked: CreateMessageRequest[] = [];
  if (answer)
    client.setRequestHandler('sampling/createMessage', (req) => {
      asked.push(req);
      return { role: 'assistant', model: 'test-model', content: { type: 'text', text: answer(req) } };
    });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  llm.attach(server);
  cleanups.push(async () => {
    await client.close();
    await server.close();
  });
  return asked;
}

function triageSpec(responseSchema?: unknown) {
  return {
    id: 'triage',
    version: '1.0.0',
    schema: {
      type: 'object',
      properties: {
        note: { type: 'string' },
        label: { type: 'string' },
        triage: { type: 'object' },
      },
    },
    effects: [
      {
        id: 'classify',
        executor: 'llm',
        trigger: '$exists(note)',
        dedupeKey: 'note',
        statusPath: '$.triage',
        prompt: '"Classify this note: " & note',
        ...(responseSchema ? { responseSchema } : {}),
        response: { set: { '$.label': '$response.label' } },
      },
    ],
  };
}

async function llmService(spec: unknown) {
  const calc = new CalcService(new MemoryStore());
  const llm = new LlmExecutor();
  const runner = new EffectRunner(calc, { executors: [llm] }).start();
  cleanups.push(() => runner.stop());
  await calc.createModel(spec);
  return { calc, llm, runner };
}

const LABEL_SCHEMA = {
  type: 'object',
  required: ['label'],
  properties: { label: { enum: ['billing', 'outage'] } },
};

describe('llm effects', () => {
  it('asks a client that samples and folds its JSON answer back', async () => {
    const { calc, llm, runner } = await llmService(triageSpec(LABEL_SCHEMA));
    const asked = await connected(llm, () => '```json\n{"label":"billing"}\n```');
    const settled = runner.next((s) => s.phase !== 'skipped');
    await calc.mutate('triage', { '$.note': 'charged twice' });
    expect(await settled).toMatchObject({ executor: 'llm', phase: 'applied', key: 'charged twice' });
    const s = (await calc.getState('triage')) as Record<string, unknown>;
    expect(s.label).toBe('billing');
    expect(s.triage).toMatchObject({ phase: 'applied' });
    expect(asked).toHaveLength(1);
    const content = asked[0]!.params.messages[0]!.content as { type: string; text: string };
    expect(content.text).toBe('Classify this note: charged twice');
  });

  it('fails an answer the responseSchema refuses', async () => {
    const { calc, llm, runner } = await llmService(triageSpec(LABEL_SCHEMA));
    await connected(llm, () => '{"label":"poetry"}');
    const settled = runner.next((s) => s.phase !== 'skipped');
    await calc.mutate('triage', { '$.note': 'a sonnet' });
    expect(await settled).toMatchObject({ phase: 'failed', error: { code: 'EFFECT_LLM_FAILED' } });
    const s = (await calc.getState('triage')) as Record<string, unknown>;
    expect(s.label).toBeUndefined();
    expect(s.triage).toMatchObject({ phase: 'failed', code: 'EFFECT_LLM_FAILED' });
  });

  it('is blocked, saying why, when the connected client does not sample', async () => {
    const { calc, llm, runner } = await llmService(triageSpec());
    await connected(llm);
    const settled = runner.next((s) => s.phase !== 'skipped');
    await calc.mutate('triage', { '$.note': 'site down' });
    expect(await settled).toMatchObject({ phase: 'blocked', error: { code: 'EFFECT_BLOCKED' } });
    const s = (await calc.getState('triage')) as Record<string, unknown>;
    expect(s.triage).toMatchObject({ phase: 'blocked', key: 'site down' });
    expect(String((s.triage as { error: string }).error)).toMatch(/sampling/);
  });
});
