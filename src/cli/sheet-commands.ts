/**
 * `modelworks calc from-xlsx`: compile a workbook's formulas into a ModelSpec file. It converts in
 * its own process, for its own user: the file, row and column limits apply, the servers' cell,
 * memory and time budgets (MODELWORKS_SHEET_*) do not.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command } from 'commander';

const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

interface FromXlsxOptions {
  modelId?: string;
  output?: string;
}

async function fromXlsx(book: string, opts: FromXlsxOptions): Promise<number> {
  // loaded here, not at start-up: the converter costs nothing to the other commands
  const [{ DEFAULT_LIMITS }, { convertSpreadsheetBytes }] = await Promise.all([
    import('../sheet/index.js'),
    import('../service/sheet-service.js'),
  ]);
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
    process.stderr.write(
      `modelworks: cannot read ${book}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`,
    );
    return EXIT.usage;
  }
  const result = await convertSpreadsheetBytes(bytes, basename(book), opts.modelId);
  for (const r of result.rejectedColumns ?? []) {
    process.stderr.write(`rejected ${r.column} (${r.address}): ${r.reason}: ${r.message}\n`);
  }
  if (!result.valid) {
    process.stderr.write(`modelworks: ${book}: ${result.reason}: ${result.error}\n`);
    return result.reason === 'INVALID_ARGUMENT' ? EXIT.usage : EXIT.invalid;
  }
  const text = `${JSON.stringify(result.spec, null, 2)}\n`;
  if (opts.output) {
    try {
      writeFileSync(opts.output, text);
    } catch (err) {
      process.stderr.write(
        `modelworks: cannot write ${opts.output}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`,
      );
      return EXIT.usage;
    }
    const derived = result.spec.derivations.length;
    process.stderr.write(
      `wrote ${opts.output}: ${derived} computed field${derived === 1 ? '' : 's'}, ${result.rejectedColumns.length} rejected\n`,
    );
  } else {
    process.stdout.write(text);
  }
  return EXIT.ok;
}

/** Adds `from-xlsx` to the `calc` command. */
export function registerSheetCommands(calcCommand: Command): void {
  calcCommand
    .command('from-xlsx')
    .description(
      "Compile a workbook's formulas into a ModelSpec (first sheet, header-row table at A1); rejected columns go to stderr",
    )
    .argument('<book.xlsx>', 'the workbook')
    .option('--model-id <id>', 'id of the spec (default: from the file name)')
    .option('--output <spec.json>', 'write the spec here instead of stdout')
    .action(async (book: string, opts: FromXlsxOptions) => {
      try {
        process.exitCode = await fromXlsx(book, opts);
      } catch (err) {
        // not expected (the conversion answers every workbook): our words first, the details after
        process.stderr.write(
          `modelworks: ${book}: INTERNAL_ERROR: the conversion failed unexpectedly (a bug on our side); details:\n${(err as Error).stack ?? String(err)}\n`,
        );
        process.exitCode = EXIT.invalid;
      }
    });
}
