/**
 * A simulation as the card receives it: the `simulate` tool's structured result (see
 * src/service/simulate/simulate.ts) and the notes the tool adds for the card (labels, number
 * formats and constraint messages from the model's spec; src/mcp/card-tools.ts), with the words
 * the card uses for rates and percentiles.
 */
import { formatValue, plainNumber, type NumberFormat } from './format';

export interface OutputSummary {
  count: number;
  mean: number | null;
  stdDev: number | null;
  min: number | null;
  max: number | null;
  percentiles: Record<string, number | null>;
  histogram: { edges: number[]; counts: number[]; sampled: number };
  nonNumeric?: number;
}

export interface SimulationResult {
  runs: number;
  seed: string;
  failedRuns: number;
  failures?: Record<string, number>;
  outputs: Record<string, OutputSummary>;
  constraints: Record<string, { rollbackRate: number; flagRate: number }>;
  sensitivity: Record<string, Record<string, number | null>>;
  stopped?: string;
  sampledRuns?: number;
}

export interface SimulationNotes {
  mode: 'simulation';
  modelId: string;
  title?: string;
  fields?: Record<string, { label?: string; format?: string; currency?: string }>;
  constraints?: Record<string, { message?: string; policy?: string }>;
}

/** Is this a simulate result (checked before drawing: the card trusts nothing it is sent)? */
export function isSimulationResult(v: unknown): v is SimulationResult {
  if (v === null || typeof v !== 'object') return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.runs === 'number' &&
    typeof r.failedRuns === 'number' &&
    r.outputs !== null &&
    typeof r.outputs === 'object' &&
    r.constraints !== null &&
    typeof r.constraints === 'object' &&
    r.sensitivity !== null &&
    typeof r.sensitivity === 'object'
  );
}

/** The note for `key`, never one inherited from Object.prototype (paths and ids are data). */
export function own<T>(map: Record<string, T> | undefined, key: string): T | undefined {
  return map && Object.hasOwn(map, key) ? map[key] : undefined;
}

export function labelOf(notes: Pick<SimulationNotes, 'fields'>, path: string): string {
  return own(notes.fields, path)?.label ?? path;
}

export function formatIn(notes: Pick<SimulationNotes, 'fields'>, path: string): NumberFormat {
  const f = own(notes.fields, path);
  return f ? { format: f.format, currency: f.currency } : {};
}

/** A number in its field's format, shortened to what a person reads (cents for money). */
export function formatNumber(v: number | null | undefined, how: NumberFormat): string {
  if (v === null || v === undefined) return '—';
  if (how.format === 'currency' || how.format === 'percent') return formatValue(v, how.format, how.currency);
  return plainNumber(v, Math.abs(v) >= 100 ? 2 : 4);
}

/** "5" → "5th percentile", "50" → "median". */
export function percentileName(p: string): string {
  if (p === '50') return 'median';
  const n = Number(p);
  const suffix =
    Number.isInteger(n) && Math.floor(n / 10) % 10 !== 1
      ? ({ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th')
      : 'th';
  return `${p}${suffix} percentile`;
}

/** A share of runs as a percentage: 0.0321 → "3.21%", tiny shares as "<0.01%". */
export function percentText(rate: number): string {
  if (rate > 0 && rate < 0.0001) return '<0.01%';
  return `${plainNumber(rate * 100, 2)}%`;
}

/** A share of runs in words: "never", "every run", "12.5% of runs (about 1 in 8)". */
export function shareInWords(rate: number): string {
  if (rate <= 0) return 'never';
  if (rate >= 1) return 'in every run';
  const oneIn = Math.round(1 / rate);
  return `in ${percentText(rate)} of runs${oneIn >= 2 ? ` (about 1 in ${plainNumber(oneIn)})` : ''}`;
}

/** Why runs failed, by error code, in plain words. */
export function failureReason(code: string): string {
  switch (code) {
    case 'CONSTRAINT_VIOLATION':
      return 'refused by a rollback constraint';
    case 'SCHEMA_VIOLATION':
      return 'a drawn value the schema does not allow';
    case 'DERIVED_TARGET_WRITE':
      return 'an input path the model computes itself';
    case 'PATH_NOT_FOUND':
    case 'INDEX_LIMIT':
      return 'an input path the model cannot write';
    default:
      return 'the model could not compute the run';
  }
}
