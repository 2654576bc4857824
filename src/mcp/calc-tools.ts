/**
 * The calc model tools (authoring tools are in authoring-tools.ts): names, arguments and result shapes as the product
 * document gives them. Every tool is one CalcService call plus result shaping.
 */
import type { CalcModelApi } from '../service/calc-api.js';
import { modelInfoWithPendingEffects } from '../service/effects/pending.js';
import {
  expectedRevision,
  id,
  idempotencyKey,
  includeTraces,
  keyOf,
  NARROW_READ,
  path,
  revisionOf,
  shallowInputSchema,
  str,
} from './calc-tool-args.js';
import { compositionTools } from './composition-tools.js';
import { lifecycleTools } from './lifecycle-tools.js';
import { committedWriteResult, okResult } from './results.js';

export { shallowInputSchema } from './calc-tool-args.js';
import { FULL_SPEC, input, output, READ, withSharedDefs, WRITE, type ToolDefinition } from './tool.js';

/**
 * Where get_state's result _meta carries the revision the state was read at. Our own prefix:
 * `valem/` is the contract's, for the model card.
 */
export const REVISION_META = 'modelworks/revision';

const MODEL_INFO_FIELDS = {
  id: { type: 'string' },
  version: { type: 'string' },
  derivationCount: { type: 'integer' },
  metaDerivationCount: { type: 'integer' },
  constraintCount: { type: 'integer' },
  effectCount: { type: 'integer' },
};
const MODEL_INFO = output(MODEL_INFO_FIELDS, ['id', 'version']);
const MODEL_STATUS = output(
  {
    ...MODEL_INFO_FIELDS,
    revision: {
      type: 'integer',
      description: 'Committed changes so far; pass it as expectedRevision to write only on this state',
    },
  },
  ['id', 'version'],
);
const MUTATION_RESULT = output(
  {
    success: { type: 'boolean' },
    mutatedPaths: { type: 'array', items: { type: 'string' } },
    derivedUpdated: { type: 'array', items: { type: 'string' } },
    metaUpdated: { type: 'array', items: { type: 'string' } },
    flaggedConstraints: { type: 'array', items: { type: 'object' } },
    dispatchedEffects: { type: 'array', items: { type: 'object' } },
    traces: { type: 'array', items: { type: 'object' } },
    revision: { type: 'integer' },
  },
  ['success', 'mutatedPaths', 'derivedUpdated'],
);
const ANY_OBJECT = output({});
// listed with their repeated fragments shared once under $defs (built once: every connection lists them)
const CREATE_INPUT = withSharedDefs(input({ spec: FULL_SPEC }, ['spec']));
const opt = (s: unknown): string | undefined => (typeof s === 'string' ? s : undefined);

/** Model tools: each maps one-to-one to a service operation (listed in this order). */
export function modelTools(service: CalcModelApi): ToolDefinition[] {
  return [
    ...catalogueTools(service),
    ...stateTools(service),
    ...writeTools(service),
    ...historyTools(service),
    ...lifecycleTools(service),
    ...viewAndBlobTools(service),
    ...compositionTools(service),
  ];
}

/** The model catalogue: list, create, describe, read the spec. */
function catalogueTools(service: CalcModelApi): ToolDefinition[] {
  return [
    {
      name: 'list_models',
      title: 'List models',
      description: 'Ids of every model on this server, sorted.',
      inputSchema: input({}),
      annotations: READ,
      run: async () => okResult(await service.listModels()),
    },
    {
      name: 'create_model',
      title: 'Create model',
      description:
        'Validate, compile and register a ModelSpec, seed its defaults and compute it. Returns the model info. A taken id is an error: delete_model, evolve_spec, or pick another id.',
      inputSchema: CREATE_INPUT,
      argsSchema: shallowInputSchema(input({ spec: FULL_SPEC }, ['spec'])),
      outputSchema: MODEL_INFO,
      annotations: WRITE,
      run: async (a) => okResult(await service.createModel(a.spec)),
    },
    {
      name: 'get_model_info',
      title: 'Get model info',
      description:
        'Id, version, section counts, revision (for expectedRevision); lineage, links and awaitingApproval when any.',
      inputSchema: input({ id }, ['id']),
      outputSchema: MODEL_STATUS,
      annotations: READ,
      run: async (a) => okResult(await modelInfoWithPendingEffects(service, str(a.id))),
    },
    {
      name: 'get_spec',
      title: 'Get spec',
      description: 'The stored (normalised) ModelSpec of a model.',
      inputSchema: input({ id }, ['id']),
      outputSchema: ANY_OBJECT,
      annotations: READ,
      run: async (a) =>
        okResult(
          await service.getSpec(str(a.id)),
          'read the model with get_model_info, or project state with get_state paths/depth',
        ),
    },
  ];
}

