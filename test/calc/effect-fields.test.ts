/**
 * Effect fields of the wrong type (issue 19): a caller effect whose `payload` is a string was
 * accepted by validate_spec and dispatched `{}`. Each field an effect reads is checked where the
 * spec is read, so validate_spec, create_model and evolve_spec refuse it with its location.
 */
import { describe, expect, it } from 'vitest';
import { CalcError, validateSpec } from '../../src/calc/index.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const schema = { type: 'object', properties: { a: { type: 'number' } } };
const caller = { id: 'x', executor: 'caller', emit: 'changed', trigger: 'a > 1' };

async function errorsOf(effect: Record<string, unknown>): Promise<string[]> {
  const report = await validateSpec({ id: 'e', schema, effects: [effect] }, { runTests: false });
  return report.errors.map((e) => `${e.location}: ${e.message}`);
}

describe('effect fields of the wrong type', () => {
  it('a string payload is refused by validate_spec, with its location', async () => {
    expect(await errorsOf({ ...caller, payload: 'a' })).toEqual([
      `effects[0].payload: 'payload' must be an object of name → JSONata expression, e.g. {"total": "total"}`,
    ]);
  });

  it('and by create_model and evolve_spec, so nothing is ever dispatched as {}', async () => {
    const service = new CalcService(new MemoryStore());
    await expect(
      service.createModel({ id: 'e', schema, effects: [{ ...caller, payload: 'a' }] }),
    ).rejects.toMatchObject({ code: 'SPEC_INVALID' });
    await service.createModel({ id: 'e', schema, effects: [{ ...caller, payload: { doubled: 'a * 2' } }] });
    const result = await service.mutate('e', { '$.a': 2 });
    expect(result.dispatchedEffects).toEqual([
      { effectId: 'x', executor: 'caller', emit: 'changed', payload: { doubled: 4 } },
    ]);
    const err = await service
      .evolveSpec('e', { upsertEffects: [{ ...caller, id: 'y', payload: ['a'] }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CalcError);
    expect((err as CalcError).code).toBe('EVOLUTION_INVALID');
    expect(JSON.stringify((err as CalcError).details.errors)).toContain('effects[1].payload');
    await service.close();
  });

  it.each([
    ['payload', ['a'], `'payload' must be an object`],
    ['payload', 5, `'payload' must be an object`],
    ['emit', 5, `'emit' must be the event name, a string`],
    ['statusPath', 5, `'statusPath' must be an address`],
    ['response', 'x', `'response' must be an object {set: {address: expression}}`],
    ['response', { set: 'x' }, `'response.set' must be an object of address → JSONata expression`],
    ['origin', 'x', `'origin' must be an object`],
    ['policy', 'fast', `'policy' must be an object`],
    ['policy', { timeoutMs: '5' }, `'policy.timeoutMs' must be a whole number of milliseconds`],
    ['policy', { timeoutMs: -1 }, `'policy.timeoutMs' must be a whole number of milliseconds`],
    ['policy', { retries: 1.5 }, `'policy.retries' must be a whole number, 0 or more`],
    ['policy', { backoff: 3 }, `'policy.backoff' must be a string`],
    ['policy', { temperature: 'hot' }, `'policy.temperature' must be a number`],
  ])('%s = %j is refused once, at its location', async (field, value, message) => {
    const errors = await errorsOf({ ...caller, [field]: value });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(new RegExp(`^effects\\[0\\]\\.${field}`));
    expect(errors[0]).toContain(message);
  });

  it.each([
    ['at', true],
    ['afterMs', { ms: 5 }],
  ])('a timer %s = %j is refused as its own type, not as missing', async (field, value) => {
    expect(await errorsOf({ id: 't', executor: 'timer', [field]: value })).toEqual([
      `effects[0].${field}: '${field}' must be a JSONata expression (a string) or a number`,
    ]);
  });

  it('well-typed fields are still accepted', async () => {
    expect(
      await errorsOf({
        ...caller,
        statusPath: '$.status',
        payload: { doubled: 'a * 2', fixed: 5, none: null },
        response: { set: { '$.b': 'a' } },
        origin: { by: 'me' },
        policy: { timeoutMs: 100, retries: 2, backoff: 'exponential', temperature: 0.5 },
      }),
    ).toEqual([]);
    expect(await errorsOf({ id: 't', executor: 'timer', afterMs: 1000 })).toEqual([]);
    expect(await errorsOf({ id: 't', executor: 'timer' })).toEqual([
      "effects[0]: a timer effect needs 'at' (epoch ms or ISO-8601) or 'afterMs'",
    ]);
    expect(await errorsOf({ id: 'c', executor: 'caller' })).toEqual([
      "effects[0].emit: a caller effect needs 'emit' (the event name the caller receives)",
    ]);
  });
});
