/**
 * The spec's runs during verification, in slices of rows. The calc engine holds every value of a
 * run (state, derived values, traces), so one run of a 10,000-row × 100-column table held well
 * over a gigabyte. A table whose compiled columns each read only their own row (`$parent.x`, by
 * the engine's own dependency analysis) and the top-level inputs, and which no other rule reads,
 * gives every row the same values whether the model holds all its rows or a slice of them: such a
 * table is run a slice at a time, and every one of its rows is still checked. Any other table is
 * given whole in the first run (with the top-level expectations) and empty in the others.
 */
import {
  compileExpression,
  compileModel,
  extractDependencyInfo,
  readsVariable,
  runTests,
  WILDCARD,
  type CompiledModel,
  type JsonObject,
  type JsonValue,
  type ModelSpec,
  type SpecTest,
  type TestReport,
} from '../calc/index.js';

/** Rows of a sliced table per run: small enough that a run's values stay a few tens of megabytes. */
export const SLICE_ROWS = 500;

export interface SlicePlan {
  /** Tables run a slice of rows at a time, by their name in the spec, with their row counts. */
  sliced: Map<string, number>;
  /** The other tables: whole in the first run, empty in the rest. */
  whole: Set<string>;
  rowsPerSlice: number;
  /** Runs per test: enough slices for the longest sliced table (1 when nothing is sliced). */
  runs: number;
}

/** A table of the spec as the plan sees it: its array's name and its rows. */
export interface SpecTable {
  name: string;
  rows: number;
}

/** `$.<table>[*].<field>`: a column derivation's path. */
const COLUMN_PATH = /^\$\.([A-Za-z_]\w*)\[\*\]\.[A-Za-z_]\w*$/;

/**
 * Which tables can be run in slices. `inputs` are the top-level fields the test gives (side cells,
 * constants): the same in every run, so a column may read them. Anything the plan cannot read (an
 * expression that does not compile, metas, constraints, effects) leaves every table whole.
 */
export function planSlices(
  spec: ModelSpec,
  tables: SpecTable[],
  inputs: ReadonlySet<string>,
  rowsPerSlice = SLICE_ROWS,
): SlicePlan {
  const long = new Map(tables.filter((t) => t.rows > rowsPerSlice).map((t) => [t.name, t.rows]));
  const wholePlan = (): SlicePlan => ({
    sliced: new Map(),
    whole: new Set(tables.map((t) => t.name)),
    rowsPerSlice,
    runs: 1,
  });
  if (long.size === 0) return wholePlan();
  if (spec.metaDerivations.length + spec.constraints.length + spec.effects.length > 0) return wholePlan();
  const unsliced = new Set<string>();
  for (const d of spec.derivations) {
    const compiled = compileExpression(d.expr);
    if (!compiled.ok) return wholePlan();
    const ast = compiled.expr.ast;
    const table = COLUMN_PATH.exec(d.path)?.[1];
    const deps = extractDependencyInfo(ast, table ? { parent: [table, WILDCARD] } : {});
    if (table !== undefined && long.has(table)) {
      // its own row, through $parent, and top-level inputs: nothing else (not its row's place)
      const ownRow =
        !readsVariable(ast, 'index') &&
        deps.every((x) =>
          x.local ? x.path[0] === table : x.path.length === 1 && inputs.has(String(x.path[0])),
        );
      if (!ownRow) unsliced.add(table);
      continue;
    }
    // any other rule reading a table (an aggregate, a lookup index, a fold) needs all its rows
    for (const x of deps) {
      if (x.path.length === 0) return wholePlan();
      unsliced.add(String(x.path[0]));
    }
  }
  const sliced = new Map([...long].filter(([name]) => !unsliced.has(name)));
  if (sliced.size === 0) return wholePlan();
  const runs = Math.max(...[...sliced.values()].map((n) => Math.ceil(n / rowsPerSlice)));
  const whole = new Set(tables.map((t) => t.name).filter((name) => !sliced.has(name)));
  return { sliced, whole, rowsPerSlice, runs };
}

/**
 * The spec as the runs compile it: the tables' defaults (the workbook's rows, which every test
 * gives anyway) and the tests left out, so that the model does not hold a second copy of the rows.
 */
