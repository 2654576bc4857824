/** The spreadsheet tool: convert_spreadsheet compiles an uploaded .xlsx into a ModelSpec (not registered). */
import { REJECTION_REASONS, SHEET_ERROR_CODES } from '../sheet/index.js';
import { convertSpreadsheet } from '../service/sheet-service.js';
import { okResult } from './results.js';
import { input, output, READ, type ToolDefinition } from './tool.js';

const NARROW =
  'the spec is too large to return here; convert a smaller table, or run `modelworks calc from-xlsx book.xlsx --output spec.json`';

export function sheetTools(): ToolDefinition[] {
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
        'Nothing is registered: review the spec, then call create_model.',
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
          reason: { type: 'string', enum: [...SHEET_ERROR_CODES, ...REJECTION_REASONS, 'INVALID_ARGUMENT'] },
        },
        ['valid'],
      ),
      annotations: READ,
      narrowHint: NARROW,
      run: async (a) =>
        okResult(
          await convertSpreadsheet({ data: a.data, filename: a.filename, modelId: a.modelId }),
          NARROW,
        ),
    },
  ];
}
