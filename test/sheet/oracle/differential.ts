// The differential check: a converted spec run in the calc engine with the same edits LibreOffice
// recalculated, every compiled cell compared with LibreOffice's value.
//
// Which spec field is which cell is read from the spec itself, from what the converter writes for
// people: a table's description names its block (`The table Orders!A1:I7 of sheet 'Orders'`, or an
// Excel Table's name), a row field's description its column (`=ROUND(C2*D2,2) (column E)`), a
// top-level field's its cell (`cell L2 of sheet 'Orders'`).
import fc from 'fast-check';
import { dryRun, type JsonObject, type JsonValue, type ModelSpec } from '../../../src/calc/index.js';
import type { CellValue } from '../../../src/sheet/xlsx.js';
import { splitRef, type BookDef, type Input } from './book.js';
import type { Recalculated } from './libreoffice.js';
import type { EditDef } from './patterns.js';

/** An edit set: sheet → cell (`B3`) → new value. */
export type Edits = Map<string, Map<string, Input>>;

/** `count` edit sets drawn from the pattern's edit definitions with a fixed seed. */
export function drawEdits(defs: EditDef[], seed: number, count: number): Edits[] {
  const arbs: Record<string, fc.Arbitrary<Input>> = {};
  for (const d of defs) {
    for (const cell of d.cells) {
      const key = `${d.sheet}!${cell}`;
      if (d.kind === 'category') arbs[key] = fc.constantFrom(...d.values);
      else if (d.integer) arbs[key] = fc.integer({ min: d.min, max: d.max });
      // two decimals: what people type, and exact enough to make any formula's error visible
      else
        arbs[key] = fc
          .integer({ min: Math.round(d.min * 100), max: Math.round(d.max * 100) })
          .map((n) => n / 100);
    }
  }
  return fc.sample(fc.record(arbs), { seed, numRuns: count }).map((values) => {
    const edits: Edits = new Map();
    for (const [key, v] of Object.entries(values)) {
      const [sheet, cell] = key.split('!') as [string, string];
      if (!edits.has(sheet)) edits.set(sheet, new Map());
      edits.get(sheet)!.set(cell, v);
    }
    return edits;
  });
}

/** The book with the edits applied to its input cells. */
export function applyEdits(book: BookDef, edits: Edits): BookDef {
  return {
    ...book,
    sheets: book.sheets.map((s) => ({
      ...s,
      cells: { ...s.cells, ...Object.fromEntries(edits.get(s.name) ?? []) },
    })),
  };
}

/** Where a spec value lives: a row field of a table, or a top-level field. */
type Place = { kind: 'row'; table: string; field: string; index: number } | { kind: 'top'; name: string };

interface CellOfSpec {
  sheet: string;
  row: number;
  col: number;
  address: string;
  place: Place;
  /** A derivation's value (compared), or an input the edits may write. */
  computed: boolean;
}

const originOf = (description: string): { where: string; sheet?: string } | undefined => {
  const m = /(?:column|cell) ([A-Z]+\d*)(?: of sheet '(.*?)')?(?:\)|,|$)/.exec(description);
  return m ? { where: m[1]!, sheet: m[2] } : undefined;
};

/** Every cell the spec models, from its schema's descriptions (see the head of this file). */
export function cellsOfSpec(spec: ModelSpec, book: BookDef): CellOfSpec[] {
  const only = book.sheets.length === 1 ? book.sheets[0]!.name : undefined;
  const props = spec.schema.properties as Record<string, JsonObject>;
  const rowCount = spec.tests[0]!.given as JsonObject;
  const out: CellOfSpec[] = [];
  for (const [name, prop] of Object.entries(props)) {
    const description = String(prop.description ?? '');
    const t = /^The table (.+) of sheet '(.*)', one object per row$/.exec(description);
    if (t) {
      const [, title, sheet] = t as unknown as [string, string, string];
      const block = /!([A-Z]+)(\d+):/.exec(title);
      const excel = book.sheets.flatMap((s) => s.tables ?? []).find((x) => x.name === title);
      const header = block ? Number(block[2]) : excel ? splitRef(excel.ref.split(':')[0]!).row : NaN;
      const rows = (rowCount[`$.${name}`] as JsonValue[] | undefined)?.length ?? 0;
      const items = ((prop.items as JsonObject).properties ?? {}) as Record<string, JsonObject>;
      for (const [field, fp] of Object.entries(items)) {
        const o = originOf(String(fp.description ?? ''));
        if (!o) continue;
        for (let i = 0; i < rows; i++) {
          const { col } = splitRef(`${o.where}1`);
          out.push({
            sheet: o.sheet ?? sheet,
            row: header + 1 + i,
            col,
            address: `${o.where}${header + 1 + i}`,
            place: { kind: 'row', table: name, field, index: i },
            computed: fp.readOnly === true,
          });
        }
      }
      continue;
    }
    const o = originOf(description);
    if (!o || !/\d/.test(o.where)) continue;
    // a spill's array (spill.ts) shares its anchor's cell with its first item, `${name}_1`
    if (originOf(String(props[`${name}_1`]?.description ?? ''))?.where === o.where) continue;
    const sheet = o.sheet ?? only;
    if (sheet === undefined) throw new Error(`no sheet named for ${name}: ${description}`);
    const constant = description.endsWith('a formula of constants: its value');
    if (constant) continue;
    const { row, col } = splitRef(o.where);
    out.push({
      sheet,
      row,
      col,
      address: o.where,
      place: { kind: 'top', name },
      computed: prop.readOnly === true,
    });
  }
  return out;
}

