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
        "Compile an .xlsx workbook's own formulas into a ModelSpec, deterministically (no LLM). One worksheet (the first), " +
        'one table whose header row starts at A1: constant columns become writable row fields of $.rows, each filled-down ' +
        'formula column a $.rows[*].<field> derivation, formula cells outside the table plain derivations. Supported: ' +
        'IF/AND/OR/NOT/ROUND/ABS/SUM/AVERAGE/MIN/MAX/COUNT, CONCATENATE/LEFT/RIGHT/MID/LEN/UPPER/LOWER/TRIM, &, string ' +
        'literals, exact-match VLOOKUP against a $-locked side table (embedded in the library), SUMPRODUCT of $-locked whole ' +
        'columns. Anything else is listed in rejectedColumns with its reason; the rest still compiles. The spec embeds the ' +
        "workbook's stored values as tests and every compiled column reproduces them (a column that does not is rejected " +
        'as VALUE_MISMATCH with both values). Returns {valid:true, spec, rejectedColumns} or {valid:false, reason, error}. ' +
        `Nothing is registered: review the spec, then call create_model. A worksheet of more than ${maxCells} cells is refused ` +
        '(TOO_MANY_CELLS), as is a conversion that outgrows its memory or time (RESOURCE_LIMIT, TIME_LIMIT) or finds the server busy (BUSY).',
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
                reason: { type: 'string', enum: [...REJECTION_REASONS] },
                message: { type: 'string' },
              },
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
      narrowHint: NARROW,
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
