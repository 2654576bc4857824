/**
 * Network address generators. IPAddress's draw order (four octets, redraw all when the address is
 * special) is verified; the fictional modes and IPv6 are our choice (docs/synth-draws.md).
 */
import type { ComponentImpl } from '../../component.js';
import { proImpl, textNode } from '../../pro-nodes.js';

/** IANA special-purpose IPv4 blocks (plus multicast and the reserved 240/4) as [base, prefix]. */
const SPECIAL_V4: readonly [number, number, number, number, number][] = [
  [0, 0, 0, 0, 8],
  [10, 0, 0, 0, 8],
  [100, 64, 0, 0, 10],
  [127, 0, 0, 0, 8],
  [169, 254, 0, 0, 16],
  [172, 16, 0, 0, 12],
  [192, 0, 0, 0, 24],
  [192, 0, 2, 0, 24],
  [192, 31, 196, 0, 24],
  [192, 52, 193, 0, 24],
  [192, 88, 99, 0, 24],
  [192, 168, 0, 0, 16],
  [192, 175, 48, 0, 24],
  [198, 18, 0, 0, 15],
  [198, 51, 100, 0, 24],
  [203, 0, 113, 0, 24],
  [224, 0, 0, 0, 4],
  [240, 0, 0, 0, 4],
];

const SPECIAL_V4_MASKS = SPECIAL_V4.map(([a, b, c, d, bits]) => {
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return { base: (((a << 24) | (b << 16) | (c << 8) | d) & mask) >>> 0, mask };
});

/** True when the address lies in an IANA special-purpose block. */
export function isSpecialIPv4(octets: readonly number[]): boolean {
  const v = ((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0;
  return SPECIAL_V4_MASKS.some(({ base, mask }) => (v & mask) >>> 0 === base);
}

/** The RFC 5737 documentation blocks. */
const DOC_V4 = ['192.0.2', '198.51.100', '203.0.113'];

/** IPv6 special blocks as [first group, second group, prefix bits] (IANA registry, multicast). */
const SPECIAL_V6: readonly [number, number, number][] = [
  [0x0000, 0, 8], // ::/8 holds unspecified, loopback, IPv4-mapped/compatible
  [0x0064, 0xff9b, 32], // NAT64 (64:ff9b::/96 and /48)
  [0x0100, 0, 16], // discard-only 100::/64
  [0x2001, 0x0000, 23], // IETF protocol assignments (includes Teredo, ORCHID)
  [0x2001, 0x0db8, 32], // documentation
  [0x2002, 0, 16], // 6to4
  [0x3fff, 0, 20], // documentation (RFC 9637)
  [0x5f00, 0, 16], // segment routing SIDs
  [0xfc00, 0, 7], // unique local
  [0xfe80, 0, 10], // link-local
  [0xff00, 0, 8], // multicast
];

/** True when the first two groups fall in a special IPv6 block. */
export function isSpecialIPv6(groups: readonly number[]): boolean {
  const head = ((groups[0]! << 16) | groups[1]!) >>> 0;
  return SPECIAL_V6.some(([g0, g1, bits]) => {
    const mask = (~0 << (32 - bits)) >>> 0;
    return (head & mask) >>> 0 === ((((g0 << 16) | g1) >>> 0) & mask) >>> 0;
  });
}

const hex4 = (v: number): string => v.toString(16).padStart(4, '0');

export const NETWORK_GENERATORS: ComponentImpl[] = [
  proImpl('IPAddress', (ctx) => {
    const { rng } = ctx;
    const octets = [0, 0, 0, 0];
    if (ctx.params.bool('fictionalOnly'))
      return textNode(ctx, () => `${DOC_V4[rng.nextIntBetween(0, 3)]!}.${rng.nextIntBetween(0, 256)}`);
    return textNode(ctx, () => {
      do for (let i = 0; i < 4; i++) octets[i] = rng.nextIntBetween(0, 256);
      while (isSpecialIPv4(octets));
      return octets.join('.');
    });
  }),
  proImpl('IPv6Address', (ctx) => {
    const { rng } = ctx;
    const groups = [0, 0, 0, 0, 0, 0, 0, 0];
    const fictional = ctx.params.bool('fictionalOnly');
    return textNode(ctx, () => {
      if (fictional) {
        groups[0] = 0x2001;
        groups[1] = 0x0db8;
        for (let i = 2; i < 8; i++) groups[i] = rng.nextIntBetween(0, 65536);
      } else
        do for (let i = 0; i < 8; i++) groups[i] = rng.nextIntBetween(0, 65536);
        while (isSpecialIPv6(groups));
      return groups.map(hex4).join(':');
    });
  }),
];
