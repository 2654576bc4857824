/**
 * A solve as the card receives it: the `solve` tool's structured result (src/service/solve/solve.ts)
 * and the notes the tool adds for the card (labels and number formats from the model's spec, as
 * for a simulation; src/mcp/solve-tool.ts), with the words the card uses for why it stopped.
 */
import type { SimulationNotes } from './simulation-model';

export interface SolveResult {
  met: boolean;
  reason: 'converged' | 'bounds' | 'infeasible' | 'budget';
  inputs: Record<string, number>;
  outputs: Record<string, unknown>;
  target?: {
    path: string;
    value?: number;
    atMost?: number;
    atLeast?: number;
    tolerance: number;
    achieved: number | null;
    gap: number | null;
  };
  objective?: { minimize?: string; maximize?: string; value: number | null };
  iterations: number;
  seed: string;
  atBounds?: string[];
  broken?: string[];
  flagged?: string[];
  stopped?: string;
  applied?: { committed: boolean; revision?: number; reason?: string };
}

export type SolveNotes = Omit<SimulationNotes, 'mode'> & { mode: 'solve' };

/** Is this a solve result (checked before drawing: the card trusts nothing it is sent)? */
export function isSolveResult(v: unknown): v is SolveResult {
  if (v === null || typeof v !== 'object') return false;
  const r = v as Record<string, unknown>;
  const isMap = (m: unknown): boolean => m !== null && typeof m === 'object' && !Array.isArray(m);
  return (
    typeof r.met === 'boolean' &&
    typeof r.reason === 'string' &&
    typeof r.iterations === 'number' &&
    isMap(r.inputs) &&
    isMap(r.outputs) &&
    (isMap(r.target) || isMap(r.objective))
  );
}

/** Why the search stopped, in plain words. */
export function reasonText(r: SolveResult): string {
  switch (r.reason) {
    case 'converged':
      return r.target ? 'The target is met.' : 'The search settled on this point.';
    case 'bounds':
      return 'The best point lies on a bound: a wider range might do better.';
    case 'infeasible':
      return r.target
        ? 'The target cannot be met within the bounds and constraints; this is the closest point found.'
        : 'No point tried holds every constraint.';
    case 'budget':
      return `Stopped early (${r.stopped ?? 'a budget ran out'}); this is the best point found.`;
  }
}
