/**
 * Assembles the fitted model: one Copula block for the dependent columns (then bounds, rounding,
 * integers and labels), one small chain per other column, and a final Arrange that puts every
 * column back at its place in the sample.
 */
import type { ModelNode, SynthModel } from '../model/types.js';
import { MAX_DECIMALS } from './columns.js';
import { freshKeyRange, rowIndexOf } from './keys.js';
import type { ColumnPlan } from './plan.js';
import { categoricalNode, constantNode, input, marginalNode, node, num, param } from './nodes.js';

/** Names the builder uses itself; a column that sanitises to one of them gets a suffix. */
export const RESERVED = new Set([
  'Dependence',
  'Bounded',
  'Rounding',
  'Integers',
  'Wholes',
  'Keys',
  'Table',
  'Columns',
  'Seasons',
]);

function identityLabels(labels: readonly string[]): boolean {
  return labels.every((l, i) => l === String(i));
}

/** Empirical items are already at the sample's precision; other continuous draws are rounded to it. */
function needsRounding(p: ColumnPlan): boolean {
  const m = p.marginal;
  return m !== undefined && !m.integer && m.family !== 'Empirical' && p.col.decimals < MAX_DECIMALS;
}

/** The sample's range where the Truncate sees the draw: a Beta draws on (0, 1) before its affine map. */
function drawBounds(p: ColumnPlan): [number, number] {
  const [min, max] = p.bounds!;
  const a = p.marginal?.affine;
  if (!a) return [min, max];
  return [(min - a.offset) / a.width, (max - a.offset) / a.width];
}

function roundExpr(at: number, decimals: number, inner = `x[${at}]`): string {
  const f = num(10 ** decimals);
  return `y[${at}] = round(${inner} * ${f}) / ${f}`;
}

/**
 * `y[at] = x[at] + mean of the cell whose code is x[code]`: the expression language has no
 * conditional, so each mean is weighed by an indicator of its code, 1 - min(1, |x[code] - i|),
 * which is 1 for the row's (whole-number) code and 0 for every other.
 */
function seasonalExpr(at: number, code: number, means: readonly number[]): string {
  if (code < 0) throw new Error(`internal: the calendar code of column ${at} is not in the copula`);
  const terms = means.map((m, i) => `${num(m)} * (1 - min(1, abs(x[${code}] - ${i})))`);
  return `y[${at}] = x[${at}] + ${terms.join(' + ')}`;
}

/** Switch + label Constants: appends the label of the code at `key` as a new last column. */
function labelSwitch(
  nodes: ModelNode[],
  from: string,
  name: string,
  key: number,
  labels: readonly string[],
): string {
  const branches = labels.map((l, i) => {
    const b = constantNode(`${name}_${i}`, l);
    nodes.push(b);
    return input(b.name, { value: String(i) });
  });
  nodes.push(node('Switch', name, { key: String(key) }, [input(from, { role: 'input' }), ...branches]));
  return name;
}

function numericChain(nodes: ModelNode[], p: ColumnPlan): string {
  const m = p.marginal!;
  const s = p.safe;
  nodes.push(marginalNode(`${s}_dist`, m));
  let cur = `${s}_dist`;
  if (p.bounds) {
    const [min, max] = drawBounds(p);
    nodes.push(node('Truncate', `${s}_bounds`, { min: num(min), max: num(max) }, [input(cur)]));
    cur = `${s}_bounds`;
  }
  const affine = m.affine ? `(${param(m.affine.offset)} + ${param(m.affine.width)} * x[0])` : undefined;
  if (!m.integer && (affine || needsRounding(p))) {
    const expr = needsRounding(p) ? roundExpr(0, p.col.decimals, affine) : `y[0] = ${affine}`;
    nodes.push(node('Calculate', `${s}_round`, { expression: expr }, [input(cur)]));
    cur = `${s}_round`;
  } else if (affine) {
    nodes.push(node('Calculate', `${s}_scale`, { expression: `y[0] = ${affine}` }, [input(cur)]));
    cur = `${s}_scale`;
  }
  if (m.integer) {
    nodes.push(node('ToInteger', `${s}_int`, { mode: 'round' }, [input(cur)]));
    cur = `${s}_int`;
  }
  if (p.col.pointZero) {
    // a whole number as a double prints as the sample writes it (12.0)
    nodes.push(node('Calculate', `${s}_double`, { expression: 'y[0] = x[0]' }, [input(cur)]));
    cur = `${s}_double`;
  }
  if (p.col.plainWhole) {
    nodes.push(node('ToInteger', `${s}_whole`, { mode: 'whole' }, [input(cur)]));
    cur = `${s}_whole`;
  }
  return cur;
}

