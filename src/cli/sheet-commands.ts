/**
 * `modelworks calc from-xlsx`: compile a workbook's formulas into a ModelSpec file. It converts in
 * its own process, for its own user: the file, row and column limits apply, the servers' cell,
 * memory and time budgets (MODELWORKS_SHEET_*) do not. It runs the conversion in the servers' kind
 * of worker thread with a capped heap (--memory-mb), which keeps its peak memory down, and runs it
 * again uncapped when a workbook needs more.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command } from 'commander';
import type { ConversionReport, ConvertProgress, RejectedColumn } from '../sheet/index.js';
import type { ConvertSpreadsheetResult } from '../service/sheet-result.js';
import type { SheetJob } from '../service/sheet-workers.js';
import { calcBudgetsSet } from './calc-budget-settings.js';
import { EXIT as POLICY, debugDetails, internalErrorText, systemErrorText } from './cli-errors.js';
import { examples } from './help-text.js';

const EXIT = { ok: POLICY.ok, invalid: POLICY.failed, usage: POLICY.usage } as const;

interface FromXlsxOptions {
  modelId?: string;
  output?: string;
  /** Exit 0 even when some columns were rejected (the spec is written either way). */
  allowRejected?: boolean;
  /** Print the whole result (valid, spec, rejectedColumns, report) as JSON on stdout. */
  json?: boolean;
  /** The conversion worker's heap cap, MB (text as given); 0 converts in this thread, uncapped. */
  memoryMb?: string;
}

/** The setting of the conversion's heap cap, when --memory-mb is not given. */
export const FROM_XLSX_MEMORY_SETTING = 'MODELWORKS_FROM_XLSX_MEMORY_MB';
/**
 * The cap by default: a 10,000 × 100 workbook's conversion keeps 250–300 MB live, and without a
 * cap V8 lets its garbage grow to ~4× that before collecting (docs/spreadsheets-corpus.md).
 */
export const DEFAULT_FROM_XLSX_MEMORY_MB = 400;
const MEMORY_RANGE = { min: 32, max: 65_536 } as const;

/** The heap cap from the option, else the environment, else the default; a message when malformed. */
export function fromXlsxMemoryMb(option: string | undefined, env: NodeJS.ProcessEnv): number | string {
  const [text, source] =
    option !== undefined
      ? [option.trim(), '--memory-mb']
      : [env[FROM_XLSX_MEMORY_SETTING]?.trim() ?? '', FROM_XLSX_MEMORY_SETTING];
  if (text === '') return DEFAULT_FROM_XLSX_MEMORY_MB;
  const value = Number(text);
  if (/^\d+$/.test(text) && (value === 0 || (value >= MEMORY_RANGE.min && value <= MEMORY_RANGE.max)))
    return value;
  return `${source} must be 0 (no worker, no cap) or a whole number of MB from ${MEMORY_RANGE.min} to ${MEMORY_RANGE.max} (got '${text}')`;
}

/** One stderr line per rejected column, or per column of grouped cells: never one per cell. */
function rejectionLines(rejected: readonly RejectedColumn[]): string {
  return rejected
    .map((r) => {
      const cells = r.cells !== undefined && r.cells > 1 ? `, ${r.cells} cells` : '';
      return `rejected ${r.column} (${r.address}${cells}): ${r.reason}: ${r.message}\n`;
    })
    .join('');
}

/** The report's totals in one line. */
function summaryLine(book: string, report: ConversionReport): string {
  const pct = report.formulaCells === 0 ? 0 : Math.round((100 * report.verifiedCells) / report.formulaCells);
  const storedOnly =
    report.storedOnlyCells > 0 ? `, ${report.storedOnlyCells} checked at the stored values only` : '';
  return `${book}: ${report.formulaCells} formula cells, ${report.compiledCells} compiled, ${report.verifiedCells} verified (${pct}%)${storedOnly}\n`;
}

