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
      description: "A point-in-time copy of a model's state; hand it back to restore.",
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
        "Put back this model's snapshot inputs (schema-checked) and recompute under the current spec; see droppedInputs.",
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
          droppedInputs: { type: 'array', items: { type: 'string' } },
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
        "Change a live model's spec with a SpecEvolution (upserts/removals, schema and view edits, backfill); expectedVersion or expectedRevision guard against concurrent changes.",
      inputSchema: EVOLVE_INPUT,
      argsSchema: shallowInputSchema(
        input({ id, evolution: EVOLUTION, expectedRevision, idempotencyKey }, ['id', 'evolution']),
      ),
      outputSchema: output(
        {
          id: { type: 'string' },
          version: { type: 'string' },
          revision: { type: 'integer' },
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
