import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { BUILTIN_GUIDANCE_TOPICS, type GuidanceTopic } from '../../src/service/guidance/topics.js';

const EXPECTED_IDS = [
  'amortization_schedule',
  'group_by',
  'date_math',
  'classification',
  'currency_conversion',
  'status_field',
  'rank_percentile',
  'regulated_charge',
  'percentage',
  'unit_conversion',
  'compound_growth',
  'weighted_average',
  'eligibility',
  'proration',
];

/** The bodies of every ```jsonata fenced block in a topic's instructions. */
function snippets(topic: GuidanceTopic): string[] {
  return [...topic.instructions.matchAll(/```jsonata\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
}

/** Evaluates a snippet and drops JSONata's sequence markers, as storing the result as JSON does. */
async function run(expr: string, input: unknown, bindings?: Record<string, unknown>): Promise<unknown> {
  return JSON.parse(JSON.stringify(await jsonata(expr).evaluate(input, bindings)));
}

function topic(id: string): GuidanceTopic {
  const found = BUILTIN_GUIDANCE_TOPICS.find((t) => t.id === id);
  if (!found) throw new Error(`no topic ${id}`);
  return found;
}

describe('built-in domain guidance topics', () => {
  it('lists the fourteen topics in catalogue order', () => {
    expect(BUILTIN_GUIDANCE_TOPICS.map((t) => t.id)).toEqual(EXPECTED_IDS);
  });

  it('gives every topic a unique one-line description', () => {
    const descriptions = BUILTIN_GUIDANCE_TOPICS.map((t) => t.description);
    for (const d of descriptions) {
      expect(d.trim()).not.toBe('');
      expect(d).not.toContain('\n');
    }
    expect(new Set(descriptions).size).toBe(descriptions.length);
  });

  it('keeps every recipe between 5 and 30 lines with at least one snippet', () => {
    for (const t of BUILTIN_GUIDANCE_TOPICS) {
      const lines = t.instructions.split('\n').length;
      expect(lines, t.id).toBeGreaterThanOrEqual(5);
      expect(lines, t.id).toBeLessThanOrEqual(30);
      expect(snippets(t).length, t.id).toBeGreaterThan(0);
    }
  });

  it('has balanced code fences, every block marked jsonata', () => {
    for (const t of BUILTIN_GUIDANCE_TOPICS) {
      const fences = t.instructions.split('\n').filter((l) => l.startsWith('```'));
      expect(fences.length % 2, t.id).toBe(0);
      fences.forEach((f, i) => expect(f, t.id).toBe(i % 2 === 0 ? '```jsonata' : '```'));
    }
  });

  for (const t of BUILTIN_GUIDANCE_TOPICS) {
    it(`${t.id}: every JSONata snippet compiles`, () => {
      for (const s of snippets(t)) expect(() => jsonata(s), s).not.toThrow();
    });
  }

  it('compound_growth uses $power and never a ** operator', () => {
    const text = topic('compound_growth').instructions;
    expect(text).toContain('$power(');
    expect(text).not.toContain('**');
  });

  it('compound_growth computes the worked value it quotes', async () => {
    const [lumpSum] = snippets(topic('compound_growth'));
    const input = { principal: 1000, annualRatePercent: 5, compoundsPerYear: 12, years: 10 };
    expect(await run(lumpSum!, input)).toBe(1647.01);
  });

  it('proration shares add up to the total', async () => {
    const [split] = snippets(topic('proration'));
    expect(await run(split!, { total: 100, parts: 3 })).toEqual([33.33, 33.33, 33.34]);
  });

  it('the amortization schedule closes at zero', async () => {
    const [schedule] = snippets(topic('amortization_schedule'));
    const rows = (await run(schedule!, { principal: 1000, annualRatePercent: 12, years: 1 })) as {
      interest: number;
      closing: number;
    }[];
    expect(rows).toHaveLength(12);
    expect(rows[0]!.interest).toBe(10);
    expect(rows[11]!.closing).toBe(0);
  });

  it('the banded charge taxes each slice at its own rate', async () => {
    const [charge] = snippets(topic('regulated_charge'));
    const bands = [
      { from: 0, upTo: 12570, ratePercent: 0 },
      { from: 12570, upTo: 50270, ratePercent: 20 },
      { from: 50270, upTo: null, ratePercent: 40 },
    ];
    expect(await run(charge!, { income: 60000 }, { const: { bands } })).toBe(11432);
  });
});
