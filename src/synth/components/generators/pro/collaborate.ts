/**
 * Collaborate targets that are generators: CollaborationBeacon (a counter whose collaborate reads
 * leave it unchanged, verified by collaborate-demo) and FhirIdRegistry (one id sequence shared by the
 * FHIR renderers; every read takes the next id).
 */
import { DOUBLE, INT } from '../../../engine/row.js';
import { accumulate, rowIndexed } from '../../../engine/row-indexed.js';
import type { CollaborateTarget, ComponentImpl } from '../../component.js';
import { proImpl } from '../../pro-nodes.js';

export const COLLABORATE_GENERATORS: ComponentImpl[] = [
  proImpl('CollaborationBeacon', (ctx): CollaborateTarget => {
    let value = ctx.params.double('initial');
    let pulls = 0;
    const node: CollaborateTarget = {
      name: ctx.name,
      type: ctx.type,
      dimension: 1,
      synchronous: false,
      // Pulling emits the current value and advances the counter by one.
      next(out, offset): void {
        out.nums[offset] = value;
        out.kinds[offset] = DOUBLE;
        value += 1;
        pulls++;
      },
      collaborateDimension: 1,
      collaborate(out, offset): void {
        out.nums[offset] = value;
        out.kinds[offset] = DOUBLE;
      },
    };
    return rowIndexed(
      node,
      () => pulls,
      (n) => {
        value = accumulate(value, 1, n);
        pulls += n;
      },
    );
  }),
  proImpl('FhirIdRegistry', (ctx): CollaborateTarget => {
    const startAt = ctx.params.int('startAt');
    let next = startAt;
    const node: CollaborateTarget = {
      name: ctx.name,
      type: ctx.type,
      dimension: 1,
      synchronous: false,
      next(out, offset): void {
        out.nums[offset] = next++;
        out.kinds[offset] = INT;
      },
      // An allocator: a read hands out the next id (the documented exception to "reads are pure").
      collaborateDimension: 1,
      collaborate(out, offset): void {
        out.nums[offset] = next++;
        out.kinds[offset] = INT;
      },
    };
    // every id handed out, by a pull or a read, counts
    return rowIndexed(
      node,
      () => next - startAt,
      (n) => {
        next += n;
      },
    );
  }),
];
