/**
 * Row identity across partitions (issue 40, point 1): a node that numbers its observations
 * (Sequence, a table read in order, an id allocator, a custom time step) goes on in partition k
 * from where the single stream has it at the partition's first row, so the K partitions together
 * carry the ids and times of the unpartitioned rows, each once.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isRowIndexed, type RowIndexedNode } from '../../src/synth/engine/row-indexed.js';
import type { Row } from '../../src/synth/engine/row.js';
import type { PreparedModel } from '../../src/synth/index.js';
import {
  CLOSED_ALLOWLISTS,
  SynthError,
  SynthRun,
  loadSynthModel,
  parseModel,
  prepareModel,
} from '../../src/synth/index.js';
import { realPorts } from '../../src/synth-io/index.js';
import { partitionRange, partitionSeed } from '../../src/synth-io/partition.js';
import type { RowBatch, SinkFactory } from '../../src/synth-io/sinks/sink.js';
import { generateToSink } from '../../src/synth-io/sinks/target.js';
import { EXAMPLES, ROOT, SHARED, casesOf, sharedPresent } from './corpus-cases.js';

const K = 3;
const work = realpathSync(mkdtempSync(join(tmpdir(), 'mw-partition-ids-')));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What each row-indexed node hands out over `rows` rows of `run`: its values in pull order. */
function indexedValues(run: SynthRun, rows: number): Map<string, (number | string)[]> {
  const seen = new Map<string, (number | string)[]>();
  for (const node of run.graph.nodes.values()) {
    if (!isRowIndexed(node)) continue;
    const values: (number | string)[] = [];
    seen.set(node.name, values);
    // record what the node writes, whether pulled or read by a collaborator
    const record =
      (original: (out: Row, offset: number) => void) =>
      (out: Row, offset: number): void => {
        original(out, offset);
        for (let j = 0; j < node.dimension; j++) values.push(out.value(offset + j));
      };
    const n = node as RowIndexedNode & { collaborate?: (out: Row, offset: number) => void };
    n.next = record(n.next.bind(n));
    if (typeof n.collaborate === 'function' && n.type === 'FhirIdRegistry')
      n.collaborate = record(n.collaborate.bind(n));
  }
  for (let r = 0; r < rows; r++) run.next();
  return seen;
}

/** The single stream's row-indexed values against the K partitions' together, in order. */
function compareOverPartitions(prepared: PreparedModel, seed: bigint, total: number): number {
  const single = indexedValues(new SynthRun(prepared, seed), total);
  const joined = new Map<string, (number | string)[]>([...single.keys()].map((k) => [k, []]));
  for (let index = 1; index <= K; index++) {
    const { start, end } = partitionRange(total, { index, count: K });
    const part = indexedValues(new SynthRun(prepared, partitionSeed(seed, index), {}, start), end - start);
    for (const [name, values] of part) joined.get(name)!.push(...values);
  }
  for (const [name, values] of single) expect(joined.get(name), name).toEqual(values);
  return single.size;
}

/** A model whose rows carry an id, a time and a draw. */
const KEYED = `<dataset seed="9"><root node="Row"/><nodes>
  <Append name="Row"><input name="Id"/><input name="Time"/><input name="Wait"/></Append>
  <Sequence name="Id" start="1" step="1"/>
  <Sequence name="Time" start="0" step="0.1"/>
  <Normal name="Wait" mean="12" sd="8"/>
</nodes></dataset>`;

/** Rows of `prepared` as one partition generates them. */
function partitionRows(prepared: PreparedModel, seed: bigint, total: number, index: number): number[][] {
  const { start, end } = partitionRange(total, { index, count: K });
  const run = new SynthRun(prepared, partitionSeed(seed, index), {}, start);
  const rows: number[][] = [];
  for (let r = start; r < end; r++) {
    const row = run.next();
    rows.push(Array.from({ length: run.dimension }, (_, j) => row.num(j)));
  }
  return rows;
}