function categoricalChain(nodes: ModelNode[], p: ColumnPlan): string {
  const code = `${p.safe}_code`;
  nodes.push(categoricalNode(code, p.weights!));
  if (identityLabels(p.labels!)) return code;
  const sw = labelSwitch(nodes, code, `${p.safe}_labels`, 0, p.labels!);
  nodes.push(node('Arrange', `${p.safe}_label`, { columns: '1' }, [input(sw)]));
  return `${p.safe}_label`;
}

function dateChain(nodes: ModelNode[], p: ColumnPlan): string {
  const years = new Map<number, number>();
  for (const c of p.col.cells) {
    const y = Number(c.slice(0, 4));
    years.set(y, (years.get(y) ?? 0) + 1);
  }
  const items = [...years].sort((a, b) => a[0] - b[0]).map(([y, c]) => `${y}:${c}`);
  nodes.push(node('Empirical', `${p.safe}_year`, { values: items.join(', ') }));
  nodes.push(node('Date', `${p.safe}_date`, {}, [input(`${p.safe}_year`)]));
  return `${p.safe}_date`;
}

/**
 * A date within the calendar cell the copula drew (season.ts): a Switch on the cell's code whose
 * branch draws a year among that cell's years, a Date in it, and redraws until the Date's month
 * and weekday are the cell's (a month is one draw in twelve, a weekday one in seven, both one in
 * 84). Appends the date's text.
 */
function dateInCell(nodes: ModelNode[], from: string, p: ColumnPlan, key: number): string {
  const { cells, years } = p.calendar!;
  const s = p.safe;
  const branches = cells.map((cell, i) => {
    const items = [...years[i]!].sort((a, b) => a[0] - b[0]).map(([y, c]) => `${y}:${c}`);
    nodes.push(node('Empirical', `${s}_${i}_year`, { values: items.join(', ') }));
    nodes.push(node('Date', `${s}_${i}_date`, {}, [input(`${s}_${i}_year`)]));
    const fields = [
      'iso',
      ...(cell.month !== undefined ? ['month'] : []),
      ...(cell.weekday !== undefined ? ['dayOfWeek'] : []),
    ];
    nodes.push(node('Extract', `${s}_${i}_fields`, { fields: fields.join(', ') }, [input(`${s}_${i}_date`)]));
    let cur = `${s}_${i}_fields`;
    const keep = (what: string, value: number, index: number): void => {
      const only = { min: String(value), max: String(value), indexes: String(index) };
      nodes.push(node('Truncate', `${s}_${i}_${what}`, only, [input(cur)]));
      cur = `${s}_${i}_${what}`;
    };
    if (cell.month !== undefined) keep('in', cell.month, 1);
    if (cell.weekday !== undefined) keep('on', cell.weekday, fields.length - 1);
    nodes.push(node('Arrange', `${s}_${i}`, { columns: '0' }, [input(cur)]));
    return input(`${s}_${i}`, { value: String(i) });
  });
  nodes.push(
    node('Switch', `${s}_dates`, { key: String(key) }, [input(from, { role: 'input' }), ...branches]),
  );
  return `${s}_dates`;
}

/**
 * A numeric identifier: a row index is the same running number (its first value and step); a
 * key gets fresh keys of its width outside the sample's range (keys.ts), so no real one is copied.
 */
