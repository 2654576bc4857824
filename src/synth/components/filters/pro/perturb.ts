/**
 * Perturb (§3.3, verified): pull `wait` once (W), emit W normal rows, pull `duration` (D), emit D
 * disturbance rows, and start over when `repeat` is set. Only the active branch is pulled, except
 * synchronous inputs, which step every cycle.
 */
import { Row } from '../../../engine/row.js';
import type { RuntimeNode } from '../../../engine/row.js';
import type { ComponentImpl } from '../../component.js';
import { byRole, filterNode, proImpl } from '../../pro-nodes.js';

const ROLES = [
  ['normal', 'data', 'primary'],
  ['disturbance', 'perturb', 'error'],
  ['wait', 'delay'],
  ['duration', 'length'],
] as const;

export const PERTURB: ComponentImpl = proImpl('Perturb', (ctx) => {
  const [normal, disturbance, wait, duration] = byRole(ctx, ROLES) as RuntimeNode[];
  if (normal!.dimension !== disturbance!.dimension)
    ctx.params.reject('normal and disturbance inputs must share one dimension');
  const repeat = ctx.params.bool('repeat');
  const synchronous = ctx.params.has('synchronous')
    ? ctx.params.bool('synchronous')
    : normal!.synchronous || disturbance!.synchronous;
  const sink = new Row(normal!.dimension);
  const count = new Row(Math.max(wait!.dimension, duration!.dimension));
  const pullCount = (node: RuntimeNode): number => {
    node.next(count, 0);
    const v = Math.trunc(count.num(0));
    return Number.isFinite(v) && v > 0 ? v : 0;
  };
  const emit = (disturbed: boolean, out: Row, offset: number): void => {
    (disturbed ? disturbance! : normal!).next(out, offset);
    const idle = disturbed ? normal! : disturbance!;
    if (idle.synchronous) idle.next(sink, 0);
  };
  let state: 'start' | 'normal' | 'disturb' | 'done' = 'start';
  let left = 0;
  return filterNode(
    ctx,
    normal!.dimension,
    (out, offset) => {
      for (let cycles = 0; ;) {
        if (state === 'start') {
          // A schedule of zero normal and zero disturbed rows would spin: emit a normal row.
          if (cycles++ > 0) return emit(false, out, offset);
          left = pullCount(wait!);
          state = 'normal';
        }
        if (state === 'normal') {
          if (left > 0) {
            left--;
            return emit(false, out, offset);
          }
          left = pullCount(duration!);
          state = 'disturb';
        }
        if (state === 'disturb') {
          if (left > 0) {
            left--;
            return emit(true, out, offset);
          }
          state = repeat ? 'start' : 'done';
        }
        if (state === 'done') return emit(false, out, offset);
      }
    },
    synchronous,
  );
});
