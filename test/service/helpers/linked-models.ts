// A service on a memory store with an effect runner that runs links in-process
// (src/service/effects/model-links.ts), for the composition tests. `write` waits until every
// effect the write set off (and those they set off) has settled.
import { afterEach } from 'vitest';
import { CalcService } from '../../../src/service/calc-service.js';
import { EffectRunner, localLinks, ServerExecutor } from '../../../src/service/effects/index.js';
import { MemoryStore } from '../../../src/store/memory-store.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

export function linkedModels() {
  const calc = new CalcService(new MemoryStore());
  const server = new ServerExecutor({ egressAllowlist: [], maxResponseBytes: 1024, links: localLinks(calc) });
  const runner = new EffectRunner(calc, { executors: [server], warn: () => {} }).start();
  cleanups.push(() => runner.stop());
  const state = async (id: string) => (await calc.getState(id)) as Json;
  const write = async (id: string, writes: Json) => {
    await calc.mutate(id, writes);
    await runner.idle();
  };
  return { calc, runner, state, write };
}