function numericKeys(nodes: ModelNode[], p: ColumnPlan): string {
  const values = p.col.values;
  const index = rowIndexOf(values);
  const fresh = index ? undefined : freshKeyRange(values, p.col.rowCount);
  if (index || !fresh) {
    // a key with no room left in its width counts on from above its largest value instead
    const start = index?.start ?? values.reduce((m, v) => (v > m ? v : m), -Infinity) + 1;
    nodes.push(node('Sequence', `${p.safe}_seq`, { start: num(start), step: num(index?.step ?? 1) }));
    return `${p.safe}_seq`;
  }
  nodes.push(node('Sequence', `${p.safe}_row`, { start: '0', step: '1' }));
  const { start, size, stride } = fresh;
  nodes.push(
    node(
      'Calculate',
      `${p.safe}_key`,
      { expression: `y[0] = ${num(start)} + mod(mod(x[0], ${num(size)}) * ${num(stride)}, ${num(size)})` },
      [input(`${p.safe}_row`)],
    ),
  );
  return `${p.safe}_key`;
}

/**
 * Text keys that copy nothing: the catalogue has no free-pattern string generator, so a MAC
 * address under a locally administered prefix (02:00:00) gives distinct, clearly synthetic text.
 */
function opaqueText(nodes: ModelNode[], safe: string): string {
  nodes.push(node('Constant', `${safe}_prefix`, { value: '02:00:00', type: 'string' }));
  nodes.push(node('MACAddress', `${safe}_key`, {}, [input(`${safe}_prefix`)]));
  return `${safe}_key`;
}

/** One column outside the copula, as a chain ending in a one-column node; returns its name. */
function independentChain(nodes: ModelNode[], p: ColumnPlan): string {
  let cur: string;
  const c = p.col;
  if (c.kind === 'continuous' || c.kind === 'integer') cur = numericChain(nodes, p);
  else if (c.kind === 'categorical' || c.kind === 'boolean' || c.kind === 'timestamp')
    cur = categoricalChain(nodes, p);
  else if (c.kind === 'date') cur = dateChain(nodes, p);
  else if (c.kind === 'identifier' && c.values.length > 0) {
    cur = numericKeys(nodes, p); // a double: 1.0, as a sample that writes its keys so
    if (!c.pointZero) {
      nodes.push(node('ToInteger', `${p.safe}_id`, {}, [input(cur)]));
      cur = `${p.safe}_id`;
    }
  } else if (c.kind === 'identifier' || c.kind === 'text') cur = opaqueText(nodes, p.safe);
  else if (c.kind === 'constant') {
    nodes.push(constantNode(`${p.safe}_value`, c.counts[0]![0]));
    cur = `${p.safe}_value`;
  } else {
    nodes.push(node('Constant', `${p.safe}_empty`, { value: '', type: 'string' }));
    return `${p.safe}_empty`;
  }
  if (c.missingRate > 0) {
    const miss = node('Constant', `${p.safe}_missing`, { value: '', type: 'string' });
    nodes.push(miss);
    const m = c.missingRate;
    nodes.push(
      node('Mix', p.safe, {}, [input(cur, { weight: param(1 - m) }), input(miss.name, { weight: param(m) })]),
    );
    return p.safe;
  }
  return cur;
}

