// The card's composition line (web/src/composition.ts): the template a model was branched from and
// its links with their last phase, read from the spec and state the card already holds.
import { describe, expect, it } from 'vitest';
import { compositionSummary } from '../../web/src/composition.js';

describe('the card composition summary', () => {
  it('names the nearest template and each link with its kind and last phase', () => {
    const spec = {
      lineage: [
        { ref: 'acme/invoice', version: '1.2.0', digest: 'sha256:ab', repo: 'local' },
        { ref: 'acme/base', version: '1.0.0' },
      ],
      effects: [
        {
          id: 'report',
          executor: 'server',
          statusPath: '$.io.report',
          target: { ref: 'acme/company', path: '$.x' },
        },
        {
          id: 'rate',
          executor: 'server',
          statusPath: '$.io.rate',
          target: { ref: 'acme/rates', read: '$.usd', watch: true },
        },
        { id: 'mail', executor: 'server', request: { url: 'https://x' } },
      ],
    };
    const state = { io: { report: { phase: 'applied' }, rate: { phase: 'in_flight' } } };
    expect(compositionSummary(spec, state)).toEqual({
      branchedFrom: { ref: 'acme/invoice', version: '1.2.0' },
      links: [
        { effectId: 'report', target: 'acme/company', kind: 'write', watch: false, phase: 'applied' },
        { effectId: 'rate', target: 'acme/rates', kind: 'read', watch: true, phase: 'in_flight' },
      ],
    });
  });

  it('says nothing for a model that is neither a branch nor linked, and survives odd input', () => {
    expect(compositionSummary({ lineage: [], effects: [] }, {})).toBeUndefined();
    expect(compositionSummary(undefined, undefined)).toBeUndefined();
    const odd = {
      effects: [{ id: 'x', statusPath: '$.__proto__.polluted', target: { ref: 'b', path: '$.y' } }],
    };
    expect(compositionSummary(odd, {})).toEqual({
      links: [{ effectId: 'x', target: 'b', kind: 'write', watch: false }],
    });
  });
});
