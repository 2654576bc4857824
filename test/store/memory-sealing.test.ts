/**
 * The memory store hashes a committed record after the caller has its answer (it is most of a small
 * cycle's cost), yet nobody may ever see a record, or a head, without its hash.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { buildAuditRecord, buildReplaceRecord, recordHash, verifyChain } from '../../src/service/audit.js';
import { CalcService } from '../../src/service/calc-service.js';
import { sealRecord } from '../../src/store/audit-chain.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import type { ModelSpec } from '../../src/calc/index.js';
import { committedState, GENESIS_HASH, type AuditRecord } from '../../src/store/store.js';
import { DEMO } from '../mcp/helpers/specs.js';

/** The seed's worked example (the service normalises the rest of the spec). */
const SPEC = DEMO as unknown as ModelSpec;

const state = { base: {}, derived: {}, meta: {} };

function draft(sequence: number, prevHash: string, x: number): AuditRecord {
  return buildAuditRecord({
    modelId: 'm',
    sequence,
    modelVersion: '1',
    source: 'client',
    mutations: { '$.x': x },
    result: {
      success: true,
      mutatedPaths: ['$.x'],
      derivedUpdated: [],
      metaUpdated: [],
      flaggedConstraints: [],
      dispatchedEffects: [],
      traces: [],
    },
    prevHash,
  });
}

describe('memory store: sealing after the answer', () => {
  it('hashes the record on the next turn of the event loop without being asked', async () => {
    const store = new MemoryStore();
    await store.insertModel('m', { ...SPEC, id: 'm' }, state);
    const r = draft(0, GENESIS_HASH, 1);
    expect(await store.commitCycle('m', 0, committedState(state), r)).toBe(true);
    expect(r.hash).toBeUndefined(); // not yet: the caller answers first
    await nextTurn();
    expect(r.hash).toBe(recordHash(GENESIS_HASH, r));
  });

  it('seals before any read: the head, the trail and the next commit see the hash', async () => {
    const store = new MemoryStore();
    await store.insertModel('m', { ...SPEC, id: 'm' }, state);
    const first = draft(0, GENESIS_HASH, 1);
    await store.commitCycle('m', 0, committedState(state), first);
    const head = (await store.head('m'))!; // same turn: sealed on demand
    expect(head.lastHash).toBe(recordHash(GENESIS_HASH, first));
    const second = draft(1, head.lastHash, 2);
    expect(await store.commitCycle('m', head.revision, committedState(state), second)).toBe(true);
    const trail = await store.auditRecords('m');
    expect(trail.map((r) => r.hash)).toEqual([first.hash, recordHash(first.hash!, second)]);
    expect(verifyChain(trail).valid).toBe(true);
  });

  it('a replace follows the sealed end of the chain with its own record, sealed at once', async () => {
    const store = new MemoryStore();
    await store.insertModel('m', { ...SPEC, id: 'm' }, state);
    const first = draft(0, GENESIS_HASH, 1);
    await store.commitCycle('m', 0, committedState(state), first);
    const restore = buildReplaceRecord({
      modelId: 'm',
      sequence: 1,
      modelVersion: '2',
      source: 'restore',
      prevHash: (await store.head('m'))!.lastHash, // seals `first`
    });
    expect(await store.replaceModel('m', 1, { ...SPEC, id: 'm', version: '2' }, state, restore)).toBe(true);
    expect(restore.hash).toBe(recordHash(first.hash!, restore));
    expect((await store.head('m'))!.lastHash).toBe(restore.hash);
  });

  it('keeps no state hash and no checkpoint (no outside writer); the chain still catches an edit', async () => {
    const service = new CalcService(new MemoryStore());
    await service.createModel(SPEC);
    await service.mutate('demo', { '$.price': 3, '$.qty': 2 });
    await service.mutate('demo', { '$.price': 4 });
    const records = await service.store.auditRecords('demo');
    expect(records.map((r) => r.stateHash)).toEqual([undefined, undefined]);
    expect(await service.store.auditSeal('demo')).toMatchObject({ checkpoint: { status: 'not-kept' } });
    expect(await service.verifyAudit('demo')).toMatchObject({ valid: true, detail: 'ok' });
    // the trail the store hands out is its own: an in-process edit of it is caught by the hashes
    records[0]!.mutations = { '$.price': 999 };
    expect(await service.verifyAudit('demo')).toMatchObject({ valid: false, firstBrokenSequence: 0 });
  });

  it('the service: get_audit and verify_audit straight after mutate, interleaved in one turn', async () => {
    const service = new CalcService(new MemoryStore());
    await service.createModel(SPEC);
    // fire several writes without awaiting: each commit follows a record not yet sealed by the loop
    await Promise.all([1, 2, 3, 4].map((n) => service.mutate('demo', { '$.price': n, '$.qty': 2 })));
    const [audit, verdict] = await Promise.all([service.getAudit('demo'), service.verifyAudit('demo')]);
    expect(verdict).toMatchObject({ valid: true, recordsChecked: 4 });
    expect(audit.every((r) => typeof r.hash === 'string' && r.hash.length === 64)).toBe(true);
    expect(await service.getState('demo')).toMatchObject({ price: 4, qty: 2, total: 8 });
  });
});

describe('verify_audit while cycles commit', () => {
  /** A store that lets one more cycle commit just before the trail is read. */
  class CommitBeforeTrail extends MemoryStore {
    before?: () => Promise<unknown>;
    override async auditRecords(id: string): Promise<AuditRecord[]> {
      const hook = this.before;
      this.before = undefined;
      await hook?.();
      return super.auditRecords(id);
    }
  }

  it('still names records added at the end that chain correctly', async () => {
    const store = new (class extends MemoryStore {
      override async auditRecords(id: string): Promise<AuditRecord[]> {
        const trail = await super.auditRecords(id);
        const last = trail[trail.length - 1]!;
        const forged = { ...draft(trail.length, last.hash!, 99), modelId: id, prevHash: last.hash! };
        return [...trail, sealRecord(forged, last.stateHash)];
      }
    })();
    const service = new CalcService(store);
    await service.createModel(SPEC);
    await service.mutate('demo', { '$.price': 1, '$.qty': 1 });
    expect(await service.verifyAudit('demo')).toEqual({
      valid: false,
      recordsChecked: 2,
      firstBrokenSequence: 1,
      detail: 'the trail runs to sequence 1 but the model has committed 1 cycles (records added at the end)',
    });
  });

  it('does not call a trail that grew between its reads of the head and the trail broken', async () => {
    const store = new CommitBeforeTrail();
    const service = new CalcService(store);
    await service.createModel(SPEC);
    await service.mutate('demo', { '$.price': 1, '$.qty': 1 });
    store.before = () => service.mutate('demo', { '$.price': 2, '$.qty': 1 });
    expect(await service.verifyAudit('demo')).toEqual({
      valid: true,
      recordsChecked: 2,
      firstBrokenSequence: null,
      detail: 'ok',
    });
  });
});