/** Reads of the merged state: all or part of it, one field, the schema at an address. */
function stateTools(service: CalcModelApi): ToolDefinition[] {
  return [
    {
      name: 'get_state',
      title: 'Get state',
      description: `Merged state (inputs and computed values), narrowed by \`paths\`/\`depth\`, now or \`at\` a past time; _meta["${REVISION_META}"] is the current revision.`,
      inputSchema: input(
        {
          id,
          at: {
            type: 'string',
            description: 'ISO-8601 timestamp: the state after the newest cycle at or before it',
          },
          paths: { type: 'array', items: path, description: 'Only these subtrees' },
          depth: { type: 'integer', minimum: 0, description: 'Cap nesting; 0 collapses the whole document' },
        },
        ['id'],
      ),
      // no outputSchema: `depth: 0` collapses the whole state to a string, and a declared schema
      // makes SDK clients reject a result without structuredContent
      annotations: READ,
      run: async (a) => {
        const options: { at?: string; paths?: string[]; depth?: number } = {};
        if (typeof a.at === 'string') options.at = a.at;
        if (Array.isArray(a.paths)) options.paths = a.paths as string[];
        if (typeof a.depth === 'number') options.depth = a.depth;
        const { state, revision } = await service.readState(str(a.id), options);
        const result = okResult(state, 'pass paths and/or depth to get_state');
        // the revision rides outside the state: the content and structuredContent stay the state
        return result.isError ? result : { ...result, _meta: { [REVISION_META]: revision } };
      },
    },
    {
      name: 'get_field',
      title: 'Get field',
      description: 'The value at one address (null when absent). Reads inside computed values too.',
      inputSchema: input({ id, path }, ['id', 'path']),
      annotations: READ,
      run: async (a) => okResult(await service.getField(str(a.id), str(a.path)), 'ask for a deeper address'),
    },
    {
      name: 'get_effective_schema',
      title: 'Get effective schema',
      description: "A field's schema with live meta-derived limits: what the next write must satisfy.",
      inputSchema: input({ id, path }, ['id', 'path']),
      outputSchema: ANY_OBJECT,
      annotations: READ,
      run: async (a) => okResult(await service.getEffectiveSchema(str(a.id), str(a.path))),
    },
  ];
}

/** Writes: values or an RFC 6902 patch as one reactive cycle. */
function writeTools(service: CalcModelApi): ToolDefinition[] {
  return [
    {
      name: 'mutate',
      title: 'Mutate',
      description:
        'Write values ({"$.path": value, ...}) as one reactive cycle: derived values recompute, constraints check (rollback ones refuse the write), effects return as data.',
      inputSchema: input(
        {
          id,
          mutations: { type: 'object', description: 'Canonical address → value' },
          includeTraces,
          expectedRevision,
          idempotencyKey,
        },
        ['id', 'mutations'],
      ),
      outputSchema: MUTATION_RESULT,
      annotations: WRITE,
      run: async (a) =>
        committedWriteResult(
          await service.mutate(str(a.id), a.mutations, {
            source: 'agent',
            includeTraces: a.includeTraces === true,
            ...revisionOf(a),
            ...keyOf(a),
          }),
          NARROW_READ,
        ),
    },
    {
      name: 'patch_model',
      title: 'Patch model',
      description:
        'Apply an RFC 6902 JSON Patch (JSON Pointer paths: /items/0, /items/- to append) to the inputs as one reactive cycle: insert, remove or reorder array elements.',
      inputSchema: input(
        {
          id,
          patch: {
            type: 'array',
            items: {
              type: 'object',
              required: ['op', 'path'],
              properties: {
                op: { enum: ['add', 'remove', 'replace', 'move', 'copy', 'test'] },
                path: { type: 'string' },
                from: { type: 'string' },
                value: {},
              },
            },
          },
          includeTraces,
          expectedRevision,
          idempotencyKey,
        },
        ['id', 'patch'],
      ),
      outputSchema: MUTATION_RESULT,
      annotations: WRITE,
      run: async (a) =>
        committedWriteResult(
          await service.patchModel(str(a.id), a.patch, {
            includeTraces: a.includeTraces === true,
            ...revisionOf(a),
            ...keyOf(a),
          }),
          NARROW_READ,
        ),
    },
  ];
}

