/**
 * Import (§1.4) is resolved by the loader before any node is built (src/synth/engine/compose.ts):
 * this entry only makes it listable. Reaching `create` means composition was skipped.
 */
import { SynthError } from '../../errors.js';
import type { ComponentImpl } from '../component.js';
import { descriptorOf } from '../component.js';

export const IMPORT: ComponentImpl = {
  descriptor: descriptorOf('Import'),
  inputAttributes: [],
  create(ctx) {
    throw new SynthError(
      'SYNTH_LOAD',
      `Import "${ctx.name}" was not inlined (load the model with prepareModel)`,
    );
  },
};
