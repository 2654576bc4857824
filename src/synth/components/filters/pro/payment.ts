/** CreditCard (§3.3, verified draw order): BIN prefix from the input, random digits, Luhn digit. */
import { Row } from '../../../engine/row.js';
import { SynthError } from '../../../errors.js';
import type { ComponentImpl } from '../../component.js';
import { luhnCheckDigit } from '../../check-digits.js';
import { composite, entryOf, filterNode, proImpl, singleInput } from '../../pro-nodes.js';
import { nodeTemplate } from '../../templates.js';
import { digits } from '../../generators/pro/identifiers.js';

export const CARD_FIELDS = ['network', 'number', 'numberGrouped', 'last4'];

/** Card numbers the networks publish for testing (fictionalOnly), by lower-case network name. */
export const TEST_CARDS: Readonly<Record<string, readonly string[]>> = {
  visa: ['4111111111111111', '4012888888881881'],
  mastercard: ['5555555555554444', '5105105105105100'],
  amex: ['378282246310005', '371449635398431'],
  discover: ['6011111111111117', '6011000990139424'],
};

/** Groups of four from the left (`4-4-4-4`, Amex `4-4-4-3`), separated by spaces. */
export function groupCardNumber(number: string): string {
  return number.replace(/(.{4})(?=.)/g, '$1 ');
}

/** The integer text of a cell that may have been read as a double (`4.0` -> `4`). */
function integerText(v: number | string): string {
  return typeof v === 'number' ? String(Math.trunc(v)) : v.trim();
}

export const CREDIT_CARD: ComponentImpl = proImpl('CreditCard', (ctx) => {
  const input = singleInput(ctx);
  if (input.dimension < 3) ctx.params.reject('the input needs network, binPrefix and length columns');
  const fictional = ctx.params.bool('fictionalOnly');
  const template = nodeTemplate(ctx, 'creditcard', CARD_FIELDS, '{numberGrouped}');
  const scratch = new Row(input.dimension);
  const { rng } = ctx;
  const allTests = Object.values(TEST_CARDS).flat();
  return filterNode(ctx, 1, (out, offset) => {
    input.next(scratch, 0);
    const network = String(scratch.value(0)).trim();
    let number: string;
    if (fictional) {
      const list = entryOf(TEST_CARDS, network.toLowerCase().replace(/[^a-z]/g, '')) ?? allTests;
      number = list[rng.nextIntBetween(0, list.length)]!;
    } else {
      const prefix = integerText(scratch.value(1));
      const length = Math.trunc(scratch.num(2));
      if (!/^\d+$/.test(prefix) || !(length > prefix.length && length <= 19))
        throw new SynthError(
          'SYNTH_RUNTIME',
          `CreditCard "${ctx.name}": prefix "${prefix}" and length ${String(scratch.value(2))} do not make a card number`,
        );
      const body = prefix + digits(rng, length - prefix.length - 1);
      number = body + luhnCheckDigit(body);
    }
    const fields = { network, number, numberGrouped: groupCardNumber(number), last4: number.slice(-4) };
    out.setComposite(
      offset,
      composite(
        'CreditCard',
        fields,
        template((f) => fields[f as keyof typeof fields]),
      ),
    );
  });
});
