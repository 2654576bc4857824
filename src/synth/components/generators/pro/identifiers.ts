/**
 * US identifier generators: SSN, EIN, NPI, IMEI (draw orders verified against the recorded
 * outputs) and RoutingNumber (our own draw order, docs/synth-draws.md).
 */
import type { ComponentImpl } from '../../component.js';
import { abaCheckDigit, luhnCheckDigit } from '../../check-digits.js';
import { pad, proImpl, textNode } from '../../pro-nodes.js';
import type { RandomSource } from '../../../random/random-source.js';

/** EIN prefixes the IRS assigns: 01-99 without 07-09, 17-19, 28, 29, 49, 69, 70, 78, 79, 89, 96, 97. */
export const EIN_PREFIXES: readonly number[] = Array.from({ length: 99 }, (_, i) => i + 1).filter(
  (p) => ![7, 8, 9, 17, 18, 19, 28, 29, 49, 69, 70, 78, 79, 89, 96, 97].includes(p),
);

/** `count` decimal digits, one `nextInt(0, 10)` each. */
export function digits(rng: RandomSource, count: number): string {
  let s = '';
  for (let i = 0; i < count; i++) s += rng.nextIntBetween(0, 10);
  return s;
}

/** First-two-digit ranges of ABA routing numbers by kind. */
const ABA_RANGES: Record<string, readonly [number, number][]> = {
  government: [[0, 0]],
  district: [[1, 12]],
  thrift: [[21, 32]],
  electronic: [[61, 72]],
  traveler: [[80, 80]],
  unassigned: [
    [13, 20],
    [33, 60],
    [73, 79],
    [81, 99],
  ],
  any: [[0, 99]],
};
ABA_RANGES['assigned'] = [
  ...ABA_RANGES['government']!,
  ...ABA_RANGES['district']!,
  ...ABA_RANGES['thrift']!,
  ...ABA_RANGES['electronic']!,
  ...ABA_RANGES['traveler']!,
];

function expand(ranges: readonly [number, number][]): number[] {
  return ranges.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i));
}

export const IDENTIFIER_GENERATORS: ComponentImpl[] = [
  proImpl('SSN', (ctx) => {
    const { rng } = ctx;
    const fictional = ctx.params.bool('fictionalOnly');
    return textNode(ctx, () => {
      let area: number;
      if (fictional) area = rng.nextIntBetween(900, 1000);
      else
        do area = rng.nextIntBetween(1, 900);
        while (area === 666);
      const group = rng.nextIntBetween(1, 100);
      const serial = rng.nextIntBetween(1, 10000);
      return `${pad(area, 3)}-${pad(group, 2)}-${pad(serial, 4)}`;
    });
  }),
  proImpl('EIN', (ctx) => {
    const { rng } = ctx;
    return textNode(ctx, () => {
      const prefix = EIN_PREFIXES[rng.nextIntBetween(0, EIN_PREFIXES.length)]!;
      return `${pad(prefix, 2)}-${pad(rng.nextIntBetween(0, 10_000_000), 7)}`;
    });
  }),
  proImpl('NPI', (ctx) => {
    const { rng } = ctx;
    const type = ctx.params.text('type');
    return textNode(ctx, () => {
      const first = type === 'individual' ? 1 : type === 'organization' ? 2 : rng.nextIntBetween(1, 3);
      const body = first + digits(rng, 8);
      // CMS: the Luhn digit is computed over the card-issuer prefix 80840 and the 9 digits.
      return body + luhnCheckDigit('80840' + body);
    });
  }),
  proImpl('IMEI', (ctx) => {
    const { rng } = ctx;
    return textNode(ctx, () => {
      const body = digits(rng, 14);
      return body + luhnCheckDigit(body);
    });
  }),
  proImpl('RoutingNumber', (ctx) => {
    const { rng } = ctx;
    const prefixes = expand(ABA_RANGES[ctx.params.text('prefix') ?? 'assigned']!);
    return textNode(ctx, () => {
      const first8 = pad(prefixes[rng.nextIntBetween(0, prefixes.length)]!, 2) + digits(rng, 6);
      return first8 + abaCheckDigit(first8);
    });
  }),
];
