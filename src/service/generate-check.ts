/**
 * The checks a generated spec passes, in order (docs/generate.md): validation (without the
 * embedded tests), the initial-state gate (the seeded state must satisfy every rollback
 * constraint, as create_model demands), the embedded tests (only verifiable failures count) and
 * the view lint (binds naming nothing, literals where an expression was meant).
 */
import {
  CalcError,
  compileModel,
  normalizeSpec,
  publicMessage,
  startRuntime,
  validateSpec,
  type CompiledModel,
} from '../calc/index.js';
import type { Finding } from './generate-prompt.js';
import { verificationReport, type VerificationReport } from './verification.js';

/** What failed, by stage; `hard` ends the attempt before the tests run. */
export interface CheckOutcome {
  stage: 'valid' | 'invalid' | 'initial-state' | 'tests' | 'view-lint';
  /** Findings to feed back; empty when the spec passed every check. */
  findings: Finding[];
  /** Whether the findings stop the spec from being created at all. */
  hard: boolean;
  verification?: VerificationReport;
  /** The candidate, once it compiled. */
  spec?: Record<string, unknown>;
}

/** The verification report without its model identity (the caller knows which spec it checked). */
export type GenerationVerification = Omit<VerificationReport, 'modelId' | 'specVersion'>;

export function publicVerification(v: VerificationReport): GenerationVerification {
  const { modelId: _id, specVersion: _v, ...rest } = v;
  return rest;
}

async function initialStateGate(model: CompiledModel): Promise<Finding[]> {
  try {
    await startRuntime(model);
    return [];
  } catch (err) {
    if (err instanceof CalcError && err.code === 'CONSTRAINT_VIOLATION') {
      const violations = Array.isArray(err.details.violations)
        ? (err.details.violations as { constraintId?: string; message?: string }[])
        : [];
      return violations.length > 0
        ? violations.map((v) => ({
            location: `constraints[${v.constraintId ?? '?'}]`,
            message: `the initial state (after the $ defaultValues) breaks this rollback constraint: ${v.message ?? ''}`,
          }))
        : [
            {
              location: 'constraints',
              message: `the initial state breaks a rollback constraint: ${err.message}`,
            },
          ];
    }
    return [
      {
        location: 'defaultValues',
        message: `the initial state could not be computed: ${publicMessage(err)}`,
      },
    ];
  }
}

/** Runs every check on a candidate spec. */
export async function checkCandidate(candidate: unknown): Promise<CheckOutcome> {
  const report = await validateSpec(candidate, { runTests: false });
  if (!report.valid) return { stage: 'invalid', findings: report.errors, hard: true };
  let model: CompiledModel;
  try {
    model = await compileModel(normalizeSpec(candidate).spec);
  } catch (err) {
    return { stage: 'invalid', findings: [{ location: 'root', message: publicMessage(err) }], hard: true };
  }
  const gate = await initialStateGate(model);
  if (gate.length > 0) return { stage: 'initial-state', findings: gate, hard: true };
  const verification = await verificationReport(model);
  const spec = candidate as Record<string, unknown>;
  const failing = verification.cases.filter((c) => c.verifiable && c.passed === false);
  if (failing.length > 0) {
    const exprOf = new Map(model.spec.derivations.map((d) => [d.path, d.expr]));
    const findings = failing.map((c) => {
      const index = verification.cases.indexOf(c);
      const detail = Object.entries(c.actual)
        .map(([path, actual]) => {
          const expr = exprOf.get(path);
          return `${path} expected ${JSON.stringify(c.expect[path])}, got ${JSON.stringify(actual)}${expr ? ` (expr: ${expr})` : ''}`;
        })
        .join('; ');
      return {
        location: `tests[${index}]`,
        message: `"${c.description}" fails: ${detail || c.reason || 'failed'}`,
      };
    });
    return { stage: 'tests', findings, hard: false, verification, spec };
  }
  const lint = report.warnings.filter((w) => w.location.startsWith('viewDefinition'));
  if (lint.length > 0) return { stage: 'view-lint', findings: lint, hard: false, verification, spec };
  return { stage: 'valid', findings: [], hard: false, verification, spec };
}
