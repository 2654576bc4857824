/**
 * Row identity across partitions (issue 40). A node whose output depends on how many times it was
 * pulled (a Sequence, a walk through a table in order, an id allocator, a custom time step) would
 * restart at its first value in every partition, so K partitions of a model keyed by a Sequence
 * wrote K copies of the same ids. Such a node says how many times it was pulled and can move ahead
 * without drawing; a run whose first row is row `firstRow` of the whole generation moves each one
 * to where the single stream has it at that row. Random draws are not moved: a partition draws
 * from its own stream (see src/synth-io/partition.ts).
 */
import { SynthError } from '../errors.js';
import type { SynthModel } from '../model/types.js';
import type { Graph } from './loader.js';
import { Row } from './row.js';
import { isRowIndexed, type RowIndexedNode } from './row-indexed.js';

/**
 * Filters that pull each input exactly once per observation of their own: a node below a chain of
 * these is pulled once per row, so its pulls per row are known without running anything.
 */
const PULL_ONCE = new Set(['Append', 'Calculate', 'ToInteger', 'Arrange']);

/** Rows the probe runs to measure pulls per row when the model's shape does not tell. */
const PROBE_ROWS = 64;

/** Per node name, its pulls per row when the chain from the root shows it (1), else undefined. */
function pullsPerRowFromShape(model: SynthModel, name: string): number | undefined {
  const consumer = new Map<string, string>();
  for (const node of model.nodes) for (const input of node.inputs) consumer.set(input.name, node.name);
  const types = new Map(model.nodes.map((n) => [n.name, n.type]));
  const seen = new Set<string>();
  for (let at = name; ;) {
    if (at === model.root) return 1;
    if (seen.has(at)) return undefined;
    seen.add(at);
    const parent = consumer.get(at);
    if (parent === undefined || !PULL_ONCE.has(types.get(parent) ?? '')) return undefined;
    at = parent;
  }
}

/**
 * Pulls per row of each named node, measured on a throwaway graph of the same model over its first
 * rows. A node pulled a varying number of times per row cannot be placed at a row without running
 * the rows before it.
 * @throws SynthError SYNTH_INVALID naming such a node
 */
function measurePullsPerRow(names: readonly string[], probe: () => Graph, rows: number): Map<string, number> {
  const graph = probe();
  const nodes = names.map((n) => graph.nodes.get(n) as RowIndexedNode);
  const counts: number[][] = nodes.map(() => []);
  const row = new Row(graph.root.dimension);
  try {
    for (let r = 0; r < rows; r++) {
      graph.root.next(row, 0);
      nodes.forEach((n, i) => counts[i]!.push(n.pulls()));
    }
  } catch {
    // a row that fails here fails in the real run too, at its own row; measure what ran
  }
  const result = new Map<string, number>();
  names.forEach((name, i) => {
    const c = counts[i]!;
    if (c.length === 0) return result.set(name, 0);
    const first = c[0]!;
    for (let r = 1; r < c.length; r++)
      if (c[r]! - c[r - 1]! !== first)
        throw new SynthError(
          'SYNTH_INVALID',
          `${nodes[i]!.type} "${name}" is pulled a varying number of times per row (${first} in row 1, ${c[r]! - c[r - 1]!} in row ${r + 1}), so a partition cannot know where its count stands: generate this model in one stream`,
        );
    return result.set(name, first);
  });
  return result;
}

/**
 * Moves every row-indexed node of `graph` to where the single stream has it when row `firstRow`
 * (of the whole generation, from 0) starts. `probe` builds a throwaway graph of the same model,
 * used only when the model's shape does not show how often such a node is pulled per row.
 * @throws SynthError SYNTH_INVALID when a node is pulled a varying number of times per row
 */
export function placeAtRow(model: SynthModel, graph: Graph, firstRow: number, probe: () => Graph): void {
  if (firstRow <= 0) return;
  const indexed = [...graph.nodes.values()].filter(isRowIndexed);
  if (indexed.length === 0) return;
  const perRow = new Map<string, number>();
  const unknown: string[] = [];
  for (const node of indexed) {
    const known = pullsPerRowFromShape(model, node.name);
    if (known === undefined) unknown.push(node.name);
    else perRow.set(node.name, known);
  }
  if (unknown.length > 0)
    for (const [name, c] of measurePullsPerRow(unknown, probe, PROBE_ROWS)) perRow.set(name, c);
  for (const node of indexed) node.skip(firstRow * perRow.get(node.name)!);
}