/** The spec's own test inputs with the edits written into the inputs they touch. */
function editedGiven(spec: ModelSpec, cells: CellOfSpec[], edits: Edits): JsonObject {
  const given = structuredClone(spec.tests[0]!.given) as JsonObject;
  for (const c of cells) {
    if (c.computed) continue;
    const v = edits.get(c.sheet)?.get(c.address);
    if (v === undefined) continue;
    if (c.place.kind === 'top') given[`$.${c.place.name}`] = v;
    else (given[`$.${c.place.table}`] as JsonObject[])[c.place.index]![c.place.field] = v;
  }
  return given;
}

const valueAt = (state: JsonObject, p: Place): JsonValue | undefined =>
  p.kind === 'top' ? state[p.name] : (state[p.table] as JsonObject[] | undefined)?.[p.index]?.[p.field];

/**
 * Numbers agree within 1e-9 relative: the converter and LibreOffice both compute plain doubles, but
 * a function may be computed in another order (FV, PV) and end a few bits apart, so exact equality
 * would fail on that alone; any translation error is many orders of magnitude larger. Text and TRUE/FALSE are exact;
 * a blank result is "", and a spreadsheet error is a model value that is missing or not finite.
 */
export function agrees(model: JsonValue | undefined, oracle: CellValue | undefined): boolean {
  if (oracle !== null && typeof oracle === 'object') {
    return model === null || model === undefined || (typeof model === 'number' && !Number.isFinite(model));
  }
  const o = oracle ?? '';
  const m = model ?? '';
  if (typeof o === 'number' && typeof m === 'number') {
    return Math.abs(o - m) <= 1e-9 * Math.max(1, Math.abs(o), Math.abs(m));
  }
  return o === m;
}

export interface Mismatch {
  edit: number;
  cell: string;
  model: JsonValue | undefined;
  libreoffice: CellValue | undefined;
}

const blankInBook = (book: BookDef, edits: Edits, c: CellOfSpec): boolean =>
  c.place.kind === 'row' &&
  book.sheets.find((s) => s.name === c.sheet)?.cells[c.address] === undefined &&
  edits.get(c.sheet)?.get(c.address) === undefined;

/**
 * Runs the spec with each edit set; every compiled cell must equal LibreOffice's value. A row of a
 * computed column that is blank in the book (and not edited) is no formula cell: the model holds
 * a blank input's value there (a blank typed row, columns.ts), LibreOffice nothing, and it is not
 * compared.
 */
export async function compareEdits(
  spec: ModelSpec,
  book: BookDef,
  editSets: Edits[],
  oracle: Recalculated[],
): Promise<{ compared: number; mismatches: Mismatch[] }> {
  const cells = cellsOfSpec(spec, book);
  const computed = cells.filter((c) => c.computed);
  const { tests: _tests, ...withoutTests } = spec;
  const mismatches: Mismatch[] = [];
  let compared = 0;
  for (let k = 0; k < editSets.length; k++) {
    const { state } = await dryRun({ ...withoutTests, tests: [] }, editedGiven(spec, cells, editSets[k]!));
    for (const c of computed) {
      if (blankInBook(book, editSets[k]!, c)) continue;
      const model = valueAt(state, c.place);
      const lo = oracle[k]!.get(c.sheet)?.get(`${c.row}:${c.col}`);
      compared++;
      if (!agrees(model, lo))
        mismatches.push({ edit: k, cell: `${c.sheet}!${c.address}`, model, libreoffice: lo });
    }
  }
  return { compared, mismatches };
}
