/**
 * Effect run leases (issue 23, point 3) on every store: one owner per run, a live lease is never
 * taken, an expired one is, and two owners racing over expired rows take each row once. An expired
 * lease is made by claiming with a negative time to live (no waiting on the clock).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryEffectLeases, hasEffectLeases, type EffectLeases } from '../../src/store/effect-leases.js';
import type { Store } from '../../src/store/store.js';
import { POSTGRES_SKIP_REASON, POSTGRES_URL, openPostgres, freshSchema, tempDbPath } from './helpers.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores.splice(0)) await s.close();
});

function leasesOf(store: Store): EffectLeases {
  stores.push(store);
  if (!hasEffectLeases(store)) throw new Error(`${store.kind} keeps no effect runs`);
  return store.effectLeases();
}

type Pair = () => Promise<[EffectLeases, EffectLeases]>;

const cases: [string, Pair | undefined][] = [
  [
    'memory',
    () => {
      const one = new MemoryEffectLeases();
      return Promise.resolve([one, one]);
    },
  ],
  [
    'sqlite',
    () => {
      const path = tempDbPath('leases.db');
      return Promise.resolve([leasesOf(SqliteStore.open(path)), leasesOf(SqliteStore.open(path))]);
    },
  ],
  [
    'postgres',
    POSTGRES_URL
      ? async () => {
          const schema = freshSchema();
          const a = await openPostgres(schema);
          return [leasesOf(a), leasesOf(await openPostgres(schema))];
        }
      : undefined,
  ],
];

const run = (slot: string, owner: string, dueAt = 0) => ({
  modelId: 'm',
  slot,
  job: `{"slot":"${slot}"}`,
  dueAt,
  owner,
});

describe.each(cases)('effect leases on %s', (name, open) => {
  it.skipIf(!open)(`one owner per run; an expired lease is taken over (${name})`, async () => {
    if (!open) throw new Error(POSTGRES_SKIP_REASON);
    const [a, b] = await open();
    expect(await a.claim(run('e1', 'A'), 60_000)).toBe(true);
    expect(await b.claim(run('e1', 'B'), 60_000)).toBe(false); // live: A keeps it
    expect(await a.claim(run('e1', 'A', 5), 60_000)).toBe(true); // its own: updated
    expect(await b.claimExpired('B', 60_000, 10)).toEqual([]);
    await a.renew('A', -1); // A "crashed": its lease is in the past
    const taken = await b.claimExpired('B', 60_000, 10);
    expect(taken.map((r) => [r.slot, r.owner, r.dueAt, r.job])).toEqual([['e1', 'B', 5, '{"slot":"e1"}']]);
    await a.release('m', 'e1', 'A'); // no longer A's: nothing happens
    expect((await b.pending('m')).map((r) => r.owner)).toEqual(['B']);
    await b.release('m', 'e1', 'B');
    expect(await a.pending('m')).toEqual([]);
  });

  it.skipIf(!open)(`a clean stop lets go at once; racing owners take each row once (${name})`, async () => {
    if (!open) throw new Error(POSTGRES_SKIP_REASON);
    const [a, b] = await open();
    const slots = Array.from({ length: 20 }, (_, i) => `s${i}`);
    for (const s of slots) expect(await a.claim(run(s, 'A'), 60_000)).toBe(true);
    await a.unlock('A');
    const [x, y] = await Promise.all([b.claimExpired('B', 60_000, 100), a.claimExpired('C', 60_000, 100)]);
    const all = [...x, ...y].map((r) => r.slot).sort();
    expect(all).toEqual([...slots].sort());
    expect(new Set(all).size).toBe(slots.length);
  });
});
