import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileModel, normalizeSpec, startRuntime } from '../../src/calc/index.js';

const spec = (define: string, expr: string) =>
  normalizeSpec({
    id: 'lib',
    schema: { type: 'object', properties: { x: { type: 'number' } } },
    library: define,
    derivations: [{ path: '$.y', expr }],
  }).spec;

describe('library functions and the evaluation time limit', () => {
  afterEach(() => vi.restoreAllMocks());

  it('still work long after the library was compiled (their clock is the caller evaluation, not the compile)', async () => {
    const rt = await startRuntime(
      await compileModel(spec('( $twice := function($n) { $n * 2 }; ["twice"] )', '$twice(x)')),
    );
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 10_000); // ten seconds later
    const result = await rt.mutate({ '$.x': 21 });
    expect(result.traces.find((t) => t.targetPath === '$.y')?.errorMessage).toBeNull();
    expect(await rt.getValue('$.y')).toBe(42);
  });

  it('a runaway library function is still stopped, and the model keeps working', async () => {
    const rt = await startRuntime(
      await compileModel(
        spec('( $spin := function($n) { $n > 0 ? $spin($n) : 0 }; ["spin"] )', 'x > 0 ? $spin(x) : -1'),
      ),
    );
    const result = await rt.mutate({ '$.x': 1 });
    const trace = result.traces.find((t) => t.targetPath === '$.y');
    expect(trace?.errorMessage).toMatch(/D1012|D1011/);
    // the message names the limit that stopped it (JSONata fills its template from the error)
    expect(trace?.errorMessage).toMatch(/^D1012: Evaluation timeout after 2000 milliseconds|^D1011/);
    expect(trace?.errorMessage).not.toMatch(/undefined/);
    expect(await rt.getValue('$.y')).toBeNull();
    await rt.mutate({ '$.x': -5 });
    expect(await rt.getValue('$.y')).toBe(-1);
  });
});
