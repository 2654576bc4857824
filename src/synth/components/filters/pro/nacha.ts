/**
 * NACHA ACH files: NachaEntryRender makes one 94-character entry detail (type 6) record from its
 * inputs; NachaFileAssembler wraps `count` entries in a file header, a batch header and control,
 * a file control, and filler lines of `9`s up to a multiple of ten records. Neither draws.
 */
import { Row } from '../../../engine/row.js';
import { SynthError } from '../../../errors.js';
import type { BuildContext, ComponentImpl } from '../../component.js';
import { checkColumns } from '../../component.js';
import { byRole, filterNode, proImpl, singleInput } from '../../pro-nodes.js';

/** Every NACHA record is this long. */
export const RECORD_LENGTH = 94;
/** Records per block; the file is filled with `9` lines up to a whole block. */
export const BLOCKING_FACTOR = 10;

/** Left-justified, space-filled, cut to width (alphanumeric fields). */
export function alpha(text: string, width: number): string {
  return text.slice(0, width).padEnd(width, ' ');
}

/** Right-justified, zero-filled, keeping the low-order digits (numeric fields). */
export function numeric(value: string | number, width: number): string {
  const s = String(value);
  return s.length > width ? s.slice(s.length - width) : s.padStart(width, '0');
}

const DEBIT_CODES = new Set(['27', '37']);

/**
 * The file header's Immediate Origin (positions 14-23) in the NACHA Operating Rules' layout for
 * the field, `bTTTTAAAAC`: a blank, then nine digits. `companyId` fills the nine positions as a
 * numeric field, right-justified and zero-filled; a ten-character identifier (the `1NNNNNNNNN`
 * company form the batch header carries) keeps its first nine, as the widely used ACH writers do
 * (moov-io/ach's `" " + stringField(origin, 9)`). The product puts a ten-digit identifier here
 * differently from "as it is" (issue 40); this rule is our derivation, see docs/synth-draws.md.
 * The batch header's Company Identification keeps all ten, left-justified.
 */
export function immediateOrigin(companyId: string): string {
  const id = companyId.trim();
  return ' ' + (id.length > 9 ? id.slice(0, 9) : id.padStart(9, '0'));
}

function fail(ctx: BuildContext, message: string): never {
  throw new SynthError('SYNTH_RUNTIME', `${ctx.type} "${ctx.name}": ${message}`);
}

/** Digits of a cell that may have been read as a double. */
function digitText(row: Row, i: number): string {
  const v = row.value(i);
  return typeof v === 'number' ? (Number.isFinite(v) ? BigInt(Math.trunc(v)).toString() : '') : v.trim();
}

