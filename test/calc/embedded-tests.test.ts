import { describe, expect, it } from 'vitest';
import { CalcError } from '../../src/calc/index.js';
import { validateSpec } from '../../src/calc/validator.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/** Issue 38: a spec whose own embedded test fails was only warned about, and create_model took it. */

const spec = (expected: number, id = 'priced'): Record<string, unknown> => ({
  id,
  version: '1.0.0',
  schema: { type: 'object', properties: { price: { type: 'number' } } },
  derivations: [{ path: '$.gross', expr: 'price * 1.2' }],
  tests: [{ description: 'gross adds 20%', given: { '$.price': 10 }, expect: { '$.gross': expected } }],
});

async function caught(promise: Promise<unknown>): Promise<CalcError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CalcError);
  return err as CalcError;
}

describe('a failing embedded test', () => {
  it('is an error of validate_spec (the spec is not valid), naming the test', async () => {
    const report = await validateSpec(spec(13));
    expect(report.valid).toBe(false);
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]!.location).toBe('tests[0]');
    expect(report.errors[0]!.message).toMatch(/^Test 'gross adds 20%' failed: /);
    expect(report.warnings).toEqual([]);
    expect(await validateSpec(spec(12))).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('refuses create_model with the validation report; nothing is stored', async () => {
    const calc = new CalcService(new MemoryStore());
    const err = await caught(calc.createModel(spec(13)));
    expect(err.code).toBe('SPEC_INVALID');
    expect(err.details.errors).toEqual([expect.objectContaining({ location: 'tests[0]' })]);
    expect(await calc.listModels()).toEqual([]);
    await calc.createModel(spec(12));
    expect(await calc.listModels()).toEqual(['priced']);
  });

  it('refuses evolve_spec that brings in a failing test; the model keeps its version', async () => {
    const calc = new CalcService(new MemoryStore());
    await calc.createModel(spec(12));
    const bad = { newVersion: '2.0.0', newTests: [{ given: { '$.price': 1 }, expect: { '$.gross': 5 } }] };
    const err = await caught(calc.evolveSpec('priced', bad));
    expect(err.code).toBe('EVOLUTION_INVALID');
    expect(err.details.errors).toEqual([expect.objectContaining({ location: 'tests[0]' })]);
    expect((await calc.getModelInfo('priced')).version).toBe('1.0.0');
  });
});
