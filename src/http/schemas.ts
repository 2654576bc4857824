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

/** The optional compare-and-set of a write: `?expectedRevision=N`. */
export const expectedRevision = {
  type: 'integer',
  minimum: 0,
  description:
    "Write only if the model is still at this revision (GET /models/{id}'s revision, or GET /models/{id}/state's Model-Revision header); else 409 Version conflict and nothing changes",
} as const;

/** The 409 of a stale expectedRevision (or expectedVersion). */
export const VERSION_CONFLICT_REPLY =
  'Version conflict: {error:"Version conflict", expected, actual, code:"VERSION_CONFLICT", detail}';

/** The revision a state was read at, for the next write's expectedRevision. */
export const modelRevisionHeader = {
  'Model-Revision': {
    type: 'integer',
    description: 'The revision the model was at when the state was read (pass it as expectedRevision)',
  },
} as const;

export const mutationErrors = {
  ...modelErrors,
  409: {
    description: `Constraint violation: {error:"Constraint violation", violations}; or ${VERSION_CONFLICT_REPLY}`,
  },
  422: {
    description:
      'Schema violation: {error:"Schema violation", violations}; index limit; bad patch; a failed patch `test`: {error:"Test failed", op:"test", index, path, expected, actual}',
  },
  429: { ...problemDetail, description: "The model's mutation queue is full" },
};
