// Headless LibreOffice as the oracle: many workbooks recalculated in one soffice start (it takes
// seconds to start), with a private profile (so parallel runs do not share one) that recalculates
// every formula on load. The recalculated files are read back with the converter's own reader:
// reading stored values is not evaluating anything.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readWorkbookParts, type CellValue } from '../../../src/sheet/xlsx.js';

function findSoffice(): string | undefined {
  const own = process.env.MODELWORKS_SOFFICE;
  if (own) return existsSync(own) ? own : undefined;
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'soffice'))) return join(dir, 'soffice');
  }
  return undefined;
}

export const SOFFICE = findSoffice();
export const SOFFICE_SKIP_REASON = process.env.MODELWORKS_SOFFICE
  ? `MODELWORKS_SOFFICE is ${process.env.MODELWORKS_SOFFICE}, which does not exist`
  : 'LibreOffice (soffice) is not on the PATH; .ci/run installs libreoffice-calc-nogui when run as root, or set MODELWORKS_SOFFICE';

const RECALC_ON_LOAD = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
`;

/** The values LibreOffice computed: sheet name → `row:col` → value. */
export type Recalculated = Map<string, Map<string, CellValue>>;

/**
 * Every workbook (.xlsx bytes) recalculated by LibreOffice in one soffice start, in order, as the
 * .xlsx bytes it saved: the one place the spreadsheet tests run soffice.
 */
export function recalculateFiles(books: Uint8Array[]): Uint8Array[] {
  if (!SOFFICE) throw new Error(SOFFICE_SKIP_REASON);
  const work = mkdtempSync(join(tmpdir(), 'modelworks-oracle-'));
  try {
    const src = join(work, 'src');
    const out = join(work, 'out');
    const profile = join(work, 'profile');
    mkdirSync(src);
    mkdirSync(out);
    mkdirSync(join(profile, 'user'), { recursive: true });
    writeFileSync(join(profile, 'user', 'registrymodifications.xcu'), RECALC_ON_LOAD);
    const paths = books.map((bytes, i) => {
      const p = join(src, `book${i}.xlsx`);
      writeFileSync(p, bytes);
      return p;
    });
    execFileSync(
      SOFFICE,
      [
        `-env:UserInstallation=file://${profile}`,
        '--headless',
        '--calc',
        '--convert-to',
        'xlsx:Calc MS Excel 2007 XML',
        '--outdir',
        out,
        ...paths,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 },
    );
    return books.map((_, i) => {
      const p = join(out, `book${i}.xlsx`);
      if (!existsSync(p)) throw new Error(`LibreOffice wrote no book${i}.xlsx`);
      return new Uint8Array(readFileSync(p));
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Recalculates every file (name → .xlsx bytes) in one soffice run; name → its values. */
export function recalculate(files: Map<string, Uint8Array>): Map<string, Recalculated> {
  const names = [...files.keys()];
  const saved = recalculateFiles([...files.values()]);
  const result = new Map<string, Recalculated>();
  names.forEach((name, i) => {
    const book = readWorkbookParts(saved[i]!);
    const sheets: Recalculated = new Map();
    for (const s of book.sheets) {
      const values = new Map<string, CellValue>();
      for (const [key, cell] of s.cells) values.set(key, cell.value);
      sheets.set(s.name, values);
    }
    result.set(name, sheets);
  });
  return result;
}
