// Scripted answers for the generation tests: a car-loan spec that is right, and the slips a model
// makes on the way there (not JSON, a schema error, a failing embedded test, an initial state that
// breaks a rollback constraint).

export function loanSpec(id = 'car-loan', over: { expected?: number; deposit?: number; expr?: string } = {}) {
  return {
    id,
    version: '1.0.0',
    schema: {
      type: 'object',
      properties: {
        price: { type: 'number', minimum: 0 },
        deposit: { type: 'number', minimum: 0 },
        financed: { type: 'number', readOnly: true },
      },
    },
    defaultValues: [{ path: '$', expr: `{"price": 20000, "deposit": ${over.deposit ?? 2000}}` }],
    derivations: [{ path: '$.financed', expr: over.expr ?? 'price - deposit' }],
    constraints: [
      {
        id: 'deposit-within-price',
        expr: 'deposit <= price',
        message: 'The deposit cannot exceed the price',
        policy: 'rollback',
      },
    ],
    tests: [
      {
        description: 'financed is price less deposit',
        given: { '$.price': 1000, '$.deposit': 200 },
        expect: { '$.financed': over.expected ?? 800 },
      },
    ],
  };
}

/** Not JSON at all: an answer cut short mid-object, in prose. */
export const NOT_JSON = 'Here is your model: {"id": "car-loan", "schema": {"type": "object", ';
/** Valid JSON, but the validator refuses it (an unknown function). */
export const SCHEMA_ERROR = JSON.stringify(loanSpec('car-loan', { expr: '$minus(price, deposit)' }));
/** Valid, but its embedded test expects the wrong number. */
export const FAILING_TEST = JSON.stringify(loanSpec('car-loan', { expected: 900 }));
/** Valid, but the seeded state breaks the rollback constraint. */
export const BAD_INITIAL_STATE = JSON.stringify(loanSpec('car-loan', { deposit: 50000 }));
/** Right. */
export const GOOD = JSON.stringify(loanSpec('car-loan'));
/** The four scripted answers of the acceptance list, in order. */
export const CONVERGING_SCRIPT = [NOT_JSON, SCHEMA_ERROR, FAILING_TEST, GOOD];
