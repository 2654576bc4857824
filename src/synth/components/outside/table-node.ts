/**
 * The runtime shared by FlatFile, Database and ServiceCall: a table held in memory, emitted row by
 * row in one of three modes (§11): `sequential` (then `onExhaustion`), `unweighted`
 * (`floor(nextDouble() * rows)`), `weighted` (one `nextDouble()` against cumulative weights, the
 * weight column dropped).
 */
import { DOUBLE, STRING } from '../../engine/row.js';
import type { Kind, Row, RuntimeNode } from '../../engine/row.js';
import { SynthError } from '../../errors.js';
import type { BuildContext } from '../component.js';
import { checkColumns } from '../component.js';
import { rowIndexed } from '../../engine/row-indexed.js';
import { cumulative } from '../generators/discrete.js';

/** A typed cell: a number (printed as a double) or text. */
export type TypedCell = number | string;

const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** Cell typing (§3.4): numeric only when the text is an ordinary decimal literal. */
export function typeCell(text: string, asText: boolean): TypedCell {
  if (asText) return text;
  const t = text.trim();
  return DECIMAL.test(t) ? Number(t) : text;
}

/**
 * Resolves a column given by index or header name.
 * @param what the parameter, for messages
 */
export function columnIndex(
  ctx: BuildContext,
  spec: string,
  header: readonly string[] | undefined,
  what: string,
): number {
  const t = spec.trim();
  if (/^\d+$/.test(t)) return Number(t);
  if (header === undefined)
    return ctx.params.reject(`${what} "${t}" names a column, which needs a header row (skipHeader="true")`);
  const exact = header.indexOf(t);
  const i = exact >= 0 ? exact : header.findIndex((h) => h.trim().toLowerCase() === t.toLowerCase());
  if (i < 0) ctx.params.reject(`${what} "${t}" is not a column (columns: ${header.join(', ')})`);
  return i;
}

/** First index whose cumulative weight exceeds u (binary search; same answer as a linear scan). */
function pickRow(cum: Float64Array, u: number): number {
  let lo = 0;
  let hi = cum.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (u < cum[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Emits rows of typed cells in the node's mode. */
export function tableNode(
  ctx: BuildContext,
  rows: readonly (readonly TypedCell[])[],
  header?: readonly string[],
): RuntimeNode {
  const p = ctx.params;
  if (rows.length === 0) p.reject('the table has no data rows');
  // headers are looked up in arrays, but one rule holds for every name a model reaches
  const proto = header?.indexOf('__proto__') ?? -1;
  if (proto >= 0) p.reject(`column ${proto} is headed "__proto__", which is not allowed as a name`);
  const mode = p.text('mode') ?? 'unweighted';
  const width = rows.reduce((m, r) => Math.max(m, r.length), 0);
  checkColumns(ctx, width, 'the table width');
  let weightIndex = -1;
  let cum: Float64Array | undefined;
  if (mode === 'weighted') {
    weightIndex = columnIndex(ctx, p.text('weightColumn') ?? '0', header, 'weightColumn');
    if (weightIndex >= width) p.reject(`weightColumn ${weightIndex} is beyond the table's ${width} columns`);
    const weights = rows.map((r, i): number => {
      const w = r[weightIndex];
      return typeof w === 'number'
        ? w
        : p.reject(`row ${i + 1}: weight "${String(w ?? '')}" is not a number`);
    });
    cum = cumulative(weights, (m) => p.reject(m));
  }
  const columns = Array.from({ length: width }, (_, i) => i).filter((i) => i !== weightIndex);
  const dimension = columns.length;
  if (dimension === 0) p.reject('the table has no columns to emit');
  // Pre-split every row into kinds / numbers / strings so emitting copies only.
  const kinds: Kind[][] = [];
  const nums: number[][] = [];
  const strs: string[][] = [];
  for (const r of rows) {
    const k: Kind[] = [];
    const n: number[] = [];
    const s: string[] = [];
    for (const c of columns) {
      const v = r[c] ?? '';
      if (typeof v === 'number') {
        k.push(DOUBLE);
        n.push(v);
        s.push('');
      } else {
        k.push(STRING);
        n.push(NaN);
        s.push(v);
      }
    }
    kinds.push(k);
    nums.push(n);
    strs.push(s);
  }
  const emit = (i: number, out: Row, offset: number): void => {
    const k = kinds[i]!;
    const n = nums[i]!;
    const s = strs[i]!;
    for (let j = 0; j < dimension; j++) {
      out.kinds[offset + j] = k[j]!;
      out.nums[offset + j] = n[j]!;
      if (k[j] === STRING) out.strs[offset + j] = s[j]!;
    }
  };
  const rng = ctx.rng;
  const count = rows.length;
  let next: (out: Row, offset: number) => void;
  if (mode === 'sequential') {
    const onEnd = p.text('onExhaustion') ?? 'error';
    let i = 0;
    let pulls = 0;
    next = (out, offset) => {
      pulls++;
      if (i >= count) {
        if (onEnd === 'repeat') i = 0;
        else if (onEnd === 'hold') {
          emit(count - 1, out, offset);
          return;
        } else if (onEnd === 'null') {
          // Our rendering of "null": empty text in every column.
          for (let j = 0; j < dimension; j++) {
            out.kinds[offset + j] = STRING;
            out.strs[offset + j] = '';
          }
          return;
        } else
          throw new SynthError(
            'SYNTH_RUNTIME',
            `${ctx.type} "${ctx.name}": all ${count} rows used (onExhaustion="error")`,
          );
      }
      emit(i++, out, offset);
    };
    // a partition starts at its own rows of the table: where `pulls` calls above leave i
    const skip = (n: number): void => {
      pulls += n;
      i = pulls < count ? pulls : onEnd === 'repeat' ? pulls % count : count;
    };
    const node = { name: ctx.name, type: ctx.type, dimension, synchronous: false, next };
    return rowIndexed(node, () => pulls, skip);
  } else if (cum !== undefined) {
    const c = cum;
    next = (out, offset) => emit(pickRow(c, rng.nextDouble()), out, offset);
  } else {
    next = (out, offset) => emit(Math.floor(rng.nextDouble() * count), out, offset);
  }
  return { name: ctx.name, type: ctx.type, dimension, synchronous: false, next };
}
