/**
 * `generate_model`: a ModelSpec from a description through the server's own language-model provider
 * (docs/generate.md), for clients that want the server's provider rather than their own model.
 * Progress notifications per phase; cancellation stops the loop. The text is kept short: every
 * tools/list carries it.
 */
import { LlmError } from '../llm/index.js';
import type { CalcModelApi } from '../service/calc-api.js';
import type { SpecGenerator } from '../service/generate.js';
import { errorResult, okResult, textError } from './results.js';
import { input, type ToolDefinition } from './tool.js';

export function generateTool(
  calc: Pick<CalcModelApi, 'createModel'>,
  generator: SpecGenerator,
): ToolDefinition {
  return {
    name: 'generate_model',
    title: 'Generate model',
    // tools/list is capped at 50 KB with almost no headroom: one listed argument, the rest in argsSchema
    description: 'A tested ModelSpec from a description by the server LLM (opt. modelId, create)',
    inputSchema: {
      type: 'object',
      properties: { description: { type: 'string' } },
      required: ['description'],
    },
    argsSchema: input(
      {
        description: { type: 'string' },
        modelId: { type: 'string' },
        includeView: { type: 'boolean' },
        create: { type: 'boolean' },
      },
      ['description'],
    ),
    // default hints (not read-only, possibly destructive): it spends the provider's tokens
    annotations: { openWorldHint: false },
    run: async (a, ctx) => {
      let step = 0; // progress must grow with every notification
      try {
        const result = await generator.generate(
          {
            description: a.description as string,
            ...(typeof a.modelId === 'string' ? { modelId: a.modelId } : {}),
            ...(typeof a.includeView === 'boolean' ? { includeView: a.includeView } : {}),
          },
          {
            signal: ctx.signal,
            progress: (f) => ctx.progress?.(++step, undefined, `attempt ${f.attempt}: ${f.phase}`),
          },
        );
        const created = a.create === true ? { created: await calc.createModel(result.spec) } : {};
        return okResult({ ...result, ...created }, 'ask for a smaller model');
      } catch (err) {
        ctx.signal.throwIfAborted();
        if (!(err instanceof LlmError)) return errorResult(err);
        const errors = err.details.errors;
        return textError(
          `${err.code}: ${err.message}${Array.isArray(errors) ? `\n${JSON.stringify(errors.slice(0, 10), null, 2)}` : ''}`,
        );
      }
    },
  };
}
