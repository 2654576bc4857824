// How a simulation reaches the card: `simulate` is listed with the card's UI resource (MCP Apps
// hosts open the card beside its result), and its result carries the notes the card draws with
// (labels, number formats, constraint messages) beside the structured content.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { carLoan, linked, type Linked } from './helpers.js';

const INPUTS = JSON.parse(
  readFileSync(new URL('../../examples/simulate/car-loan-uncertainty.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
const OUTPUTS = ['$.monthlyPayment', '$.costOfCredit'];
const NOTES = {
  mode: 'simulation',
  modelId: 'car-loan-calculator',
  title: 'Car loan calculator',
  fields: {
    '$.vehiclePrice': { label: 'Vehicle price', format: 'currency', currency: 'USD' },
    '$.deposit': { label: 'Deposit', format: 'currency', currency: 'USD' },
    '$.annualRatePercent': { label: 'Annual rate (%)', format: 'percent' },
    '$.monthlyPayment': { label: 'Monthly payment', format: 'currency', currency: 'USD' },
    '$.costOfCredit': { label: 'Cost of credit', format: 'currency', currency: 'USD' },
  },
  constraints: {
    'deposit-within-price': { message: 'The deposit cannot exceed the vehicle price', policy: 'rollback' },
    'long-expensive-loan': {
      message: 'Interest adds more than a quarter to the amount borrowed',
      policy: 'flag',
    },
  },
};

let peer: Linked | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

describe('simulate in the card', () => {
  it('is listed with the card as its UI resource', async () => {
    peer = await linked();
    const tool = (await peer.client.listTools()).tools.find((t) => t.name === 'simulate')!;
    expect(tool._meta).toMatchObject({
      ui: { resourceUri: 'ui://valem/model-card.html', visibility: ['model', 'app'] },
    });
    // what the link costs every tools/list (the budget is in test/mcp/e2e.test.ts)
    const { _meta, ...bare } = tool;
    console.log(
      `simulate's tools/list entry: ${JSON.stringify(tool).length} bytes (${JSON.stringify(tool).length - JSON.stringify(bare).length} for the card link)`,
    );
  });

  it('answers a spec with the labels, formats and constraint messages of the paths it names', async () => {
    peer = await linked();
    const r = await peer.call('simulate', {
      spec: carLoan(),
      inputs: INPUTS,
      outputs: OUTPUTS,
      runs: 50,
      seed: 3,
    });
    expect(r.isError).toBeFalsy();
    expect(r._meta?.['valem/card']).toEqual(NOTES); // $.years and the balances table are not asked about
    expect(r.structuredContent!.runs).toBe(50);
  });

  it('reads a live model’s spec for the notes when simulating by id', async () => {
    peer = await linked();
    await peer.calc.createModel(carLoan());
    const r = await peer.call('simulate', {
      id: 'car-loan-calculator',
      inputs: INPUTS,
      outputs: ['$.monthlyPayment'],
      runs: 20,
      seed: 3,
    });
    expect(r.isError).toBeFalsy();
    expect(r._meta?.['valem/card']).toMatchObject({
      mode: 'simulation',
      modelId: 'car-loan-calculator',
      fields: { '$.monthlyPayment': { label: 'Monthly payment' } },
    });
  });

  it('adds no card notes to a refusal', async () => {
    peer = await linked();
    const r = await peer.call('simulate', {
      id: 'car-loan-calculator',
      spec: carLoan(),
      inputs: INPUTS,
      outputs: OUTPUTS,
    });
    expect(r.isError).toBe(true);
    expect(r._meta?.['valem/card']).toBeUndefined();
  });
});
