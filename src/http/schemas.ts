/**
 * JSON Schemas of the routes: Fastify validates parameters and query strings with them, and
 * @fastify/swagger turns them into /openapi.json. Bodies are declared loosely (`type: object`)
 * because the service validates specs and mutations in depth with better messages.
 */
export const idParam = {
  type: 'object',
  properties: { id: { type: 'string', description: 'Model id' } },
  required: ['id'],
} as const;

export const idPathParams = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'Model id' },
    path: {
      type: 'string',
      description: 'An address, URL-encoded: "$.total", "total", "items.0.price" or "$constraint:id"',
    },
  },
  required: ['id', 'path'],
} as const;

/** A response documented for OpenAPI; no `type`, so replies are serialised as they are. */
export const reply = (description: string) => ({ description });

const problemDetail = {
  description: 'RFC 7807 problem details (`code` is the stable error code)',
  type: 'object',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
  },
  additionalProperties: true,
} as const;

/** Error responses shared by every keyed route. */
export const commonErrors = {
  400: { ...problemDetail, description: 'Malformed or unreadable request, or an illegal argument' },
  401: { ...problemDetail, description: 'Missing or wrong API key' },
  403: { ...problemDetail, description: 'Forbidden Origin or Host' },
};

export const modelErrors = {
  ...commonErrors,
  404: { ...problemDetail, description: 'Model not found' },
};

export const mutationErrors = {
  ...modelErrors,
  409: { description: 'Constraint violation: {error:"Constraint violation", violations}' },
  422: { description: 'Schema violation: {error:"Schema violation", violations}; index limit; bad patch' },
  429: { ...problemDetail, description: "The model's mutation queue is full" },
};
