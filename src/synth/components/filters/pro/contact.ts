/**
 * Phone and Address. Phone's draws are verified (exchange, subscriber); Address's are verified up to
 * the unit (location, street, number, unit decision, label index, unit number).
 */
import { Row } from '../../../engine/row.js';
import type { RuntimeNode } from '../../../engine/row.js';
import { SynthError } from '../../../errors.js';
import type { BuildContext, ComponentImpl } from '../../component.js';
import { composite, entryOf, filterNode, pad, proImpl, singleInput } from '../../pro-nodes.js';
import { nodeTemplate } from '../../templates.js';

export const PHONE_FIELDS = ['areaCode', 'exchange', 'subscriber'];
export const ADDRESS_FIELDS = [
  'number',
  'street',
  'unit',
  'city',
  'region',
  'postalCode',
  'country',
  'streetLine',
];

/**
 * Unit labels when neither the node nor the formats config names any. The index of the label that
 * the recordings show (`#` for the US, `Apt` for Canada) is verified; the others are our choice.
 */
export const DEFAULT_UNIT_LABELS: Readonly<Record<string, readonly string[]>> = {
  US: ['Apt', 'Suite', 'Unit', '#'],
  CA: ['Suite', 'Unit', '#', 'Apt'],
  'CA.QC': ['bureau', 'unité', 'local', 'app.'],
};

const ADDRESS_TEMPLATES: Readonly<Record<string, string>> = {
  US: '{number} {street}[, {unit}], {city}, {region} {postalCode}',
  CA: '{number} {street}[ {unit}], {city} {region}  {postalCode}',
};

/** The unit labels for a country and region: node attribute, then config, then defaults. */
function unitLabelsFor(ctx: BuildContext, country: string, region: string): readonly string[] {
  const split = (s: string): string[] =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '');
  if (ctx.params.has('unitLabels')) return split(ctx.params.text('unitLabels')!);
  const configured =
    ctx.formats.get(`address.unitLabels.${country}.${region}`) ??
    ctx.formats.get(`address.unitLabels.${country}`) ??
    ctx.formats.get('address.unitLabels');
  if (configured !== undefined && split(configured).length > 0) return split(configured);
  return (
    entryOf(DEFAULT_UNIT_LABELS, `${country}.${region}`) ??
    entryOf(DEFAULT_UNIT_LABELS, country) ??
    DEFAULT_UNIT_LABELS['US']!
  );
}

