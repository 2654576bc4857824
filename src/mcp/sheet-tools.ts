/**
 * The spreadsheet tool: convert_spreadsheet compiles an uploaded .xlsx into a ModelSpec (not
 * registered). The conversion runs in a worker thread of the process's SheetWorkers, so it never
 * holds up the server's other requests.
 */
import { decodeSpreadsheetArgs } from '../service/sheet-service.js';
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
        "Compile an .xlsx workbook's formulas into a ModelSpec: tables become arrays $.<table> (constant " +
        'columns inputs, formula columns derivations), other cells top-level fields. A formula missing its ' +
        'stored value, or disagreeing with an independent evaluation after seeded edits, is rejected. Returns ' +
        `{valid, spec, rejectedColumns, report} or {valid:false, reason, error}; registers nothing (then create_model). ≤ ${maxCells} cells.`,
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
          // {column, address, reason, message} each; listed loosely: tools/list has a 50 KB budget
          rejectedColumns: { type: 'array', items: { type: 'object' } },
          report: {
            type: 'object',
            description:
              'formulaCells, compiledCells, verifiedCells (agree after what-if edits), storedOnlyCells, sheets, rejected; checks[]: how each was checked; cellMap[]: cell to path',
          },
          // a stable code of docs/spreadsheets.md (the rejection reasons) or docs/errors.md
          reason: { type: 'string' },
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