export const NACHA_FILTERS: ComponentImpl[] = [
  proImpl('NachaEntryRender', (ctx) => {
    const [routing, account, amount, name, id, trace] = byRole(
      ctx,
      [['routing'], ['account'], ['amount'], ['name'], ['id'], ['trace']],
      4,
    );
    const code = ctx.params.text('transactionCode')!;
    const addenda = ctx.params.int('addenda');
    if (addenda !== 0 && addenda !== 1) ctx.params.reject('addenda must be 0 or 1');
    const rows = [routing, account, amount, name, id, trace].map(
      (n) => new Row(Math.max(1, n?.dimension ?? 1)),
    );
    let sequence = 0;
    return filterNode(ctx, 1, (out, offset) => {
      const nodes = [routing, account, amount, name, id, trace];
      nodes.forEach((n, i) => n?.next(rows[i]!, 0));
      const aba = digitText(rows[0]!, 0).padStart(9, '0');
      if (!/^\d{9}$/.test(aba)) fail(ctx, `routing "${aba}" is not 9 digits`);
      const acct = digitText(rows[1]!, 0);
      const dollars = rows[2]!.num(0);
      if (!(dollars >= 0)) fail(ctx, `amount ${String(rows[2]!.value(0))} is not a non-negative number`);
      const cents = Math.round(dollars * 100);
      if (cents > 9_999_999_999) fail(ctx, `amount ${dollars} does not fit 10 digits of cents`);
      sequence++;
      const traceText = trace === undefined ? numeric(sequence, 15) : numeric(digitText(rows[5]!, 0), 15);
      const record =
        '6' +
        code +
        aba.slice(0, 8) +
        aba[8] +
        alpha(acct, 17) +
        numeric(cents, 10) +
        alpha(id === undefined ? '' : String(rows[4]!.value(0)), 15) +
        alpha(String(rows[3]!.value(0)).toUpperCase(), 22) +
        '  ' +
        String(addenda) +
        traceText;
      out.setText(offset, record);
    });
  }),
  proImpl('NachaFileAssembler', (ctx) => {
    const input = singleInput(ctx);
    const p = (name: string): string => ctx.params.text(name)!;
    const count = ctx.params.int('count');
    if (count < 1) ctx.params.reject('count must be >= 1');
    // the whole file is one value of count records
    checkColumns(ctx, count, 'count (entries per file)');
    const companyId = p('companyId');
    if (companyId.length > 10) ctx.params.reject(`companyId "${companyId}" is longer than 10 characters`);
    const odfi = p('originatingDfi');
    if (!/^\d{8}$/.test(odfi)) ctx.params.reject(`originatingDfi "${odfi}" is not 8 digits`);
    const dest = p('destinationRouting');
    if (!/^\d{9}$/.test(dest)) ctx.params.reject(`destinationRouting "${dest}" is not 9 digits`);
    for (const [k, re] of [
      ['fileCreationDate', /^\d{6}$/],
      ['effectiveEntryDate', /^\d{6}$/],
      ['fileCreationTime', /^\d{4}$/],
      ['serviceClassCode', /^\d{3}$/],
    ] as const)
      if (!re.test(p(k))) ctx.params.reject(`${k} "${p(k)}" has the wrong shape`);
    const renumber = ctx.params.bool('renumberTraces');
    const scratch = new Row(input.dimension);
    const batch = '0000001';
    return filterNode(ctx, 1, (out, offset) => {
      const records: string[] = [];
      records.push(
        '101 ' +
          dest +
          immediateOrigin(companyId) +
          p('fileCreationDate') +
          p('fileCreationTime') +
          'A094101' +
          alpha(p('destinationName'), 23) +
          alpha(p('originName'), 23) +
          alpha('', 8),
      );
      records.push(
        '5' +
          p('serviceClassCode') +
          alpha(p('companyName'), 16) +
          alpha('', 20) +
          alpha(p('companyId'), 10) +
          alpha(p('standardEntryClass'), 3) +
          alpha(p('companyEntryDescription'), 10) +
          alpha('', 6) +
          p('effectiveEntryDate') +
          alpha('', 3) +
          '1' +
          odfi +
          batch,
      );
      let hash = 0;
      let debit = 0;
      let credit = 0;
      let entryAndAddenda = 0;
      for (let i = 1; i <= count; i++) {
        input.next(scratch, 0);
        let entry = String(scratch.value(0));
        if (entry.length !== RECORD_LENGTH || entry[0] !== '6')
          fail(ctx, `input record ${i} is not a 94-character entry detail record`);
        if (renumber) entry = entry.slice(0, 79) + odfi + numeric(i, 7);
        records.push(entry);
        entryAndAddenda++;
        hash += Number(entry.slice(3, 11));
        const cents = Number(entry.slice(29, 39));
        if (DEBIT_CODES.has(entry.slice(1, 3))) debit += cents;
        else credit += cents;
        if (entry[78] === '1') {
          records.push('705' + alpha('', 80) + '0001' + entry.slice(87, 94));
          entryAndAddenda++;
        }
      }
      const hashText = numeric(hash, 10);
      records.push(
        '8' +
          p('serviceClassCode') +
          numeric(entryAndAddenda, 6) +
          hashText +
          numeric(debit, 12) +
          numeric(credit, 12) +
          alpha(p('companyId'), 10) +
          alpha('', 19) +
          alpha('', 6) +
          odfi +
          batch,
      );
      const total = records.length + 1;
      const blocks = Math.ceil(total / BLOCKING_FACTOR);
      records.push(
        '9' +
          numeric(1, 6) +
          numeric(blocks, 6) +
          numeric(entryAndAddenda, 8) +
          hashText +
          numeric(debit, 12) +
          numeric(credit, 12) +
          alpha('', 39),
      );
      while (records.length % BLOCKING_FACTOR !== 0) records.push('9'.repeat(RECORD_LENGTH));
      // The file ends with a newline, so raw output leaves a blank last line (§8.2).
      out.setText(offset, records.join('\n') + '\n');
    });
  }),
];
