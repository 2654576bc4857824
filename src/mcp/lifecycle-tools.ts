/** The lifecycle tools: snapshot, restore, spec evolution and deletion. */
import type { CalcModelApi } from '../service/calc-api.js';
import {
  EVOLUTION,
  expectedRevision,
  id,
  idempotencyKey,
  keyOf,
  NARROW_READ,
  revisionOf,
  shallowInputSchema,
  str,
} from './calc-tool-args.js';
import { committedWriteResult, okResult } from './results.js';
import { DESTRUCTIVE, input, output, READ, withSharedDefs, type ToolDefinition } from './tool.js';

const EVOLVE_INPUT = withSharedDefs(
  input({ id, evolution: EVOLUTION, expectedRevision, idempotencyKey }, ['id', 'evolution']),
);

/** Snapshots, restores, spec evolution and deletion. */
export function lifecycleTools(service: CalcModelApi): ToolDefinition[] {
  return [...snapshotTools(service), ...changeTools(service)];
}

/** Snapshots and restores. */
function snapshotTools(service: CalcModelApi): ToolDefinition[] {
  return [
    {
      name: 'snapshot',
      title: 'Snapshot',
      description:
        "A point-in-time copy of a model's inputs and computed values, with the model id, spec version and spec hash it was taken under; hand it back to restore.",
      inputSchema: input({ id }, ['id']),
      outputSchema: output(
        {
          modelId: { type: 'string' },
          modelVersion: { type: 'string' },
          baseDoc: { type: 'object' },
          derivedCache: { type: 'object' },
          metaCache: { type: 'object' },
          specHash: { type: 'string' },
        },
        ['modelId', 'baseDoc'],
      ),
      annotations: { ...READ, idempotentHint: false },
      run: async (a) => okResult(await service.snapshot(str(a.id))),
    },
    {
      name: 'restore',
      title: 'Restore',
      description:
        "Put a model's inputs back to a snapshot of this model returned by `snapshot` (checked against the current schema; history and traces are cleared) and compute every derived value again under the current spec. A snapshot of another model is refused; inputs the current spec no longer has are listed in droppedInputs.",
      inputSchema: input(
        {
          id,
          snapshot: { type: 'object', description: 'A snapshot exactly as `snapshot` returned it' },
          idempotencyKey,
        },
        ['id', 'snapshot'],
      ),
      outputSchema: output(
        {
          restored: { type: 'boolean' },
          revision: { type: 'integer' },
          modelVersion: { type: 'string', description: 'The spec version the values were computed under' },
          snapshotVersion: { type: 'string', description: 'The spec version the snapshot was taken under' },
          sameSpec: { type: 'boolean' },
          droppedInputs: { type: 'array', items: { type: 'string' } },
          warnings: { type: 'array', items: { type: 'string' } },
          replayed: { type: 'boolean' },
        },
        ['restored'],
      ),
      annotations: { ...DESTRUCTIVE, idempotentHint: true },
      run: async (a) =>
        committedWriteResult(await service.restore(str(a.id), a.snapshot, keyOf(a)), NARROW_READ),
    },
  ];
}

/** Spec evolution and deletion. */
function changeTools(service: CalcModelApi): ToolDefinition[] {
  return [
    {
      name: 'evolve_spec',
      title: 'Evolve spec',
      description:
        "Change a live model's spec with a SpecEvolution (targeted upserts/removals, schema and view edits, backfill). Pass expectedVersion (in the evolution) or expectedRevision to avoid clobbering a concurrent change. Returns the new version.",
      inputSchema: EVOLVE_INPUT,
      argsSchema: shallowInputSchema(
        input({ id, evolution: EVOLUTION, expectedRevision, idempotencyKey }, ['id', 'evolution']),
      ),
      outputSchema: output(
        {
          id: { type: 'string' },
          version: { type: 'string' },
          revision: { type: 'integer' },
          unchanged: {
            type: 'boolean',
            description: 'true: the evolution changed nothing (no new revision)',
          },
          replayed: { type: 'boolean' },
        },
        ['id', 'version'],
      ),
      annotations: DESTRUCTIVE,
      run: async (a) =>
        committedWriteResult(
          await service.evolveSpec(str(a.id), a.evolution, { ...revisionOf(a), ...keyOf(a) }),
          NARROW_READ,
        ),
    },
    {
      name: 'delete_model',
      title: 'Delete model',
      description: 'Remove a model and its audit trail.',
      inputSchema: input({ id }, ['id']),
      outputSchema: output({ deleted: { type: 'boolean' } }, ['deleted']),
      annotations: { ...DESTRUCTIVE, idempotentHint: true },
      run: async (a) => okResult(await service.deleteModel(str(a.id))),
    },
  ];
}
