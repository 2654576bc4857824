// `modelworks calc dry-run --set` with an address the schema does not have (issue 19): it exited 0
// and printed a state with a stray field. The built CLI as a child process (`npx tsc -p
// tsconfig.build.json` first; `npm test` builds).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'dist/cli/main.js');
const carLoan = 'examples/calc/car-loan-calculator.json';

function dryRun(spec: string, ...sets: string[]) {
  const r = spawnSync(
    process.execPath,
    [cli, 'calc', 'dry-run', spec, ...sets.flatMap((s) => ['--set', s])],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmp = mkdtempSync(join(tmpdir(), 'modelworks-dry-run-'));
const write = (name: string, value: unknown): string => {
  const p = join(tmp, name);
  writeFileSync(p, JSON.stringify(value));
  return p;
};

describe('dry-run --set addresses', () => {
  it('an address the schema does not have exits 1 and says so, printing no state', () => {
    const r = dryRun(carLoan, '$.nope=1');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^modelworks: --set \$\.nope: the schema has no field 'nope' at \$ \(its fields: vehiclePrice, deposit, /,
    );
  });

  it('a near miss gets a suggestion', () => {
    const r = dryRun(carLoan, '$.years=5', '$.yeras=5');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--set $.yeras: the schema has no field 'yeras' at $");
    expect(r.stderr).toContain('did you mean $.years?');
    expect(r.stderr).not.toContain('$.years:');
  });

  it('inside array elements and nested objects too; inside a derived value is refused', () => {
    const spec = write('nested.json', {
      id: 'nested',
      schema: {
        type: 'object',
        properties: {
          items: { type: 'array', items: { $ref: '#/$defs/item' } },
          order: { type: 'object', properties: { note: { type: 'string' } } },
        },
        $defs: { item: { type: 'object', properties: { price: { type: 'number' } } } },
      },
      derivations: [{ path: '$.summary', expr: '{"n": $count(items)}' }],
    });
    expect(dryRun(spec, '$.items[0].prise=1').stderr).toContain(
      "the schema has no field 'prise' at $.items[0] (its fields: price); did you mean $.items[0].price?",
    );
    expect(dryRun(spec, '$.order.nte="x"').stderr).toContain("no field 'nte' at $.order");
    const inside = dryRun(spec, '$.summary.n=3');
    expect(inside.code).toBe(1);
    expect(inside.stderr).toContain('$.summary is computed by a derivation; nothing inside it can be set');
    const ok = dryRun(spec, '$.items[0].price=2', '$.order.note="x"');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      items: [{ price: 2 }],
      order: { note: 'x' },
      summary: { n: 1 },
    });
  });

  it('a schema that lists no fields, or leaves room for others, takes any field', () => {
    const open = write('open.json', {
      id: 'open',
      schema: {},
      derivations: [{ path: '$.total', expr: 'price * qty' }],
    });
    const r = dryRun(open, '$.price=10', '$.qty=3');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ price: 10, qty: 3, total: 30 });
    const extra = write('extra.json', {
      id: 'extra',
      schema: {
        type: 'object',
        properties: { a: { type: 'number' } },
        additionalProperties: { type: 'number' },
      },
    });
    expect(dryRun(extra, '$.b=1').code).toBe(0);
  });
});
