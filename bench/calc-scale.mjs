// Benchmark: compile + start cost per derivation as a spec grows (issue 18, acceptance 1).
//
// A generated spec of a realistic shape, in blocks of 20 derivations: short chains over inputs,
// fan-in of earlier values, `[*]` row rules over a five-row array (one array per block, some rules
// reading a root value too), and whole-array readers (`$sum`, `$count` with a filter, `$max` over an
// element scope); one row meta rule and one flag constraint per block. For each size we time
// `compileModel` and `startRuntime` (the create path's seeding cycle plus the full first
// computation) and report the cost per derivation. Sizes alternate round by round; we keep the
// minimum of each. `validateSpec` (which compiles once more) is printed for information.
//
// Target: cost per derivation at the largest size ≤ 1.5 × the cost per derivation at the smallest.
// Knobs: BENCH_SIZES (default 1000,30000), BENCH_ROUNDS (default 3), BENCH_CALC (another build's
// dist/calc/index.js, to measure before/after), BENCH_VALIDATE=0 to skip the validator timing.
import { pathToFileURL } from 'node:url';

const calcUrl = process.env.BENCH_CALC
  ? pathToFileURL(process.env.BENCH_CALC).href
  : new URL('../dist/calc/index.js', import.meta.url).href;
const { compileModel, normalizeSpec, startRuntime, validateSpec } = await import(calcUrl);

const SIZES = (process.env.BENCH_SIZES ?? '1000,30000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WITH_VALIDATE = process.env.BENCH_VALIDATE !== '0';
const ROWS = 5;

/**
 * A deterministic spec with `n` derivations. `salt` pads every expression with that many spaces, so
 * each measurement compiles its own texts (the engine caches compiled expressions by text).
 */
export function generateSpec(n, salt = 0) {
  let seed = 20260801;
  const rand = (k) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((seed / 2 ** 31) * k);
  };
  const inputs = Math.max(8, Math.round(n / 10));
  const properties = {};
  for (let k = 0; k < inputs; k++) properties[`in${k}`] = { type: 'number', default: (k % 17) + 1 };
  const derivations = [];
  const metaDerivations = [];
  const constraints = [];
  const chains = [];
  const fans = [];
  let lastSum = null;
  for (let i = 0; derivations.length < n; i++) {
    const slot = i % 20;
    const block = Math.floor(i / 20);
    const arr = `rows${block}`;
    if (slot === 0) {
      properties[arr] = {
        type: 'array',
        items: { type: 'object', properties: { p: { type: 'number' }, q: { type: 'number' } } },
        default: Array.from({ length: ROWS }, (_, r) => ({ p: r + 1, q: (r % 3) + 1 })),
      };
      metaDerivations.push({ path: `$.${arr}[*].q`, property: 'maximum', expr: `p * 10 + ${block}` });
      constraints.push({
        id: `k${block}`,
        expr: `in${rand(inputs)} >= 0`,
        message: 'negative',
        policy: 'flag',
      });
    }
    let d;
    if (slot < 8) {
      d =
        slot === 0 || chains.length === 0
          ? { path: `$.c${i}`, expr: `in${rand(inputs)} + 1` }
          : { path: `$.c${i}`, expr: `c${chains[chains.length - 1]} * 1.01 + in${rand(inputs)}` };
      chains.push(i);
    } else if (slot < 12) {
      const pick = () => `c${chains[rand(chains.length)]}`;
      d = { path: `$.f${i}`, expr: `${pick()} + ${pick()} + ${pick()}` };
      fans.push(i);
    } else if (slot < 16) {
      d = { path: `$.${arr}[*].t${i}`, expr: `$parent.p * ${slot} + $parent.q` };
    } else if (slot === 16) {
      d = { path: `$.${arr}[*].u${i}`, expr: `$parent.p * f${fans[rand(fans.length)]}` };
    } else if (slot === 17) {
      d = { path: `$.s${i}`, expr: `$sum(${arr}.t${i - 5})` };
      lastSum = i;
    } else if (slot === 18) {
      d = { path: `$.n${i}`, expr: `$count(${arr}[p > 2])` };
    } else {
      d = { path: `$.m${i}`, expr: `$max(${arr}.(p * q)) + s${lastSum}` };
    }
    derivations.push({ ...d, expr: d.expr + ' '.repeat(salt) });
  }
  return {
    id: 'bench-scale',
    version: '1.0.0',
    schema: { type: 'object', properties },
    derivations,
    metaDerivations,
    constraints,
  };
}

// run only as a script (the generator can be imported)
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

async function measure(n, salt) {
  const raw = generateSpec(n, salt);
  const { spec } = normalizeSpec(raw);
  const t0 = performance.now();
  const model = await compileModel(spec);
  const t1 = performance.now();
  const runtime = await startRuntime(model, { historyCapacity: 50 });
  const t2 = performance.now();
  // a sanity read so the work cannot be skipped
  const state = await runtime.getState();
  if (typeof state.c0 !== 'number') throw new Error('c0 was not computed');
  // the validator compiles once more (its texts cached by now): timed for information
  let validate = null;
  if (WITH_VALIDATE) {
    const v0 = performance.now();
    const report = await validateSpec(raw, { runTests: false });
    validate = performance.now() - v0;
    if (!report.valid)
      throw new Error(`generated spec invalid: ${JSON.stringify(report.errors.slice(0, 3))}`);
  }
  return { compile: t1 - t0, start: t2 - t1, validate };
}

async function main() {
  let salt = 0;
  const best = new Map(
    SIZES.map((n) => [n, { compile: Infinity, start: Infinity, total: Infinity, validate: Infinity }]),
  );
  await measure(Math.min(...SIZES), ++salt); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    for (const n of SIZES) {
      const m = await measure(n, ++salt);
      const b = best.get(n);
      b.compile = Math.min(b.compile, m.compile);
      b.start = Math.min(b.start, m.start);
      b.total = Math.min(b.total, m.compile + m.start);
      if (m.validate !== null) b.validate = Math.min(b.validate, m.validate);
    }
  }

  const ms = (x) => (x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${x.toFixed(0)} ms`);
  console.log(`calc-scale: compile + start of a generated spec (min of ${ROUNDS} alternating rounds)`);
  for (const n of SIZES) {
    const b = best.get(n);
    const per = (b.total / n) * 1000;
    const v = WITH_VALIDATE
      ? `; validateSpec ${ms(b.validate)} (${((b.validate / n) * 1000).toFixed(0)} µs/derivation)`
      : '';
    console.log(
      `  ${String(n).padStart(6)} derivations: compile ${ms(b.compile)}, start ${ms(b.start)} → ${per.toFixed(0)} µs/derivation${v}`,
    );
  }
  const small = Math.min(...SIZES);
  const large = Math.max(...SIZES);
  const perSmall = best.get(small).total / small;
  const perLarge = best.get(large).total / large;
  console.log(
    `cost per derivation at ${large} ÷ at ${small} = ${(perLarge / perSmall).toFixed(2)}  (target <= 1.5)`,
  );
  if (WITH_VALIDATE) {
    const vr = best.get(large).validate / large / (best.get(small).validate / small);
    console.log(`validateSpec per derivation at ${large} ÷ at ${small} = ${vr.toFixed(2)}  (information)`);
  }
}