/**
 * Converts in a worker thread whose heap is capped at `memoryMb`, so that V8 collects before the
 * garbage of the verification's runs piles up; a workbook that needs more is converted again in
 * this thread without a cap (said on stderr). 0: in this thread from the start.
 */
async function convertCapped(
  bytes: Uint8Array,
  book: string,
  modelId: string | undefined,
  memoryMb: number,
  onProgress: (p: ConvertProgress) => void,
): Promise<ConvertSpreadsheetResult> {
  // the compiler loads in the worker; this thread loads it only to convert here
  const [{ DEFAULT_LIMITS }, { modelIdFromFilename }, { runSheetWorker }] = await Promise.all([
    import('../sheet/errors.js'),
    import('../service/sheet-result.js'),
    import('../service/sheet-workers.js'),
  ]);
  const filename = basename(book);
  const inThread = async (): Promise<ConvertSpreadsheetResult> => {
    const { convertSpreadsheetBytes } = await import('../service/sheet-service.js');
    return convertSpreadsheetBytes(bytes, filename, modelId, DEFAULT_LIMITS, undefined, onProgress);
  };
  if (memoryMb === 0) return inThread();
  const log = (m: string): void => void process.stderr.write(`modelworks: ${m}\n`);
  const job: SheetJob = {
    bytes,
    filename,
    modelId: modelId ?? modelIdFromFilename(filename),
    limits: DEFAULT_LIMITS,
  };
  // MODELWORKS_CALC_* budgets were applied to this thread's engine (main.ts); the worker needs them too
  if (calcBudgetsSet(process.env))
    job.expressionLimits = (await import('../calc/index.js')).expressionLimits();
  const outcome = await runSheetWorker(job, { memoryMb, onProgress, log });
  if ('result' in outcome) return outcome.result;
  // neither a time limit, a signal nor a result size is given: running out of memory is what is left
  process.stderr.write(
    `modelworks: ${book}: the conversion needed more than its ${memoryMb} MB heap (--memory-mb, ${FROM_XLSX_MEMORY_SETTING}); converting again without a cap\n`,
  );
  return inThread();
}

