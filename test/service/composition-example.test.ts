// The worked example of docs/composition.md, on the files under examples/composition/: two
// department budgets feeding a company total through write-links, an invoice reading (and
// watching) a rates model through a read-link, and a branch of the invoice adding VAT.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { linkedModels } from './helpers/linked-models.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const example = (name: string): Json =>
  JSON.parse(
    readFileSync(new URL(`../../examples/composition/${name}.json`, import.meta.url), 'utf8'),
  ) as Json;

const setup = linkedModels;

describe('examples/composition', () => {
  it('two department budgets feed the company total, which comes back to each', async () => {
    const { calc, write, state } = setup();
    for (const name of ['company', 'dept-sales', 'dept-ops']) await calc.createModel(example(name));
    await write('acme/dept-sales', { '$.headcount': 4, '$.costPerHead': 5000 });
    await write('acme/dept-ops', { '$.headcount': 3, '$.costPerHead': 4000 });
    expect((await state('acme/company')).total).toBe(32000);
    expect((await state('acme/dept-ops')).companyTotal).toBe(32000);
    // sales hires one more: the company total follows, and sales hears of it
    await write('acme/dept-sales', { '$.headcount': 5 });
    expect((await state('acme/company')).total).toBe(37000);
    expect((await state('acme/dept-sales')).companyTotal).toBe(37000);
    expect((await calc.compositionGraph()).linkEdges.map((e) => [e.from, e.to, e.last?.phase])).toEqual([
      ['acme/dept-ops', 'acme/company', 'applied'],
      ['acme/dept-sales', 'acme/company', 'applied'],
    ]);
  });

  it('an invoice reads and then follows the rate; a branch adds VAT', async () => {
    const { calc, write, state } = setup();
    for (const name of ['rates', 'invoice', 'invoice-eu']) await calc.createModel(example(name));
    await write('acme/rates', { '$.usd': 1.1 });
    await write('acme/invoice', { '$.amountEur': 100 });
    expect(await state('acme/invoice')).toMatchObject({ fxRate: 1.1, amountUsd: 110 });
    await write('acme/rates', { '$.usd': 1.2 });
    for (let i = 0; i < 50 && (await state('acme/invoice')).fxRate !== 1.2; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await state('acme/invoice')).toMatchObject({ fxRate: 1.2, amountUsd: 120 });
    await write('acme/invoice-eu', { '$.amountEur': 100 });
    expect(await state('acme/invoice-eu')).toMatchObject({ fxRate: 1.2, amountUsd: 144 });
    expect(await calc.getLineage('acme/invoice-eu')).toMatchObject([
      { ref: 'acme/invoice', version: '1.0.0' },
    ]);
  });
});
