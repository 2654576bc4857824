// An in-process app on a memory store, driven with app.inject.
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/http/app.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';

export interface TestApp {
  app: FastifyInstance;
  calc: CalcService;
  close(): Promise<void>;
}

export async function testApp(options: Partial<AppOptions> = {}): Promise<TestApp> {
  const calc = new CalcService(new MemoryStore());
  const app = await buildApp({ calc, ...options });
  await app.ready();
  return {
    app,
    calc,
    close: async () => {
      await app.close();
      await calc.close();
    },
  };
}
