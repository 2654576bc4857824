// `modelworks calc solve` (issue 46) as a user runs it: a child process on the built CLI (`npx tsc
// -p tsconfig.build.json` first). The car loan's deposit for a 400 payment, read back from --json;
// exit 1 for a target out of reach, 2 for bad usage, one line on stderr and no stack trace.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STACK_FRAME, root, run } from './cli-process.js';

const CAR_LOAN = join(root, 'examples/calc/car-loan-calculator.json');

describe('modelworks calc solve', () => {
  it("prints the car loan's deposit for a 400 payment and exits 0", () => {
    const r = run([
      'calc',
      'solve',
      CAR_LOAN,
      '--vary',
      '$.deposit=0..20000',
      '--target',
      '$.monthlyPayment=400',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as {
      met: boolean;
      inputs: Record<string, number>;
      outputs: Record<string, number>;
    };
    expect(result.met).toBe(true);
    expect(result.outputs['$.monthlyPayment']).toBe(400);
    expect(Math.abs(result.inputs['$.deposit']! - (24000 - (400 * (1 - 1.006 ** -48)) / 0.006))).toBeLessThan(
      0.25,
    );
    const text = run([
      'calc',
      'solve',
      CAR_LOAN,
      '--vary',
      '$.deposit=0..20000',
      '--target',
      '$.monthlyPayment=400',
    ]);
    expect(text.stdout).toMatch(
      /^met \(converged\): \$\.monthlyPayment = 400, reached 400\n {2}\$\.deposit = 736\d/,
    );
  });

  it('exits 1 for a target out of reach, with the closest value', () => {
    const r = run([
      'calc',
      'solve',
      CAR_LOAN,
      '--vary',
      '$.deposit=0..2000',
      '--target',
      '$.monthlyPayment=400',
      '--seed',
      '1',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/not met \(infeasible\): .* reached 528\.86/);
  });

  it('exits 2 with one line for bad usage or a question the model cannot answer', () => {
    for (const [args, message] of [
      [['--vary', '$.deposit=0-20000', '--target', '$.monthlyPayment=400'], /--vary expects PATH=MIN..MAX/],
      [['--vary', '$.deposit=0..20000'], /give one of --target/],
      [['--vary', '$.monthlyPayment=0..20000', '--target', '$.monthlyPayment=400'], /SOLVE_NOT_AN_INPUT/],
      [['--vary', '$.deposit=10..1', '--target', '$.monthlyPayment=400'], /SOLVE_BAD_BOUNDS/],
    ] as const) {
      const r = run(['calc', 'solve', CAR_LOAN, ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(STACK_FRAME);
    }
  });
});