async function fromXlsx(book: string, opts: FromXlsxOptions): Promise<number> {
  const memoryMb = fromXlsxMemoryMb(opts.memoryMb, process.env);
  if (typeof memoryMb === 'string') {
    process.stderr.write(`modelworks: ${memoryMb}\n`);
    return EXIT.usage;
  }
  // loaded here, not at start-up: the converter costs nothing to the other commands
  const { DEFAULT_LIMITS } = await import('../sheet/errors.js');
  let bytes: Uint8Array;
  try {
    const size = statSync(book).size;
    if (size > DEFAULT_LIMITS.maxFileBytes) {
      process.stderr.write(
        `modelworks: ${book}: FILE_TOO_LARGE: the file has ${size} bytes; the limit is ${DEFAULT_LIMITS.maxFileBytes} bytes\n`,
      );
      return EXIT.invalid;
    }
    bytes = readFileSync(book);
  } catch (err) {
    process.stderr.write(`modelworks: ${systemErrorText(err, `read ${book}`) ?? `cannot read ${book}`}\n`);
    return EXIT.usage;
  }
  // progress on stderr for a conversion past ~2 s (a bar on a terminal, plain lines elsewhere)
  const { sheetProgress } = await import('./sheet-progress.js');
  const progress = await sheetProgress({ prefix: `modelworks: ${book}` });
  let result: ConvertSpreadsheetResult;
  try {
    result = await convertCapped(bytes, book, opts.modelId, memoryMb, (p) => progress.update(p));
  } finally {
    progress.stop();
  }
  process.stderr.write(rejectionLines(result.rejectedColumns ?? []));
  if (!result.valid) {
    if (result.report) process.stderr.write(summaryLine(book, result.report));
    if (opts.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    process.stderr.write(`modelworks: ${book}: ${result.reason}: ${result.error}\n`);
    return result.reason === 'INVALID_ARGUMENT' ? EXIT.usage : EXIT.invalid;
  }
  if (result.report.compiledCells === 0) {
    process.stderr.write(summaryLine(book, result.report));
    // a workbook without a single compiled formula gives a spec of inputs only: not a conversion
    if (opts.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    process.stderr.write(`modelworks: ${book}: no formula compiled (the workbook holds no formula cell)\n`);
    return EXIT.invalid;
  }
  const text = `${JSON.stringify(result.spec, null, 2)}\n`;
  const rejected = result.rejectedColumns.length;
  const derived = result.spec.derivations.length;
  if (opts.output) {
    try {
      // written whole or not at all; an interrupt removes the temporary file and says so
      const { writeFileAtomic } = await import('./atomic-file.js');
      await writeFileAtomic(opts.output, text, { prefix: 'modelworks' });
    } catch (err) {
      process.stderr.write(
        `modelworks: ${systemErrorText(err, `write ${opts.output}`) ?? `cannot write ${opts.output}`}\n`,
      );
      return EXIT.usage;
    }
    process.stderr.write(
      `wrote ${opts.output}: ${derived} computed field${derived === 1 ? '' : 's'}, ${rejected} rejected\n`,
    );
    // the spec is in the file; stdout gets the rest of the result
    if (opts.json) {
      const { spec: _spec, ...rest } = result;
      process.stdout.write(`${JSON.stringify(rest, null, 2)}\n`);
    }
  } else {
    process.stdout.write(opts.json ? `${JSON.stringify(result, null, 2)}\n` : text);
  }
  process.stderr.write(summaryLine(book, result.report));
  if (rejected === 0 || opts.allowRejected) return EXIT.ok;
  // a rejected column is a formula the spec lacks: the conversion's check failed
  process.stderr.write(
    `modelworks: ${book}: ${rejected} column${rejected === 1 ? '' : 's'} rejected; the spec lacks ${rejected === 1 ? 'its formula' : 'their formulas'} (--allow-rejected exits 0)\n`,
  );
  return EXIT.invalid;
}

/** Adds `from-xlsx` to the `calc` command. */
export function registerSheetCommands(calcCommand: Command): void {
  const command = calcCommand
    .command('from-xlsx')
    .description(
      "Compile a workbook's formulas into a ModelSpec (every sheet and table); rejected columns go to stderr",
    )
    .argument('<book.xlsx>', 'the workbook')
    .option('--model-id <id>', 'id of the spec (default: from the file name)')
    .option('--output <spec.json>', 'write the spec here instead of stdout')
    .option('--allow-rejected', 'exit 0 even when some columns were rejected')
    .option(
      '--memory-mb <mb>',
      `heap cap of the conversion's worker thread, MB; past it the conversion runs again uncapped; 0: no worker (default: ${FROM_XLSX_MEMORY_SETTING} or ${DEFAULT_FROM_XLSX_MEMORY_MB})`,
    )
    .option(
      '--json',
      'print the whole result as JSON (valid, spec, rejectedColumns, report); with --output, all but the spec',
    )
    .action(async (book: string, opts: FromXlsxOptions) => {
      try {
        process.exitCode = await fromXlsx(book, opts);
      } catch (err) {
        // not expected (the conversion answers every workbook): one line, the stack with --debug
        process.stderr.write(
          `modelworks: ${book}: INTERNAL_ERROR: ${internalErrorText(err, 'convert the workbook')}\n${debugDetails(err)}`,
        );
        process.exitCode = EXIT.invalid;
      }
    });
  examples(
    command,
    'modelworks calc from-xlsx budget.xlsx > budget.json',
    'modelworks calc from-xlsx budget.xlsx --model-id q3-budget --output budget.json',
    'modelworks calc from-xlsx budget.xlsx --json --output budget.json > report.json',
  );
}
