// Specs shared by the MCP end-to-end tests.

/** The seed's worked example, verbatim. */
export const DEMO = {
  id: 'demo',
  version: '1',
  schema: {},
  derivations: [{ path: '$.total', expr: 'price * qty' }],
  constraints: [],
  metaDerivations: [],
  tests: [],
};

/** The smallest model with a derivation: `$.price` is `cost * 1.2`. */
export function priceSpec(id: string) {
  return {
    id,
    version: '1',
    schema: {},
    derivations: [{ path: '$.price', expr: 'cost * 1.2' }],
    constraints: [],
    metaDerivations: [],
    tests: [],
  };
}

/** A model with every section a tool reads: library, rows, meta, both constraint policies, a view. */
export function orderSpec(id: string) {
  return {
    id,
    version: '1.0.0',
    schema: {
      type: 'object',
      properties: {
        customer: {
          type: 'object',
          properties: { tier: { type: 'string', enum: ['standard', 'gold'] } },
        },
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              sku: { type: 'string' },
              price: { type: 'number', minimum: 0 },
              qty: { type: 'integer' },
              lineTotal: { type: 'number', readOnly: true },
            },
          },
        },
        attachment: { type: 'object' },
        subtotal: { type: 'number', readOnly: true },
        total: { type: 'number', readOnly: true },
      },
    },
    constants: { maxQty: 50 },
    library: { define: '( $money := function($x) { $round($x, 2) }; ["money"] )' },
    defaultValues: [
      { path: '$', expr: '{"customer": {"tier": "standard"}, "items": []}' },
      { path: '$.items[*]', expr: '{"qty": 1}' },
    ],
    derivations: [
      { path: '$.items[*].lineTotal', expr: '$money($parent.price * $parent.qty)' },
      { path: '$.subtotal', expr: '$money($sum([items.lineTotal]))' },
      { path: '$.total', expr: 'customer.tier = "gold" ? $money(subtotal * 0.9) : subtotal' },
    ],
    metaDerivations: [{ path: '$.items[*].qty', property: 'maximum', expr: '$const.maxQty' }],
    constraints: [
      {
        id: 'qty-positive',
        path: '$.items[*]',
        expr: 'qty >= 1',
        message: 'Every line needs a quantity of at least 1',
        policy: 'rollback',
      },
      {
        id: 'large-order',
        expr: 'total <= 5000',
        message: 'Orders above 5,000 need a review',
        policy: 'flag',
      },
    ],
    viewDefinition: {
      defaultView: 'main',
      views: [
        {
          id: 'main',
          label: 'Order',
          layout: 'vertical',
          components: [
            {
              id: 'tier',
              type: 'selectField',
              label: 'Tier',
              bind: '$.customer.tier',
              options: [
                { value: 'standard', label: 'Standard' },
                { value: 'gold', label: 'Gold' },
              ],
            },
            { id: 'total', type: 'statTile', label: 'Total', bind: '$.total' },
          ],
        },
      ],
    },
    tests: [
      {
        description: 'one line',
        given: { '$.items[0].price': 10, '$.items[0].qty': 3 },
        expect: { '$.subtotal': 30, '$.total': 30 },
      },
      {
        description: 'gold gets 10% off',
        given: { '$.customer.tier': 'gold', '$.items[0].price': 100 },
        expect: { '$.total': 90 },
      },
    ],
  };
}

/** A schema-free model: anything can be written. */
export function looseSpec(id: string) {
  return { id, version: '1', schema: {}, derivations: [{ path: '$.total', expr: 'price * qty' }] };
}

/** The tools the seed names (pair_browser and the card tools come later). */
export const MODEL_TOOLS = [
  'list_models',
  'create_model',
  'get_model_info',
  'get_spec',
  'get_state',
  'get_field',
  'get_effective_schema',
  'mutate',
  'patch_model',
  'explain',
  'get_history',
  'get_audit',
  'verify_audit',
  'snapshot',
  'restore',
  'evolve_spec',
  'delete_model',
  'get_view',
  'get_library',
  'upload_blob',
  'download_blob',
];
export const AUTHORING_TOOLS = [
  'get_domain_guidance',
  'validate_spec',
  'eval_expression',
  'test_spec',
  'dry_run',
];
