/**
 * Run by schema-leak.test.ts in a child (`--expose-gc`, small heap): creates, validates, renders
 * and deletes thousands of distinct specs through every use case that compiles a schema, then
 * prints the heap growth after GC as one JSON line. `validate` mode makes 10,000 validate_spec calls.
 */
import { CalcService } from '../../src/service/calc-service.js';
import { CardRunner } from '../../src/service/card-runner.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const mode = process.argv[2] ?? 'cycle';
const count = Number(process.argv[3] ?? '1500');

function specOf(i: number): Record<string, unknown> {
  return {
    id: `leak/m${i}`,
    schema: {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            required: ['price'],
            properties: {
              price: { type: 'number', minimum: i % 1000 },
              qty: { type: 'integer', multipleOf: 1 },
            },
          },
        },
        note: { type: 'string', pattern: `[a-z]{0,${(i % 50) + 1}}` },
      },
    },
    derivations: [{ path: '$.total', expr: '$sum(items.price)' }],
    viewDefinition: {
      views: [{ id: 'main', components: [{ id: 'n', type: 'textField', bind: '$.note' }] }],
    },
    tests: [{ description: 't', given: { '$.items': [{ price: 2000 }] }, expect: { '$.total': 2000 } }],
  };
}

const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

async function cycles(): Promise<void> {
  const calc = new CalcService(new MemoryStore());
  const cards = new CardRunner({ maxSpecs: 16 });
  const one = async (i: number): Promise<void> => {
    const spec = specOf(i);
    if (mode === 'cards') {
      await cards.render(await cards.compile(spec), { '$.note': 'abc' });
      return;
    }
    if (mode !== 'models') {
      await calc.validateSpec(spec);
      await calc.dryRun(spec, { '$.items': [{ price: 1000 }] });
      await calc.testSpec(spec);
      if (mode === 'authoring') return;
      const card = await cards.compile(spec);
      await cards.render(card, { '$.note': 'abc' });
    }
    await calc.createModel(spec);
    await calc.mutate(spec.id as string, { '$.items': [{ price: 1000, qty: 2 }] });
    await calc.evolveSpec(spec.id as string, {
      upsertDerivations: [{ path: '$.count', expr: '$count(items)' }],
    });
    await calc.deleteModel(spec.id as string);
  };
  const warmup = Math.min(500, Math.floor(count / 3));
  for (let i = 0; i < warmup; i++) await one(i);
  const start = heap();
  for (let i = warmup; i < count; i++) await one(i);
  const end = heap();
  process.stdout.write(`${JSON.stringify({ cycles: count - warmup, start, end, growth: end - start })}\n`);
}

async function validates(): Promise<void> {
  const calc = new CalcService(new MemoryStore());
  const spec = specOf(7);
  for (let i = 0; i < count; i++) {
    const report = await calc.validateSpec(spec);
    if (!report.valid) throw new Error(JSON.stringify(report.errors));
  }
  process.stdout.write(`${JSON.stringify({ calls: count, heapUsed: heap() })}\n`);
}

await (mode === 'validate' ? validates() : cycles());
