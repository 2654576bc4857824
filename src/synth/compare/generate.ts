/** A run's next rows as a Table of CSV text cells (the text grind's CSV holds, unquoted). */
import type { SynthRun } from '../engine/run.js';
import { valueText } from '../output/format.js';
import type { Table } from './types.js';

/**
 * Draws `count` rows. `checkBudget` is called every 1,000 rows so a caller with a deadline can
 * stop a long run by throwing.
 */
export function outputTable(run: SynthRun, count: number, checkBudget: () => void = () => undefined): Table {
  const rows: string[][] = [];
  for (let i = 0; i < count; i++) {
    if (i % 1000 === 999) checkBudget();
    const row = run.next();
    const cells: string[] = [];
    for (let d = 0; d < run.dimension; d++) cells.push(valueText(row.value(d), row.kinds[d]!));
    rows.push(cells);
  }
  return { header: run.header(), rows };
}