describe('partitions keep row identity', () => {
  it('Sequence ids and times: the K partitions together are the single stream rows, ids unique', () => {
    const prepared = prepareModel(parseModel(KEYED));
    const total = 1000;
    const single = new SynthRun(prepared, 9n);
    const want: number[][] = [];
    for (let r = 0; r < total; r++) {
      const row = single.next();
      want.push([row.num(0), row.num(1), row.num(2)]);
    }
    const got = [1, 2, 3].flatMap((k) => partitionRows(prepared, 9n, total, k));
    expect(got.map((r) => [r[0], r[1]])).toEqual(want.map((r) => [r[0], r[1]]));
    expect(new Set(got.map((r) => r[0])).size).toBe(total);
    // the times keep the single stream's own sums, drift included (0.1 added row after row)
    expect(got[999]![1]).toBe(want[999]![1]);
    expect(got[999]![1]).not.toBe(99.9);
    // the draws are each partition's own stream (seeded from the seed and k), as documented
    expect(got.map((r) => r[2])).not.toEqual(want.map((r) => r[2]));
  });

  it('a Sequence pulled several times a row (Redimension) is measured, and placed the same', () => {
    const model = `<dataset><root node="Row"/><nodes>
      <Redimension name="Row" dimension="3"><input name="Id"/></Redimension>
      <Sequence name="Id" start="10" step="5"/>
    </nodes></dataset>`;
    const prepared = prepareModel(parseModel(model));
    expect(compareOverPartitions(prepared, 4n, 200)).toBe(1);
    const rows = [1, 2, 3].flatMap((k) => partitionRows(prepared, 4n, 200, k)).flat();
    expect(rows).toEqual(Array.from({ length: 600 }, (_, i) => 10 + 5 * i));
  });

  it('a Sequence pulled a varying number of times a row is refused in a partition, not repeated', () => {
    const model = `<dataset><root node="Row"/><nodes>
      <Mix name="Row"><input name="Id" weight="1"/><input name="Zero" weight="1"/></Mix>
      <Sequence name="Id" start="1" step="1"/>
      <Constant name="Zero" value="0"/>
    </nodes></dataset>`;
    const prepared = prepareModel(parseModel(model));
    expect(() => new SynthRun(prepared, 1n, {}, 0)).not.toThrow();
    let error: unknown;
    try {
      new SynthRun(prepared, partitionSeed(1n, 2), {}, 300);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SynthError);
    expect((error as SynthError).code).toBe('SYNTH_INVALID');
    expect((error as Error).message).toMatch(/Sequence "Id" is pulled a varying number of times per row/);
  });

  it('a custom time step with skip goes on; the sensor example’s hours are continuous', async () => {
    const dir = join(EXAMPLES, 'custom');
    const prepared = await loadSynthModel(
      parseModel(`<dataset><definitions><custom name="SineWave" class="sine-wave.mjs"/></definitions>
        <root node="W"/><nodes><SineWave name="W" amplitude="10" period="24" noise="0"/></nodes></dataset>`),
      { customComponentDirs: [dir], ports: realPorts() },
    );
    // noise 0: the wave is the hour's alone, so the partitions' rows are the single stream's
    const single = new SynthRun(prepared, 1n);
    const want = Array.from({ length: 90 }, () => single.next().num(0));
    const got = [1, 2, 3].flatMap((k) => partitionRows(prepared, 1n, 90, k).map((r) => r[0]));
    expect(got).toEqual(want);
  });

  it('for every bundled example model: the row-indexed values of K=3 partitions are the single run’s', () => {
    const { cases } = casesOf(EXAMPLES);
    const models = new Map(cases.map((c) => [c.model, c]));
    for (const c of models.values()) compareOverPartitions(c.prepared, c.seed, 300);
    expect(models.size).toBeGreaterThan(0);
  });

  it.skipIf(!sharedPresent)(
    'for every model of the shared corpus: the row-indexed values of K=3 partitions are the single run’s',
    () => {
      const { cases } = casesOf(SHARED);
      const models = new Map(cases.map((c) => [c.model, c]));
      const indexed: string[] = [];
      for (const c of models.values())
        if (compareOverPartitions(c.prepared, c.seed, 300) > 0) indexed.push(c.model);
      console.log(`[partitions] ${models.size} models, with row-indexed nodes: ${indexed.join(', ')}`);
      expect(models.size).toBeGreaterThanOrEqual(20);
      expect(indexed.length).toBeGreaterThan(0);
    },
    120_000,
  );
});

describe('the partition paths', () => {
  it('a table read in order goes on in each partition where the single stream is (every end rule)', () => {
    const table = join(work, 'table.csv');
    writeFileSync(table, 'a,b\n1,x\n2,y\n3,z\n4,w\n5,v\n6,u\n7,t\n');
    for (const onEnd of ['repeat', 'hold', 'null']) {
      const model = `<dataset><root node="Row"/><nodes>
        <Append name="Row"><input name="T"/><input name="U"/></Append>
        <FlatFile name="T" file="${table}" mode="sequential" onExhaustion="${onEnd}"/>
        <Uniform name="U"/>
      </nodes></dataset>`;
      const prepared = prepareModel(parseModel(model), {
        ports: realPorts(),
        allowlists: { ...CLOSED_ALLOWLISTS, flatFilePathAllowlist: [work] },
      });
      expect(compareOverPartitions(prepared, 3n, 20), onEnd).toBe(1);
    }
  });

  it('the queue path (generateToSink per partition): ids unique, the single stream ids', async () => {
    const prepared = prepareModel(parseModel(KEYED));
    const total = 2500;
    const ids: number[] = [];
    const memorySink: SinkFactory = () =>
      Promise.resolve({
        write: (batch: RowBatch) => {
          ids.push(...(batch.values[0] as number[]));
          return Promise.resolve();
        },
        commit: () => Promise.resolve(),
        abort: () => Promise.resolve(),
      });
    // written out of order, as queue workers take jobs
    for (const index of [3, 1, 2])
      await generateToSink({ prepared, seed: 9n, total, partition: { index, count: K } }, memorySink);
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  });

  it.skipIf(!existsSync(join(ROOT, 'dist', 'cli', 'main.js')))(
    'grind --partition k/3: the three outputs carry ids 1..N once each',
    () => {
      const model = join(work, 'keyed.xml');
      writeFileSync(model, KEYED);
      const ids: number[] = [];
      for (let k = 1; k <= K; k++) {
        const run = spawnSync(
          process.execPath,
          [
            join(ROOT, 'dist', 'cli', 'main.js'),
            'synth',
            'grind',
            model,
            '--count',
            '1000',
            '--partition',
            `${k}/${K}`,
            '--quiet',
          ],
          { encoding: 'utf8' },
        );
        expect(run.status, run.stderr).toBe(0);
        for (const line of run.stdout.trim().split('\n')) ids.push(Number(line.split(',')[0]));
      }
      expect(ids).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    },
    60_000,
  );
});
