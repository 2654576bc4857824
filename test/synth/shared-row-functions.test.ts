// Later graphs as fast as the first (issue 40, point 7): every node of the 3d6 model and of the
// bundled support-queue gets its row method from its class, so two graphs of a model call the
// very same functions (closures made per graph were new functions each time, and V8 stopped
// inlining them from a process's second graph on; bench/synth-generations.mjs measures the time).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SynthRun } from '../../src/synth/engine/run.js';
import { parseModel } from '../../src/synth/model/io.js';
import { DICE_MODEL } from './helpers.js';

const SUPPORT_QUEUE = readFileSync(join(__dirname, '../../examples/synth/support-queue.xml'), 'utf8');

describe('row functions shared by every graph', () => {
  for (const [label, text] of [
    ['3d6', DICE_MODEL],
    ['support-queue', SUPPORT_QUEUE],
  ] as const) {
    it(`${label}: each node's row method is the same function in two graphs`, () => {
      const model = parseModel(text);
      const a = new SynthRun(model, 1n).graph;
      const b = new SynthRun(model, 2n).graph;
      expect(a.nodes.size).toBeGreaterThan(4);
      for (const [name, node] of a.nodes)
        // the function objects are compared, never called unbound
        // eslint-disable-next-line @typescript-eslint/unbound-method
        expect(b.nodes.get(name)!.next, name).toBe(node.next);
    });
  }
});
