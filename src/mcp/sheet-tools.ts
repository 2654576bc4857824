/**
 * The spreadsheet tool: convert_spreadsheet compiles an uploaded .xlsx into a ModelSpec (not
 * registered). The conversion runs in a worker thread of the process's SheetWorkers, so it never
 * holds up the server's other requests.
 */
import { REJECTION_REASONS, SHEET_ERROR_CODES } from '../sheet/index.js';
import { decodeSpreadsheetArgs, SHEET_SERVICE_REASONS } from '../service/sheet-service.js';
import { sheetWorkers, type SheetWorkers } from '../service/sheet-workers.js';
import { okResult, RESULT_LIMIT_CHARS, textError, type ToolResult } from './results.js';
import { input, output, READ, type ToolDefinition } from './tool.js';

const NARROW =
  'the spec is too large to return here; convert a smaller table, or run `modelworks calc from-xlsx book.xlsx --output spec.json`';

/** The same note okResult gives for a result too large to send, from a size measured in the worker. */
function tooLarge(resultChars: number): ToolResult {
  const note = { error: 'Result too large', resultChars, limitChars: RESULT_LIMIT_CHARS, hint: NARROW };
  return textError(JSON.stringify(note, null, 2));
}

export function sheetTools(workers: SheetWorkers = sheetWorkers()): ToolDefinition[] {
  const { maxCells } = workers.budgets;
  return [
    {
      name: 'convert_spreadsheet',
      title: 'Convert spreadsheet',
      description:
        "Compile an .xlsx workbook's formulas into a ModelSpec, deterministically. Tables (Excel " +
        'Tables or blocks under a header row) become arrays $.<table>: constant columns inputs, formula columns ' +
        'derivations; other formula cells top-level derivations; side cells and defined names inputs holding the ' +
        "workbook's values. A formula that misses its stored value, or disagrees with an independent evaluation " +
        'after seeded edits, is rejected. Returns {valid:true, spec, rejectedColumns, report} or {valid:false, ' +
        `reason, error}; nothing is registered (review, then create_model). At most ${maxCells} cells.`,
      inputSchema: input(
        {
          data: { type: 'string', description: 'The .xlsx file, base64-encoded (at most 10 MB decoded)' },
          filename: {
            type: 'string',
            description: 'Original file name; names the source and the default model id',
          },
          modelId: {
            type: 'string',
            description: 'Id of the spec to build ([namespace/]name); default from filename',
          },
        },
        ['data'],
      ),
      outputSchema: output(
        {
          valid: { type: 'boolean' },
          spec: { type: 'object' },
          rejectedColumns: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                column: { type: 'string' },
                address: { type: 'string' },
                reason: { type: 'string' },
                message: { type: 'string' },
              },
            },
          },
          report: {
            type: 'object',
            description:
              'counts (verified: agrees after what-if edits), sheets, rejections; checks[]: how each was checked; cellMap[]: cell to path',
            properties: {
              formulaCells: { type: 'integer' },
              compiledCells: { type: 'integer' },
              verifiedCells: { type: 'integer' },
              storedOnlyCells: { type: 'integer' },
              sheets: { type: 'array', items: { type: 'object' } },
              rejected: { type: 'array', items: { type: 'object' } },
            },
          },
          reason: {
            type: 'string',
            enum: [...SHEET_ERROR_CODES, ...REJECTION_REASONS, ...SHEET_SERVICE_REASONS],
          },
        },
        ['valid'],
      ),
      annotations: READ,
      run: async (a, ctx) => {
        const request = decodeSpreadsheetArgs({ data: a.data, filename: a.filename, modelId: a.modelId });
        if (!('bytes' in request)) return okResult(request, NARROW);
        const outcome = await workers.convert(request, {
          maxResultChars: RESULT_LIMIT_CHARS,
          signal: ctx.signal,
        });
        return 'tooLarge' in outcome
          ? tooLarge(outcome.tooLarge.resultChars)
          : okResult(outcome.result, NARROW);
      },
    },
  ];
}
