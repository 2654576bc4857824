// Regular expressions from models run on RE2: a pattern that would backtrack for hours on
// JavaScript's engine answers at once, ordinary patterns behave as before, and a pattern RE2
// cannot run is refused by the validator with a message saying why.
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression } from '../../src/calc/expression.js';
import { safeRegExp, UnsupportedRegexError } from '../../src/calc/safe-regex.js';
import { checkValue } from '../../src/calc/schema.js';
import { validateSpec } from '../../src/calc/validator.js';
import { live } from './helpers/model.js';

const evaluate = async (text: string): Promise<unknown> => {
  const compiled = compileExpression(text);
  if (!compiled.ok) throw new Error(compiled.message);
  return compiled.expr.evaluate({}, {});
};

// JavaScript's engine needs about 2^28 steps to fail these matches (most of a minute on a small
// machine: without RE2 the test fails on its time limit instead of hanging the run for hours)
const EVIL_INPUT = `${'a'.repeat(28)}!`;

describe('JSONata regex literals', () => {
  it('answers a catastrophic pattern at once instead of hanging the process', async () => {
    expect(await evaluate(`$match("${EVIL_INPUT}", /(a+)+$/)`)).toBeUndefined();
    expect(await evaluate(`$contains("${EVIL_INPUT}", /^(a|aa)+$/)`)).toBe(false);
    expect(await evaluate(`$contains("${'a'.repeat(28)}", /^(a|aa)+$/)`)).toBe(true);
  });

  it('gives the same results as JavaScript’s engine on ordinary patterns', async () => {
    const cases = [
      '$match("xaby-azb", /a(.)/)',
      '$match("Ünïcödé cödé", /ö(d)é/)',
      '$replace("hello world", /o/, "0")',
      '$replace("2026-11-30", /(\\d+)-(\\d+)-(\\d+)/, "$3.$2.$1")',
      '$split("a1b22c", /[0-9]+/)',
      '$contains("ABC", /b/i)',
      '$match("one\\ntwo", /^t\\w+/m)',
      '$replace("a.b.c", /\\./, "", 1)',
      '$match("abc", /x*/)', // both refuse a pattern that matches the empty string (D1004)
    ];
    const outcome = async (run: () => Promise<unknown>) => {
      try {
        // compared as JSON: with a sequence budget JSONata's result arrays carry their own push()
        return { value: JSON.parse(JSON.stringify((await run()) ?? null)) as unknown };
      } catch (err) {
        return { error: (err as { code?: string }).code };
      }
    };
    for (const text of cases) {
      const plain = await outcome(() => jsonata(text).evaluate({}));
      expect({ text, ...(await outcome(() => evaluate(text))) }).toEqual({ text, ...plain });
    }
  });

  it('shares one program per literal, each evaluation keeping its own place in the text', async () => {
    // one literal (inside $f) run twice at once: JSONata evaluates an array's items concurrently,
    // and $replace awaits the replacement function between matches, so the two runs interleave
    const texts = [
      '($f := function($s) { $replace($s, /[0-9]/, function($m) { "<" & $m.match & ">" }) }; [$f("a1b2c3d4"), $f("x9y8z7")])',
      '($f := function($s) { $count($match($s, /[a-z]+/)) }; [$f("ab cd ef"), $f("g h"), $f("ij")])',
      '($f := function($s) { $split($s, /,/) }; [$f("a,b,c"), $f("d,e")])',
    ];
    for (const text of texts) {
      expect({ text, value: await evaluate(text) }).toEqual({
        text,
        value: await jsonata(text).evaluate({}),
      });
    }
    expect(await evaluate(texts[0]!)).toEqual(['a<1>b<2>c<3>d<4>', 'x<9>y<8>z<7>']);
  });

  it('fails the evaluation (not the process) on a backreference or lookaround', async () => {
    await expect(evaluate('$match("abab", /(a)\\1/)')).rejects.toThrow(
      /cannot run on the linear-time regex engine.*backreferences or lookaround/,
    );
    await expect(evaluate('$match("ab", /a(?=b)/)')).rejects.toThrow(/linear-time regex engine/);
  });

  it('a derivation with a catastrophic pattern still commits its cycle', async () => {
    const { runtime } = await live({
      derivations: [{ path: '$.ok', expr: '$contains(code, /^(a+)+$/)' }],
    });
    await runtime.mutate({ '$.code': EVIL_INPUT });
    expect(await runtime.getValue('$.ok')).toBe(false);
  });
});

describe('schema pattern', () => {
  it('checks a catastrophic pattern against a long value at once', () => {
    const schema = { type: 'string', pattern: '(a+)+b' };
    expect(checkValue(schema, EVIL_INPUT, '$.code').map((v) => v.keyword)).toEqual(['pattern']);
    expect(checkValue(schema, 'aaab', '$.code')).toEqual([]);
  });
});

describe('the validator refuses what RE2 cannot run', () => {
  /** A spec whose one string field `code` has `pattern` (if given), plus `extra` sections. */
  const spec = (pattern?: string, extra: Record<string, unknown> = {}) => ({
    id: 'regex',
    version: '1.0.0',
    schema: {
      type: 'object',
      properties: { code: { type: 'string', ...(pattern === undefined ? {} : { pattern }) } },
    },
    ...extra,
  });

  it('a lookahead in a schema pattern', async () => {
    const result = await validateSpec(spec('^(?=.*\\d).+$'));
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([
      expect.objectContaining({
        location: 'schema.properties.code.pattern',
        message: expect.stringMatching(/linear-time regex engine/),
      }),
    ]);
  });

  it('a backreference in an expression’s regex literal', async () => {
    const result = await validateSpec(
      spec(undefined, { derivations: [{ path: '$.twice', expr: '$contains(code, /(\\w)\\1/)' }] }),
    );
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/backreferences or lookaround/) }),
    ]);
  });

  it('a lookbehind in a library function', async () => {
    const result = await validateSpec(
      spec(undefined, {
        library: { define: '( $dollars := function($s){ $match($s, /(?<=\\$)[0-9]+/) }; ["dollars"] )' },
      }),
    );
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/^library regular expression .* linear-time/),
      }),
    ]);
  });

  it('accepts the patterns RE2 runs, catastrophic-looking ones included', async () => {
    const result = await validateSpec(
      spec('^(a+)+$', { derivations: [{ path: '$.digits', expr: '$match(code, /[0-9]+/).match' }] }),
    );
    expect(result.errors).toEqual([]);
  });
});

describe('safeRegExp', () => {
  it('names the pattern and RE2’s reason', () => {
    expect(() => safeRegExp('(?<=a)b')).toThrow(UnsupportedRegexError);
    expect(() => safeRegExp('(?<=a)b')).toThrow(/\/\(\?<=a\)b\//);
    expect(safeRegExp('a(b)', 'g').exec('xab')?.index).toBe(1);
  });
});
