/** `modelworks calc …`: validate, test, evaluate and dry-run ModelSpecs from the command line. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type * as CalcEngine from '../calc/index.js';
import { EXIT as POLICY, debugDetails, internalErrorText, systemErrorText } from './cli-errors.js';
import { examples } from './help-text.js';

/** Exit codes shared by every command (cli-errors.ts): 0 ok, 1 failures found, 2 usage or unreadable input. */
export const EXIT = { ok: POLICY.ok, failures: POLICY.failed, usage: POLICY.usage } as const;

class UsageError extends Error {}

function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(systemErrorText(err, `read ${file}`) ?? `cannot read ${file}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

/** `$.a.b=1` → ['$.a.b', 1]; the value is JSON when it parses, else a plain string. */
export function parseAssignment(text: string): [string, unknown] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new UsageError(`--set expects ADDRESS=VALUE, got '${text}'`);
  const raw = text.slice(eq + 1);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = raw;
  }
  return [text.slice(0, eq).trim(), value];
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Follows local `$ref`s (`#/$defs/Name`) a bounded number of times; anything else is a dead end. */
function schemaNode(root: Record<string, unknown>, node: unknown): Record<string, unknown> | undefined {
  for (let hops = 0; hops < 32; hops++) {
    if (!isObject(node)) return undefined;
    const ref = node.$ref;
    if (typeof ref !== 'string') return node;
    if (!ref.startsWith('#/')) return undefined;
    let next: unknown = root;
    for (const token of ref.slice(2).split('/')) {
      const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
      next = isObject(next) && Object.hasOwn(next, key) ? next[key] : undefined;
    }
    node = next;
  }
  return undefined;
}

/** Levenshtein distance (field names are short). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * Where a `--set` path leaves the fields the schema lists, or undefined. Only where an object
 * schema lists its `properties` and leaves no room for others (no `additionalProperties` schema,
 * no `patternProperties`, no combinators) is an unlisted name a mistake; a schema that lists
 * nothing (`{}`) takes any field.
 */
export function undeclaredField(
  schema: unknown,
  path: CalcEngine.Path,
): { at: number; known: string[]; guess?: string } | undefined {
  if (!isObject(schema)) return undefined;
  let node = schemaNode(schema, schema);
  for (let i = 0; i < path.length && node; i++) {
    const seg = path[i]!;
    if (typeof seg === 'number' || seg === '*') {
      node = schemaNode(schema, node.items);
      continue;
    }
    const props = node.properties;
    if (!isObject(props)) return undefined;
    if (Object.hasOwn(props, seg)) {
      node = schemaNode(schema, props[seg]);
      continue;
    }
    const here = node;
    const open =
      (here.additionalProperties !== undefined && here.additionalProperties !== false) ||
      ['patternProperties', 'allOf', 'anyOf', 'oneOf', 'if', '$ref'].some((k) => here[k] !== undefined);
    if (open) return undefined;
    const known = Object.keys(props);
    const guess = known
      .map((k) => ({ k, d: distance(k.toLowerCase(), seg.toLowerCase()) }))
      .filter((c) => c.d <= (seg.length >= 4 ? 2 : 1))
      .sort((a, b) => a.d - b.d)[0]?.k;
    return { at: i, known, ...(guess !== undefined ? { guess } : {}) };
  }
  return undefined;
}

/** `--set` addresses the spec's schema does not have, one line each: a typo would write a stray field. */
function undeclaredSets(
  engine: typeof CalcEngine,
  spec: unknown,
  mutations: Record<string, unknown>,
): string[] {
  if (!isObject(spec)) return [];
  const { normalizeSpec, parseAddress, formatPath } = engine;
  const { spec: normalized } = normalizeSpec(spec);
  const derived = normalized.derivations
    .map((d) => parseAddress(d.path))
    .flatMap((p) => (p.ok ? [p.path] : []));
  // the derivation whose target is `path` or one of its containers ([*] matching any index)
  const derivedAt = (path: CalcEngine.Path): CalcEngine.Path | undefined =>
    derived.find(
      (target) => target.length <= path.length && target.every((seg, i) => seg === '*' || seg === path[i]),
    );
  const out: string[] = [];
  for (const address of Object.keys(mutations)) {
    const parsed = parseAddress(address);
    // a malformed address, or a derived field itself, is refused by the cycle in its own words
    if (!parsed.ok) continue;
    const target = derivedAt(parsed.path);
    if (target && target.length < parsed.path.length) {
      out.push(
        `--set ${address}: ${formatPath(target)} is computed by a derivation; nothing inside it can be set`,
      );
      continue;
    }
    if (target) continue;
    const found = undeclaredField(normalized.schema, parsed.path);
    if (!found) continue;
    const parent = parsed.path.slice(0, found.at);
    const fields = found.known.length > 0 ? found.known.join(', ') : 'none';
    const hint = found.guess !== undefined ? `; did you mean ${formatPath([...parent, found.guess])}?` : '';
    out.push(
      `--set ${address}: the schema has no field '${String(parsed.path[found.at])}' at ${formatPath(parent)} (its fields: ${fields})${hint}`,
    );
  }
  return out;
}

/** Runs one command's action with the calc engine, loaded only now so the CLI starts fast. */
async function run(action: (engine: typeof CalcEngine) => Promise<number>): Promise<void> {
  let engine: typeof CalcEngine | undefined;
  try {
    engine = await import('../calc/index.js');
    process.exitCode = await action(engine);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`modelworks: ${err.message}\n`);
      process.exitCode = EXIT.usage;
    } else if (engine && err instanceof engine.CalcError) {
      process.stderr.write(`modelworks: ${err.message}\n`);
      const details = err.details.errors ?? err.details.violations;
      if (Array.isArray(details)) for (const d of details) process.stderr.write(`  - ${JSON.stringify(d)}\n`);
      process.exitCode = EXIT.failures;
    } else {
      // a fault of ours: one line, the stack only with --debug
      process.stderr.write(
        `modelworks: ${internalErrorText(err, 'finish the command')}\n${debugDetails(err)}`,
      );
      process.exitCode = EXIT.failures;
    }
  }
}

