/**
 * The converted spec's `viewDefinition`: the workbook's inputs as fields, its formula cells as stat
 * tiles and its tables as data tables, each number shown as the workbook's cell format shows it.
 * A `0.00%` cell holds a fraction (0.0935) that Excel shows as 9.35%; the view catalogue's
 * `percent` adds a sign to the number as stored (Valem's meaning), so such a value is shown through
 * a display expression scaled by 100 with `format: "percent"`. Money formats become `currency`
 * with the format's currency; years and plain numbers are left to the card's own rules.
 */
import type { JsonObject } from '../calc/index.js';
import type { Field, TableModel } from './fields.js';
import { cellDisplay, type CellDisplay } from './number-formats.js';
import { cellKey } from './xlsx.js';

/** Stat tiles and fields a view holds at most (a view is for people; the rest is in the state). */
export const MAX_VIEW_CELLS = 120;

/** A field's display: the format of its own cell, or for a column its first data row's cell. */
function displayOf(f: Field): CellDisplay {
  const row = f.table ? f.table.firstRow : f.row;
  return cellDisplay(f.sheet.cells.get(cellKey(row, f.col))?.format);
}

/** `name` as a JSONata path step (backquoted: any field name reads safely). */
const step = (name: string): string => `\`${name.replace(/`/g, '')}\``;

/** The value scaled by 100 when it is a number, as a percent cell shows it; rounded so 9.35 is not 9.350000000000001. */
const scaled = (read: string): string => `$type(${read}) = "number" ? $round(${read} * 100, 10) : ${read}`;

function inputOf(f: Field): JsonObject {
  const base: JsonObject = { id: f.name, label: f.title, bind: `$.${f.name}` };
  if (f.type === 'boolean') return { ...base, type: 'checkboxField' };
  if (f.type === 'string') return { ...base, type: 'textField' };
  const display = displayOf(f);
  if (display.kind === 'currency') return { ...base, type: 'currencyField', currency: display.currency };
  if (display.kind === 'percent')
    // an input holds what the workbook holds: the fraction (typed as 0.0935 for 9.35%)
    return {
      ...base,
      type: 'numericField',
      helperText: 'A fraction, as the workbook holds it: 0.0935 is 9.35%',
    };
  return { ...base, type: 'numericField' };
}

function tileOf(f: Field): JsonObject {
  const tile: JsonObject = { id: f.name, type: 'statTile', label: f.title, bind: `$.${f.name}` };
  const display = displayOf(f);
  if (display.kind === 'currency') return { ...tile, format: 'currency', currency: display.currency };
  if (display.kind === 'percent') return { ...tile, value: scaled(`$$.${step(f.name)}`), format: 'percent' };
  return tile;
}

function tableOf(t: TableModel, live: Field[]): JsonObject {
  const fields = live.filter((f) => f.table === t);
  const percent = new Set<string>();
  const columns = fields.map((f) => {
    const display = displayOf(f);
    const column: JsonObject = { field: f.name, header: f.title };
    if (display.kind === 'currency')
      Object.assign(column, { format: 'currency', currency: display.currency });
    if (display.kind === 'percent') {
      percent.add(f.name);
      column.format = 'percent';
    }
    return column;
  });
  const table: JsonObject = {
    id: `table_${t.name}`,
    type: 'dataTable',
    label: t.title,
    bind: `$.${t.name}`,
    tableColumns: columns,
  };
  if (percent.size > 0) {
    // the rows as shown: percent columns scaled by 100, every other field as it is
    const overrides = [...percent].map((name) => `"${name}": ${scaled(`$r.${step(name)}`)}`).join(', ');
    table.value = `$map($$.${step(t.name)}, function($r) { $merge([$r, { ${overrides} }]) })`;
  }
  return table;
}

/** The view of a converted workbook: inputs, results, then its tables. */
export function sheetViewDefinition(live: Field[], used: TableModel[], title: string): JsonObject {
  const top = live.filter((f) => !f.table);
  const inputs = top.filter((f) => f.kind === 'side' || f.constant).slice(0, MAX_VIEW_CELLS);
  const results = top.filter((f) => f.kind === 'summary' && !f.constant).slice(0, MAX_VIEW_CELLS);
  const components: JsonObject[] = [];
  if (inputs.length > 0)
    components.push({ id: 'group_inputs', type: 'group', label: 'Inputs', components: inputs.map(inputOf) });
  if (results.length > 0)
    components.push({
      id: 'group_results',
      type: 'group',
      label: 'Results',
      components: results.map(tileOf),
    });
  for (const t of used) components.push(tableOf(t, live));
  return { defaultView: 'main', views: [{ id: 'main', label: title, components }] };
}
