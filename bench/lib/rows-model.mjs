// The rows model the read benches share (calc-rows, mcp-calc): a tax rate, rows of price × qty and
// their sum, and the rows that fill it. One definition, so both benches read the same model.
export const ROW_EXPR = '$parent.price * $parent.qty';
export const SUM_EXPR = '$sum(items.total)';

/** The spec: `taxRate`, `items[*].total` per row and `grand` over them. */
export function rowsSpec(id = 'rows') {
  return {
    id,
    version: '1.0.0',
    schema: {
      type: 'object',
      properties: {
        taxRate: { type: 'number', default: 0.2 },
        items: {
          type: 'array',
          items: { type: 'object', properties: { price: { type: 'number' }, qty: { type: 'number' } } },
        },
      },
    },
    derivations: [
      { path: '$.items[*].total', expr: ROW_EXPR },
      { path: '$.grand', expr: SUM_EXPR },
    ],
  };
}

/** `count` rows of small whole numbers (the same rows in every bench). */
export const rowsOf = (count) =>
  Array.from({ length: count }, (_, i) => ({ price: (i % 97) + 1, qty: (i % 7) + 1 }));