/** Adds the `calc` command group and returns it, so other modules can add sub-commands. */
export function registerCalcCommands(program: Command): Command {
  const calc = program
    .command('calc')
    .description('Reactive models: validate, test, evaluate and dry-run ModelSpecs');
  examples(
    calc,
    'modelworks calc test examples/calc/*.json',
    "modelworks calc dry-run examples/calc/car-loan-calculator.json --set '$.vehiclePrice=25000'",
  );

  const validate = calc
    .command('validate')
    .description('Validate spec files; prints errors and warnings with their locations')
    .argument('<spec...>', 'ModelSpec JSON files')
    .option('--json', 'print one JSON report per file')
    .option('--no-tests', 'skip running the embedded tests')
    .action((files: string[], opts: { json?: boolean; tests: boolean }) =>
      run(async ({ validateSpec }) => {
        let invalid = 0;
        for (const file of files) {
          const report = await validateSpec(readJsonFile(file), { runTests: opts.tests });
          if (!report.valid) invalid++;
          if (opts.json) {
            process.stdout.write(`${JSON.stringify({ file, ...report })}\n`);
            continue;
          }
          process.stdout.write(`${report.valid ? 'valid  ' : 'INVALID'} ${file}\n`);
          for (const e of report.errors) process.stdout.write(`  error   ${e.location}: ${e.message}\n`);
          for (const w of report.warnings) process.stdout.write(`  warning ${w.location}: ${w.message}\n`);
        }
        return invalid > 0 ? EXIT.failures : EXIT.ok;
      }),
    );
  examples(
    validate,
    'modelworks calc validate examples/calc/car-loan-calculator.json',
    'modelworks calc validate --json --no-tests specs/*.json',
  );

  const test = calc
    .command('test')
    .description("Run specs' embedded tests through the real reactive pipeline")
    .argument('<spec...>', 'ModelSpec JSON files')
    .action((files: string[]) =>
      run(async ({ normalizeSpec, runTests }) => {
        let passed = 0;
        let failed = 0;
        for (const file of files) {
          const { spec } = normalizeSpec(readJsonFile(file));
          const report = await runTests(spec);
          process.stdout.write(`${file}: ${report.passed}/${report.total} passed\n`);
          for (const r of report.results) {
            process.stdout.write(`  ${r.passed ? 'pass' : 'FAIL'}  ${r.description}\n`);
            for (const f of r.failures ?? []) process.stdout.write(`        ${f.message}\n`);
          }
          passed += report.passed;
          failed += report.failed;
        }
        process.stdout.write(`${passed} passed, ${failed} failed\n`);
        return failed > 0 ? EXIT.failures : EXIT.ok;
      }),
    );
  examples(
    test,
    'modelworks calc test examples/calc/car-loan-calculator.json examples/calc/insurance-quote.json',
  );

  const evaluate = calc
    .command('eval')
    .description('Evaluate one JSONata expression against an input document')
    .argument('<expr>', 'the expression')
    .option('--input <file>', 'JSON input document (default {})')
    .option('--library <file>', 'JSON file holding a library (a definition string or {define|layers})')
    .option('--constants <file>', 'JSON file holding the constants object')
    .action((expr: string, opts: { input?: string; library?: string; constants?: string }) =>
      run(async ({ evalExpression }) => {
        const input = opts.input ? readJsonFile(opts.input) : {};
        const library = opts.library ? readJsonFile(opts.library) : undefined;
        const constants = opts.constants ? readJsonFile(opts.constants) : {};
        const out = await evalExpression(expr, input, library, constants as Record<string, unknown>);
        if (!out.ok) {
          process.stderr.write(`modelworks: ${out.error} error: ${out.message}\n`);
          return EXIT.failures;
        }
        process.stdout.write(`${JSON.stringify(out.result, null, 2)}\n`);
        return EXIT.ok;
      }),
    );
  examples(
    evaluate,
    "modelworks calc eval '1 + 2'",
    "modelworks calc eval '$sum(items.price)' --input order.json",
  );

  const dryRun = calc
    .command('dry-run')
    .description(
      'Compile a spec in a throwaway runtime, apply --set mutations as one cycle, print the merged state',
    )
    .argument('<spec>', 'ModelSpec JSON file')
    .option(
      '--set <assignment>',
      "a mutation, e.g. '$.price=10' (repeatable)",
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .action((file: string, opts: { set: string[] }) =>
      run(async (engine) => {
        const mutations = Object.fromEntries(opts.set.map(parseAssignment));
        const spec = readJsonFile(file);
        const undeclared = undeclaredSets(engine, spec, mutations);
        if (undeclared.length > 0) {
          for (const line of undeclared) process.stderr.write(`modelworks: ${line}\n`);
          return EXIT.failures;
        }
        const { state, result } = await engine.dryRun(spec, mutations);
        if (result && result.flaggedConstraints.length > 0) {
          for (const f of result.flaggedConstraints)
            process.stderr.write(`flagged: ${f.constraintId}: ${f.message}\n`);
        }
        process.stdout.write(`${JSON.stringify(state, null, 2)}\n`);
        return EXIT.ok;
      }),
    );
  examples(
    dryRun,
    "modelworks calc dry-run examples/calc/car-loan-calculator.json --set '$.vehiclePrice=25000' --set '$.deposit=5000'",
  );
  return calc;
}
