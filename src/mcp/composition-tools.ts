/**
 * Composition over MCP (docs/composition.md): approving an inherited effect and reading the graph of
 * links and lineage. Branching is create_model with a `template`; get_model_info shows a model's
 * lineage, links and effects awaiting approval. Descriptions are short: tools/list has a budget.
 */
import type { CalcModelApi } from '../service/calc-api.js';
import { id, str } from './calc-tool-args.js';
import { okResult } from './results.js';
import { input, READ, WRITE, type ToolDefinition } from './tool.js';

export function compositionTools(service: CalcModelApi): ToolDefinition[] {
  return [
    {
      name: 'approve_effect',
      title: 'Approve inherited effect',
      description:
        "Let an effect inherited from another owner's template run (get_model_info: awaitingApproval), as defined now.",
      inputSchema: input({ id, effectId: { type: 'string' } }, ['id', 'effectId']),
      annotations: WRITE,
      run: async (a) => okResult(await service.approveEffect(str(a.id), str(a.effectId))),
    },
    {
      name: 'composition_graph',
      title: 'Composition graph',
      description: 'Every model, the links between them and their lineage (template) edges.',
      inputSchema: input({}),
      annotations: READ,
      run: async () => okResult(await service.compositionGraph()),
    },
  ];
}
