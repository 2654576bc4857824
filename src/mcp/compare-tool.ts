/**
 * compare_sample: a sample CSV against a synth model's own output for the sample's row count and
 * the seed (or against a generation this server holds). Bounded: the sample's size and rows, the
 * columns, and a time budget for the run; errors carry stable codes.
 */
import { COMPARE_LIMITS } from '../service/compare-job.js';
import { compareInWorker } from '../service/compare-runner.js';
import { SynthServiceError } from '../service/synth-errors.js';
import type { SynthService } from '../service/synth-service.js';
import { RESULT_LIMIT_CHARS, type ToolResult } from './results.js';
import { synthErrorResult } from './synth-tools.js';
import { input, output, READ, type ToolDefinition } from './tool.js';

export { COMPARE_LIMITS };

const REPORT = output({ highCount: { type: 'integer' }, findings: { type: 'array' } }, [
  'highCount',
  'findings',
]);

export function compareSampleTool(service: SynthService, log?: (message: string) => void): ToolDefinition {
  return {
    name: 'compare_sample',
    title: 'Compare a sample with a model',
    description: `sampleCsv vs the model's output (same rows, seed) or a generationId's. Findings: formats, distributions, tails, spikes, categories, copied ids, correlations, duplicates. ≤${COMPARE_LIMITS.rows} rows, ${COMPARE_LIMITS.columns} columns.`,
    inputSchema: input(
      {
        modelText: { type: 'string' },
        generationId: { type: 'string' },
        sampleCsv: { type: 'string' },
        seed: { type: ['integer', 'string'] },
        ignore: { type: 'array', items: { type: 'string' } },
        options: {
          type: 'object',
          description: 'highP, mediumP, maxCategories, identifierColumns, header',
        },
      },
      ['sampleCsv'],
    ),
    outputSchema: REPORT,
    annotations: READ,
    run: async (a, ctx): Promise<ToolResult> => {
      try {
        // in a worker thread, behind the fits' gate: a few heavy analyses at a time, then BUSY
        const report = await compareInWorker(service, a, ctx.signal);
        const text = JSON.stringify(report);
        if (text.length > RESULT_LIMIT_CHARS)
          throw new SynthServiceError(
            'TOO_LARGE',
            `the report is ${text.length} characters, over ${RESULT_LIMIT_CHARS}; compare fewer columns`,
          );
        return { content: [{ type: 'text', text }], structuredContent: report };
      } catch (err) {
        return synthErrorResult(err, log);
      }
    },
  };
}