/** How values came to be: traces, history, the audit trail and its chain. */
function historyTools(service: CalcModelApi): ToolDefinition[] {
  return [
    {
      name: 'explain',
      title: 'Explain',
      description:
        'How a value was computed: the traces (expression, inputs, result, errors) of recent cycles whose target starts with `path`, oldest first.',
      inputSchema: input(
        { id, path, limit: { type: 'integer', minimum: 0, description: 'Keep only the newest N traces' } },
        ['id', 'path'],
      ),
      annotations: READ,
      run: async (a) =>
        okResult(
          await service.explain(str(a.id), str(a.path), typeof a.limit === 'number' ? a.limit : undefined),
          'pass limit (e.g. 5) to explain',
        ),
    },
    {
      name: 'get_history',
      title: 'Get history',
      description:
        'ISO-8601 timestamps of the recent committed cycles (oldest first); pass one as get_state `at`.',
      inputSchema: input({ id }, ['id']),
      annotations: READ,
      run: async (a) => okResult(await service.getHistory(str(a.id))),
    },
    {
      name: 'get_audit',
      title: 'Get audit trail',
      description:
        'Audit records (one per committed cycle), newest first, filtered by path prefix and an ISO-8601 [from, to) window.',
      inputSchema: input(
        {
          id,
          pathPrefix: {
            type: 'string',
            description: 'Keep records whose writes, updates or traces start with this',
          },
          from: { type: 'string', description: 'Inclusive ISO-8601 time' },
          to: { type: 'string', description: 'Exclusive ISO-8601 time' },
          limit: { type: 'integer', minimum: 1, maximum: 10000, description: 'Default 100' },
        },
        ['id'],
      ),
      annotations: READ,
      run: async (a) =>
        okResult(
          await service.getAudit(str(a.id), {
            ...(typeof a.pathPrefix === 'string' ? { pathPrefix: a.pathPrefix } : {}),
            ...(typeof a.from === 'string' ? { from: a.from } : {}),
            ...(typeof a.to === 'string' ? { to: a.to } : {}),
            ...(typeof a.limit === 'number' ? { limit: a.limit } : {}),
          }),
          'narrow get_audit with pathPrefix, from/to or a smaller limit',
        ),
    },
    {
      name: 'verify_audit',
      title: 'Verify audit trail',
      description:
        "Walk the audit trail's SHA-256 hash chain and report the first altered, reordered or deleted record; on a durable store also check the stored state and the keyed checkpoint.",
      inputSchema: input({ id }, ['id']),
      outputSchema: output(
        {
          valid: { type: 'boolean' },
          recordsChecked: { type: 'integer' },
          firstBrokenSequence: { type: ['integer', 'null'] },
          detail: { type: 'string' },
          keyId: { type: 'string', description: 'The id of the audit key the checkpoint was checked with' },
        },
        ['valid', 'recordsChecked'],
      ),
      annotations: READ,
      run: async (a) => okResult(await service.verifyAudit(str(a.id))),
    },
  ];
}

/** Views, the library vocabulary and blobs. */
function viewAndBlobTools(service: CalcModelApi): ToolDefinition[] {
  return [
    {
      name: 'get_view',
      title: 'Get view',
      description:
        'A view of the model evaluated against its live state: components with bound values, visibility and read-only flags.',
      inputSchema: input({ id, viewId: { type: 'string', description: 'Default: the spec default view' } }, [
        'id',
      ]),
      outputSchema: output(
        {
          modelId: { type: 'string' },
          viewId: { type: 'string' },
          title: { type: 'string' },
          layout: { type: 'string' },
          components: { type: 'array' },
        },
        ['modelId', 'viewId'],
      ),
      annotations: READ,
      run: async (a) => okResult(await service.getView(str(a.id), opt(a.viewId))),
    },
    {
      name: 'get_library',
      title: 'Get library',
      description:
        "The model's library: its layers and exports (functions with arity, constants with values).",
      inputSchema: input({ id }, ['id']),
      outputSchema: output(
        { description: { type: 'string' }, layers: { type: 'array' }, exports: { type: 'array' } },
        ['layers', 'exports'],
      ),
      annotations: READ,
      run: async (a) => okResult(await service.getLibrary(str(a.id))),
    },
    {
      name: 'upload_blob',
      title: 'Upload blob',
      description:
        'Store base64 bytes in the content-addressed blob store; returns a {$blobId, $mediaType, $bytes} reference for a model. Small files.',
      inputSchema: input(
        {
          data: { type: 'string', description: 'Base64 bytes' },
          mediaType: { type: 'string', default: 'application/octet-stream' },
        },
        ['data'],
      ),
      outputSchema: output(
        { $blobId: { type: 'string' }, $mediaType: { type: 'string' }, $bytes: { type: 'integer' } },
        ['$blobId'],
      ),
      annotations: { ...WRITE, idempotentHint: true },
      run: async (a) => okResult(await service.uploadBlob(a.data, opt(a.mediaType))),
    },
    {
      name: 'download_blob',
      title: 'Download blob',
      description: "A blob's bytes as base64. With modelId, only a blob that model's state references.",
      inputSchema: input({ blobId: { type: 'string' }, modelId: { type: 'string' } }, ['blobId']),
      outputSchema: output(
        {
          blobId: { type: 'string' },
          bytes: { type: 'integer' },
          data: { type: 'string' },
          mediaType: { type: 'string' },
        },
        ['blobId', 'data'],
      ),
      annotations: READ,
      run: async (a) =>
        okResult(
          await service.downloadBlob(str(a.blobId), opt(a.modelId)),
          'blobs this large do not fit a tool result',
        ),
    },
  ];
}
