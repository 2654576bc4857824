/**
 * Identifier and name filters over table values: IBAN, ISBN, MACAddress, VIN (draw orders verified
 * against the recordings), CompanyName (joiner draw verified), DomainName, UserAgent (our choice).
 */
import { Row } from '../../../engine/row.js';
import { SynthError } from '../../../errors.js';
import type { BuildContext, ComponentImpl } from '../../component.js';
import { ean13CheckDigit, ibanCheckDigits, vinCheckCharacter } from '../../check-digits.js';
import { entryOf, filterNode, proImpl, singleInput } from '../../pro-nodes.js';
import { digits } from '../../generators/pro/identifiers.js';
import type { RandomSource } from '../../../random/random-source.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ALNUM = '0123456789' + LETTERS;

/** BBAN layouts: n = digit, L = letter, A = letter or digit, each one draw (verified). */
export const IBAN_LAYOUTS: Readonly<Record<string, string>> = {
  DE: 'n'.repeat(18),
  GB: 'LLLL' + 'n'.repeat(14),
  FR: 'n'.repeat(10) + 'A'.repeat(11) + 'nn',
  ES: 'n'.repeat(20),
  IT: 'L' + 'n'.repeat(10) + 'A'.repeat(12),
  NL: 'LLLL' + 'n'.repeat(10),
};

/** VIN characters (no I, O, Q) and the 30 model-year codes. */
export const VIN_ALPHABET = '0123456789ABCDEFGHJKLMNPRSTUVWXYZ';
export const VIN_YEARS = 'ABCDEFGHJKLMNPRSTVWXY123456789';

/** Browser user-agent templates; `{v}` is Safari's drawn point release. */
export const USER_AGENTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  chrome: {
    windows:
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    macos:
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    linux:
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    android:
      'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
    ios: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1',
  },
  firefox: {
    windows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0',
    macos: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:125.0) Gecko/20100101 Firefox/125.0',
    linux: 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
    android: 'Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0',
    ios: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/125.0 Mobile/15E148 Safari/605.1.15',
  },
  safari: {
    macos:
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.{v} Safari/605.1.15',
    ios: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_{v} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.{v} Mobile/15E148 Safari/604.1',
  },
  edge: {
    windows:
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0',
    macos:
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0',
  },
};

/** Operating-system spellings a table may use, mapped to our keys. */
function osKey(os: string): string {
  const k = os.toLowerCase().replace(/[^a-z]/g, '');
  if (k.startsWith('win')) return 'windows';
  if (k.startsWith('mac') || k === 'osx') return 'macos';
  if (k.startsWith('iphone') || k.startsWith('ipad') || k === 'ios') return 'ios';
  return k;
}

/** A one-column text filter over the first `need` input columns. */
function textFilter(
  ctx: BuildContext,
  need: number,
  make: (row: Row, rng: RandomSource) => string,
): ReturnType<ComponentImpl['create']> {
  const input = singleInput(ctx);
  if (input.dimension < need) ctx.params.reject(`the input needs at least ${need} column(s)`);
  const scratch = new Row(input.dimension);
  const { rng } = ctx;
  return filterNode(ctx, 1, (out, offset) => {
    input.next(scratch, 0);
    out.setText(offset, make(scratch, rng));
  });
}

function fail(ctx: BuildContext, message: string): never {
  throw new SynthError('SYNTH_RUNTIME', `${ctx.type} "${ctx.name}": ${message}`);
}

const cell = (row: Row, i: number): string => {
  const v = row.value(i);
  return typeof v === 'number' && Number.isInteger(v) ? String(v) : String(v).trim();
};

const capitalise = (w: string): string => w.charAt(0).toUpperCase() + w.slice(1);

export const IDENTIFIER_FILTERS: ComponentImpl[] = [
  proImpl('IBAN', (ctx) =>
    textFilter(ctx, 1, (row, rng) => {
      const country = cell(row, 0).toUpperCase();
      const layout =
        entryOf(IBAN_LAYOUTS, country) ??
        fail(ctx, `no IBAN layout for country "${country}" (DE, GB, FR, ES, IT, NL)`);
      let bban = '';
      for (const t of layout)
        bban +=
          t === 'n'
            ? rng.nextIntBetween(0, 10)
            : t === 'L'
              ? LETTERS[rng.nextIntBetween(0, 26)]
              : ALNUM[rng.nextIntBetween(0, 36)];
      return country + ibanCheckDigits(country, bban) + bban;
    }),
  ),
  proImpl('ISBN', (ctx) =>
    textFilter(ctx, 1, (row, rng) => {
      const group = cell(row, 0);
      if (!/^\d$/.test(group)) fail(ctx, `group "${group}" is not a single digit`);
      const first12 = '978' + group + digits(rng, 8);
      return first12 + ean13CheckDigit(first12);
    }),
  ),
  proImpl('MACAddress', (ctx) =>
    textFilter(ctx, 1, (row, rng) => {
      const oui = cell(row, 0).toUpperCase().replace(/-/g, ':');
      if (!/^[0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{2}$/.test(oui)) fail(ctx, `OUI "${oui}" is not XX:XX:XX`);
      let mac = oui;
      for (let i = 0; i < 3; i++)
        mac += ':' + rng.nextIntBetween(0, 256).toString(16).toUpperCase().padStart(2, '0');
      return mac;
    }),
  ),
  proImpl('VIN', (ctx) =>
    textFilter(ctx, 1, (row, rng) => {
      const wmi = cell(row, 0).toUpperCase();
      if (!/^[0-9A-HJ-NPR-Z]{3}$/.test(wmi)) fail(ctx, `WMI "${wmi}" is not 3 VIN characters`);
      let vds = '';
      for (let i = 0; i < 5; i++) vds += VIN_ALPHABET[rng.nextIntBetween(0, 33)];
      const year = VIN_YEARS[rng.nextIntBetween(0, 30)]!;
      const plant = VIN_ALPHABET[rng.nextIntBetween(0, 33)]!;
      const vin = wmi + vds + '0' + year + plant + digits(rng, 6);
      return vin.slice(0, 8) + vinCheckCharacter(vin) + vin.slice(9);
    }),
  ),
  proImpl('CompanyName', (ctx) =>
    textFilter(ctx, 3, (row, rng) => {
      const joiner = rng.nextIntBetween(0, 2) === 1 ? ' & ' : ' ';
      return `${capitalise(cell(row, 0))}${joiner}${capitalise(cell(row, 1))} ${cell(row, 2)}`;
    }),
  ),
  proImpl('DomainName', (ctx) =>
    textFilter(ctx, 2, (row) => {
      const clean = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');
      const word = clean(cell(row, 0));
      const tld = clean(cell(row, 1));
      if (word === '' || tld === '') fail(ctx, `"${cell(row, 0)}.${cell(row, 1)}" has no usable letters`);
      return `${word}.${tld}`;
    }),
  ),
  proImpl('UserAgent', (ctx) =>
    textFilter(ctx, 2, (row, rng) => {
      const browser = cell(row, 0).toLowerCase();
      const os = osKey(cell(row, 1));
      const forBrowser = entryOf(USER_AGENTS, browser) ?? fail(ctx, `unknown browser "${cell(row, 0)}"`);
      const template =
        entryOf(forBrowser, os) ?? fail(ctx, `no ${cell(row, 0)} user agent for "${cell(row, 1)}"`);
      return template.includes('{v}')
        ? template.replaceAll('{v}', String(rng.nextIntBetween(0, 7)))
        : template;
    }),
  ),
];