export const CONTACT_FILTERS: ComponentImpl[] = [
  proImpl('Phone', (ctx) => {
    const input = singleInput(ctx);
    const fictional = ctx.params.bool('fictionalOnly');
    const template = nodeTemplate(ctx, 'phone', PHONE_FIELDS, '({areaCode}) {exchange}-{subscriber}');
    const scratch = new Row(input.dimension);
    const { rng } = ctx;
    return filterNode(ctx, 1, (out, offset) => {
      input.next(scratch, 0);
      const area = Math.trunc(scratch.num(0));
      if (!(area >= 200 && area <= 999))
        throw new SynthError(
          'SYNTH_RUNTIME',
          `Phone "${ctx.name}": area code ${String(scratch.value(0))} is outside 200-999`,
        );
      let exchange: number;
      let subscriber: number;
      if (fictional) {
        exchange = 555;
        subscriber = rng.nextIntBetween(100, 200);
      } else {
        // N11 exchanges (211, 311, ... 911) are service codes, never assigned.
        do exchange = rng.nextIntBetween(200, 1000);
        while (exchange % 100 === 11);
        subscriber = rng.nextIntBetween(0, 10000);
      }
      const fields = { areaCode: pad(area, 3), exchange: pad(exchange, 3), subscriber: pad(subscriber, 4) };
      out.setComposite(
        offset,
        composite(
          'Phone',
          fields,
          template((f) => fields[f as keyof typeof fields]),
        ),
      );
    });
  }),
  proImpl('Address', (ctx) => {
    const roles = ctx.inputAttributes.map((a) => (a['role'] ?? '').trim());
    const at = (role: string, fallback: number): number => {
      const i = roles.findIndex((r) => r.toLowerCase() === role);
      return i >= 0 ? i : roles[fallback] === '' ? fallback : -1;
    };
    const locIndex = at('location', 0);
    const streetIndex = at('street', 1);
    if (locIndex < 0 || ctx.inputs[locIndex] === undefined)
      return ctx.params.reject('needs a location input');
    if (streetIndex < 0 || ctx.inputs[streetIndex] === undefined)
      return ctx.params.reject('needs a street input');
    const location = ctx.inputs[locIndex];
    if (location.dimension < 3)
      ctx.params.reject('the location input needs city, region and postalCode columns');
    const regional = new Map<string, RuntimeNode>();
    roles.forEach((r, i) => {
      if (!r.toLowerCase().startsWith('street.')) {
        if (r !== '' && !['location', 'street'].includes(r.toLowerCase()))
          ctx.params.reject(`unknown input role "${r}"; accepted: location, street, street.<REGION>`);
        return;
      }
      for (const region of r.slice('street.'.length).split(','))
        regional.set(region.trim().toUpperCase(), ctx.inputs[i]!);
    });
    const minNumber = ctx.params.int('minStreetNumber');
    const maxNumber = ctx.params.int('maxStreetNumber');
    if (minNumber > maxNumber) ctx.params.reject('minStreetNumber exceeds maxStreetNumber');
    const unitP = ctx.params.double('unitProbability');
    const defaultCountry = (ctx.params.text('country') ?? 'US').trim().toUpperCase();
    const templates = new Map<string, ReturnType<typeof nodeTemplate>>();
    const templateFor = (country: string): ReturnType<typeof nodeTemplate> => {
      let t = templates.get(country);
      if (t === undefined) {
        t = nodeTemplate(
          ctx,
          'address',
          ADDRESS_FIELDS,
          entryOf(ADDRESS_TEMPLATES, country) ?? ADDRESS_TEMPLATES['US']!,
        );
        templates.set(country, t);
      }
      return t;
    };
    templateFor(defaultCountry); // a bad template fails at set-up
    const loc = new Row(location.dimension);
    const street = new Row(ctx.inputs.reduce((m, n) => Math.max(m, n.dimension), 0));
    const labelCache = new Map<string, readonly string[]>();
    const { rng } = ctx;
    return filterNode(ctx, 1, (out, offset) => {
      location.next(loc, 0);
      const city = String(loc.value(0));
      const region = String(loc.value(1));
      const postalCode = String(loc.value(2));
      const country = location.dimension >= 4 ? String(loc.value(3)).trim().toUpperCase() : defaultCountry;
      // Only the street source for this region is pulled.
      (regional.get(region.toUpperCase()) ?? ctx.inputs[streetIndex]!).next(street, 0);
      const streetName = String(street.value(0));
      const number = rng.nextIntBetween(minNumber, maxNumber + 1);
      let unit = '';
      if (rng.nextDouble() < unitP) {
        const key = `${country}.${region}`;
        let labels = labelCache.get(key);
        if (labels === undefined)
          labelCache.set(key, (labels = unitLabelsFor(ctx, country, region.toUpperCase())));
        const label = labels[rng.nextIntBetween(0, labels.length)]!;
        unit = `${label} ${rng.nextIntBetween(1, 1000)}`;
      }
      const fields = {
        number: String(number),
        street: streetName,
        unit,
        city,
        region,
        postalCode,
        country,
        streetLine: unit === '' ? `${number} ${streetName}` : `${number} ${streetName} ${unit}`,
      };
      const text = templateFor(country)((f) => fields[f as keyof typeof fields]);
      out.setComposite(offset, composite('Address', fields, text));
    });
  }),
];