function specForRuns(spec: ModelSpec, tables: SpecTable[]): ModelSpec {
  const properties = { ...((spec.schema.properties as JsonObject | undefined) ?? {}) };
  for (const t of tables) {
    const p = properties[t.name];
    if (p === null || typeof p !== 'object' || Array.isArray(p) || !('default' in p)) continue;
    const { default: _rows, ...rest } = p;
    properties[t.name] = rest;
  }
  return { ...spec, schema: { ...spec.schema, properties }, tests: [] };
}

/** A test's path in a slice run, from the path in the whole run (undefined: not in this run). */
const ROW_PATH = /^\$\.([A-Za-z_]\w*)\[(\d+)\](.*)$/;

/** Runs a spec's tests against its model, a slice of rows at a time (see the module's comment). */
export class SpecRunner {
  private constructor(
    private readonly model: CompiledModel,
    readonly plan: SlicePlan,
  ) {}

  static async open(spec: ModelSpec, tables: SpecTable[], inputs: ReadonlySet<string>): Promise<SpecRunner> {
    const plan = planSlices(spec, tables, inputs);
    return new SpecRunner(await compileModel(specForRuns(spec, tables)), plan);
  }

  /**
   * Runs one test in `plan.runs` runs; the failures' paths are the whole run's (`$.rows[1234].x`).
   * `onRun` is told after each run (runs done).
   */
  async run(test: SpecTest, onRun?: (done: number) => void): Promise<TestReport> {
    const { plan } = this;
    if (plan.runs === 1) {
      const report = await runTests(this.model, [test]);
      onRun?.(1);
      return report;
    }
    const expects = this.bucket(test.expect);
    const failures: NonNullable<TestReport['results'][number]['failures']> = [];
    for (let i = 0; i < plan.runs; i++) {
      const given = this.givenOf(test.given, i);
      const report = await runTests(this.model, [
        { description: test.description, given, expect: expects[i]! },
      ]);
      expects[i] = {};
      for (const r of report.results)
        for (const f of r.failures ?? []) failures.push({ ...f, path: this.wholePath(f.path, i) });
      onRun?.(i + 1);
    }
    const description = test.description ?? 'test 1';
    return {
      total: 1,
      passed: failures.length === 0 ? 1 : 0,
      failed: failures.length === 0 ? 0 : 1,
      results: [
        failures.length === 0 ? { description, passed: true } : { description, passed: false, failures },
      ],
    };
  }

  /** The expectations of each run: a sliced table's row to its slice, the rest to the first run. */
  private bucket(expect: SpecTest['expect']): JsonObject[] {
    const { plan } = this;
    const out: JsonObject[] = Array.from({ length: plan.runs }, () => ({}));
    for (const [path, value] of Object.entries(expect)) {
      const m = ROW_PATH.exec(path);
      if (!m || !plan.sliced.has(m[1]!)) {
        out[0]![path] = value;
        continue;
      }
      const row = Number(m[2]);
      const run = Math.floor(row / plan.rowsPerSlice);
      out[run]![`$.${m[1]}[${row - run * plan.rowsPerSlice}]${m[3]}`] = value;
    }
    return out;
  }

  /** The given of run `i`: each sliced table's slice, the other tables whole in the first run only. */
  private givenOf(given: SpecTest['given'], i: number): JsonObject {
    const { plan } = this;
    const out: JsonObject = {};
    for (const [path, value] of Object.entries(given)) {
      const table = /^\$\.([A-Za-z_]\w*)$/.exec(path)?.[1];
      if (table !== undefined && plan.sliced.has(table) && Array.isArray(value)) {
        out[path] = value.slice(i * plan.rowsPerSlice, (i + 1) * plan.rowsPerSlice);
      } else if (table !== undefined && plan.whole.has(table) && Array.isArray(value)) {
        out[path] = i === 0 ? value : ([] as JsonValue[]);
      } else out[path] = value;
    }
    return out;
  }

  /** A failure's path in run `i` as the whole run has it. */
  private wholePath(path: string, i: number): string {
    const m = ROW_PATH.exec(path);
    if (!m || !this.plan.sliced.has(m[1]!)) return path;
    return `$.${m[1]}[${Number(m[2]) + i * this.plan.rowsPerSlice}]${m[3]}`;
  }
}
