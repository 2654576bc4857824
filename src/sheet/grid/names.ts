/** The workbook's defined names as the cell-grid evaluator reads them (parsed once each). */
import { parseFormula, type Formula } from '../formula.js';
import type { DefinedName, Workbook } from '../xlsx.js';
import { GridUnsupported } from './functions.js';

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : 'it cannot be read');

export class NameTable {
  private readonly parsed = new Map<string, Formula | string>();

  constructor(private readonly book: Workbook) {}

  /** A defined name's formula, the sheet's own first (as Excel resolves it). */
  formula(name: string, sheet: number): Formula {
    const lower = name.toLowerCase();
    const def: DefinedName | undefined =
      this.book.names.find((d) => d.sheet === sheet && d.name.toLowerCase() === lower) ??
      this.book.names.find((d) => d.sheet === undefined && d.name.toLowerCase() === lower);
    if (!def) throw new GridUnsupported(`'${name}' is not a defined name of the workbook`);
    const k = `${def.sheet ?? ''}:${lower}`;
    let parsed = this.parsed.get(k);
    if (parsed === undefined) {
      try {
        parsed = parseFormula(def.text.replace(/^=/, ''));
      } catch (err) {
        parsed = `the defined name '${name}' cannot be read: ${messageOf(err)}`;
      }
      this.parsed.set(k, parsed);
    }
    if (typeof parsed === 'string') throw new GridUnsupported(parsed);
    return parsed;
  }

  /**
   * A plain name the workbook does not define (`IF(I2=Exc, …)`): Excel's #NAME?, an error where it
   * is evaluated. The file's own prefixes (`_xlfn.`, `_xlpm.`, `_xleta.`) are not such names.
   */
  undefined(name: string, sheet: number): boolean {
    if (/^_xl/i.test(name)) return false;
    const lower = name.toLowerCase();
    if (this.book.sheets.some((s) => s.tables.some((t) => t.name.toLowerCase() === lower))) return false;
    return !this.book.names.some(
      (d) => (d.sheet === undefined || d.sheet === sheet) && d.name.toLowerCase() === lower,
    );
  }
}
