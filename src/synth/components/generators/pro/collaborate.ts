/**
 * Collaborate targets that are generators: CollaborationBeacon (a counter whose collaborate reads
 * leave it unchanged, verified by collaborate-demo) and FhirIdRegistry (one id sequence shared by the
 * FHIR renderers; every read takes the next id).
 */
import { DOUBLE, INT } from '../../../engine/row.js';
import type { CollaborateTarget, ComponentImpl } from '../../component.js';
import { proImpl } from '../../pro-nodes.js';

export const COLLABORATE_GENERATORS: ComponentImpl[] = [
  proImpl('CollaborationBeacon', (ctx): CollaborateTarget => {
    let value = ctx.params.double('initial');
    return {
      name: ctx.name,
      type: ctx.type,
      dimension: 1,
      synchronous: false,
      // Pulling emits the current value and advances the counter by one.
      next(out, offset): void {
        out.nums[offset] = value;
        out.kinds[offset] = DOUBLE;
        value += 1;
      },
      collaborateDimension: 1,
      collaborate(out, offset): void {
        out.nums[offset] = value;
        out.kinds[offset] = DOUBLE;
      },
    };
  }),
  proImpl('FhirIdRegistry', (ctx): CollaborateTarget => {
    let next = ctx.params.int('startAt');
    return {
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
  }),
];