/** Table keys in their natural order: numbers by value (a blank first), then text. */
function byKey(a: [string, string], b: [string, string]): number {
  const [x, y] = [a[0] === '' ? -Infinity : Number(a[0]), b[0] === '' ? -Infinity : Number(b[0])];
  if (!Number.isNaN(x) && !Number.isNaN(y) && x !== y) return x - y;
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/** A Switch on the source's column `key` whose branches are the lookup table's values. */
function lookupSwitch(nodes: ModelNode[], from: string, p: ColumnPlan, key: number): string {
  const d = p.derived!;
  const name = `${p.safe}_lookup`;
  const branches = [...d.table].sort(byKey).map(([k, label], i) => {
    const c = constantNode(`${name}_${i}`, label);
    nodes.push(c);
    return input(c.name, { value: k });
  });
  // a source value the sample had too rarely for the table (or never) gives the commonest one
  const other = constantNode(`${name}_other`, d.fallback);
  nodes.push(other);
  branches.push(input(other.name, { value: '*' }));
  nodes.push(node('Switch', name, { key: String(key) }, [input(from, { role: 'input' }), ...branches]));
  return name;
}

/**
 * The Copula block; returns its last node, where each column ended up in its output and where
 * each derived column did (appended by a lookup on its source's column).
 */
function copulaBlock(
  nodes: ModelNode[],
  plans: readonly ColumnPlan[],
  matrix: readonly (readonly number[])[],
  derived: readonly ColumnPlan[],
): { name: string; at: number[]; derivedAt: Map<ColumnPlan, number> } {
  const inputs = plans.map((p) => {
    const n = p.marginal ? marginalNode(p.safe, p.marginal) : categoricalNode(p.safe, p.weights!);
    nodes.push(n);
    return input(n.name);
  });
  const correlation = matrix.map((row) => row.map(num).join(', ')).join('; ');
  nodes.push(node('Copula', 'Dependence', { correlation }, inputs));
  let cur = 'Dependence';
  // a seasonal column's draw is a residual: the mean of its row's calendar cell is added (season.ts)
  const shifts = plans.flatMap((p, j) =>
    p.seasonal ? [seasonalExpr(j, plans.indexOf(p.seasonal.calendar), p.seasonal.means)] : [],
  );
  if (shifts.length > 0) {
    nodes.push(node('Calculate', 'Seasons', { expression: shifts.join('; ') }, [input(cur)]));
    cur = 'Seasons';
  }
  plans.forEach((p, j) => {
    if (!p.bounds) return;
    const name = `${p.safe}_bounds`;
    const [min, max] = drawBounds(p);
    const attrs = { min: num(min), max: num(max), indexes: String(j) };
    nodes.push(node('Truncate', name, attrs, [input(cur)]));
    cur = name;
  });
  // a column derived from two gets a spare column for its key (source × radix + second), computed
  // with the rounding and made an int with the integers
  const pairs = derived.filter((d) => d.derived!.second);
  const slotOf = new Map(pairs.map((d, s) => [d, plans.length + s]));
  if (pairs.length > 0) {
    const slots = pairs.map((d) => constantNode(`${d.safe}_key`, '0'));
    nodes.push(...slots, node('Append', 'Keys', {}, [input(cur), ...slots.map((n) => input(n.name))]));
    cur = 'Keys';
  }
  // whole numbers the sample writes as doubles (12.0) are rounded here and stay doubles (Calculate
  // writes doubles), so they print as the sample writes them
  const rounding = plans
    .map((p, j) =>
      p.col.pointZero
        ? `y[${j}] = round(x[${j}])`
        : needsRounding(p) || (p.seasonal && !p.marginal!.integer)
          ? roundExpr(j, p.col.decimals)
          : '',
    )
    .filter((e) => e !== '');
  for (const [d, w] of slotOf) {
    const { source, second } = d.derived!;
    const [a, b] = [plans.indexOf(source), plans.indexOf(second!.plan)];
    rounding.push(`y[${w}] = round(x[${a}]) * ${second!.radix} + round(x[${b}])`);
  }
  if (rounding.length > 0) {
    nodes.push(node('Calculate', 'Rounding', { expression: rounding.join('; ') }, [input(cur)]));
    cur = 'Rounding';
  }
  const ints = plans
    .map((p, j) => (p.marginal?.integer === false || p.col.pointZero ? -1 : j))
    .filter((j) => j >= 0)
    .concat([...slotOf.values()]);
  const NATIVE_INT = new Set(['Poisson', 'Geometric', 'NegativeBinomial']);
  const needsInts = plans.some((p) => p.marginal?.integer && !NATIVE_INT.has(p.marginal.family));
  if (ints.length > 0 && (rounding.length > 0 || needsInts)) {
    // Calculate writes doubles: integer and code columns become ints again
    nodes.push(node('ToInteger', 'Integers', { mode: 'round', indexes: ints.join(', ') }, [input(cur)]));
    cur = 'Integers';
  }
  // whole values of a column the sample writes as `2, 3.5` print as ints (2, not 2.0)
  const plainWhole = plans.flatMap((p, j) => (p.col.plainWhole ? [j] : []));
  if (plainWhole.length > 0) {
    nodes.push(node('ToInteger', 'Wholes', { mode: 'whole', indexes: plainWhole.join(', ') }, [input(cur)]));
    cur = 'Wholes';
  }
  plans.forEach((p, j) => {
    if (!p.presenceOf) return;
    // after rounding and integers (they would turn a blank into a number), before the labels
    const name = `${p.safe}_blank`;
    const owner = plans.indexOf(p.presenceOf);
    nodes.push(node('Missing', name, { key: String(j), indexes: String(owner) }, [input(cur)]));
    cur = name;
  });
  const at = plans.map((_, j) => j);
  let width = plans.length + pairs.length;
  plans.forEach((p, j) => {
    // a calendar code is read by the date's Switch below, never written
    if (!p.labels || identityLabels(p.labels) || p.calendarOf) return;
    cur = labelSwitch(nodes, cur, `${p.safe}_labels`, j, p.labels);
    at[j] = width++;
  });
  const derivedAt = new Map<ColumnPlan, number>();
  for (const d of derived) {
    cur = lookupSwitch(nodes, cur, d, slotOf.get(d) ?? plans.indexOf(d.derived!.source));
    derivedAt.set(d, width++);
  }
  plans.forEach((p, j) => {
    if (!p.calendarOf) return;
    cur = dateInCell(nodes, cur, p, j);
    derivedAt.set(p.calendarOf, width++);
  });
  return { name: cur, at, derivedAt };
}

export interface BuildInput {
  plans: ColumnPlan[];
  /** Correlation among the copula columns (in the order of the copula plans). */
  matrix: number[][];
  seed: string;
}

/** The whole model. */
export function buildModel({ plans, matrix, seed }: BuildInput): SynthModel {
  const nodes: ModelNode[] = [];
  // the matrix's order: the columns in sample order, each presence column right after its column
  const copula = plans
    .flatMap((p) => (p.calendarPlan ? [p.calendarPlan, p] : p.presence?.inCopula ? [p, p.presence] : [p]))
    .filter((p) => p.inCopula);
  const parts: string[] = [];
  const position = new Array<number>(plans.length);
  let width = 0;
  if (copula.length > 0) {
    const derived = plans.filter((p) => p.derived?.source.inCopula);
    const block = copulaBlock(nodes, copula, matrix, derived);
    parts.push(block.name);
    copula.forEach((p, j) => {
      if (!p.presenceOf && !p.calendarOf) position[plans.indexOf(p)] = block.at[j]!;
    });
    for (const [p, at] of block.derivedAt) position[plans.indexOf(p)] = at;
    width = Math.max(...block.at, ...block.derivedAt.values()) + 1;
  }
  plans.forEach((p, i) => {
    if (p.inCopula || p.derived?.source.inCopula || p.calendarPlan?.inCopula) return;
    parts.push(independentChain(nodes, p));
    position[i] = width++;
  });
  let root = parts[0]!;
  if (parts.length > 1) {
    nodes.push(
      node(
        'Append',
        'Table',
        {},
        parts.map((n) => input(n)),
      ),
    );
    root = 'Table';
  }
  if (width !== plans.length || position.some((v, i) => v !== i)) {
    nodes.push(node('Arrange', 'Columns', { columns: position.join(', ') }, [input(root)]));
    root = 'Columns';
  }
  return { root, seed, customs: [], declares: [], analysis: [], nodes };
}
