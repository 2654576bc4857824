/**
 * ServiceCall (§4.4, §9.3): rows from an allowlisted HTTP service. Our design, since the engine
 * pulls synchronously: during the load phase the service is called in rounds (one GET each, at
 * most `maxRounds`, each within `timeoutMs`) until a round returns no rows or the same body as
 * the round before; the rows collected are the node's table. Without an input the rows are
 * emitted in order, starting over at the end. With an input, the input is pulled once per
 * observation (so its draws stay in order) and its first value, truncated, picks row
 * `value mod rows`. A response is JSON (an array of rows, of objects, or of scalars; or an
 * object with a `rows` or `data` array) or plain text (one row per line, comma-separated).
 */
import { refuseAccess, serviceUrlRefusal } from '../../access/urls.js';
import type { Row, RuntimeNode } from '../../engine/row.js';
import { DOUBLE, Row as RowBuffer, STRING } from '../../engine/row.js';
import { SynthError, plainMessage } from '../../errors.js';
import type { ServicePort } from '../../access/ports.js';
import type { SynthLimits } from '../../limits.js';
import { overLimit } from '../../limits.js';
import type { ComponentImpl, LoadContext } from '../component.js';
import { checkColumns, descriptorOf } from '../component.js';
import { parseDelimited } from './flat-file.js';

type Output = 'numeric' | 'string';

function outputsOf(text: string | undefined): Output[] | undefined {
  const parts = (text ?? '').split(/[\s,;]+/).filter((s) => s !== '');
  const out: Output[] = [];
  for (const p of parts) {
    const t = p.toLowerCase();
    if (t === 'numeric' || t === 'number' || t === 'double' || t === 'int') out.push('numeric');
    else if (t === 'string' || t === 'text') out.push('string');
    else return undefined;
  }
  return out.length === 0 ? undefined : out;
}

/** `Name=Value;Name=Value` → headers. */
export function parseHeaders(text: string | undefined): Record<string, string> | string {
  const headers: Record<string, string> = {};
  for (const part of (text ?? '').split(';')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) return `header "${part}" is not Name=Value`;
    const name = part.slice(0, eq).trim();
    if (!/^[!#$%&'*+.^`|~\w-]+$/.test(name)) return `header name "${name}" is not a token`;
    if (name === '__proto__') return 'header name "__proto__" is not allowed';
    headers[name] = part.slice(eq + 1).trim();
  }
  return headers;
}

function cellsOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === 'object') return Object.values(value);
  return [value];
}

/**
 * Rows of one response body: JSON, or else comma-separated text read like a FlatFile table
 * (csv-parse: quoted cells, `#` comments).
 * @param source names the response in a load error
 */
export function responseRows(body: string, source = 'the response'): unknown[][] {
  const text = body.trim();
  if (text === '') return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return parseDelimited(text, ',', source);
  }
  if (json !== null && typeof json === 'object' && !Array.isArray(json)) {
    const o = json as Record<string, unknown>;
    const inner = o.rows ?? o.data;
    if (Array.isArray(inner)) json = inner;
  }
  return Array.isArray(json) ? json.map(cellsOf) : [cellsOf(json)];
}

/**
 * The checks run at once (so the synchronous load reports them too), then the calls, awaited by
 * the asynchronous load phase.
 */
function load(ctx: LoadContext): Promise<unknown[][]> {
  const p = ctx.params;
  const what = `ServiceCall "${ctx.name}"`;
  const url = p.text('url') ?? '';
  // the caps are static: a model asking for more is refused before any policy check or call
  const timeoutMs = p.int('timeoutMs');
  const maxRounds = p.int('maxRounds');
  if (timeoutMs <= 0 || maxRounds <= 0)
    throw new SynthError('SYNTH_LOAD', `${what}: timeoutMs and maxRounds must be positive`);
  const { limits } = ctx;
  if (timeoutMs > limits.serviceCallMaxTimeoutMs)
    throw new SynthError(
      'SYNTH_LOAD',
      `${what}: ${overLimit('timeoutMs', timeoutMs, 'serviceCallMaxTimeoutMs', limits)}`,
    );
  if (maxRounds > limits.serviceCallMaxRounds)
    throw new SynthError(
      'SYNTH_LOAD',
      `${what}: ${overLimit('maxRounds', maxRounds, 'serviceCallMaxRounds', limits)}`,
    );
  const { serviceUrlAllowlist } = ctx.access.allowlists;
  refuseAccess(what, serviceUrlRefusal(url, serviceUrlAllowlist));
  const headers = parseHeaders(p.text('headers'));
  if (typeof headers === 'string') throw new SynthError('SYNTH_LOAD', `${what}: ${headers}`);
  const port = ctx.access.ports.service;
  if (port === undefined)
    throw new SynthError('SYNTH_LOAD', `${what}: no service port was given to this run`);
  if (!ctx.async)
    throw new SynthError(
      'SYNTH_LOAD',
      `${what}: services are called in the asynchronous load phase (loadSynthModel)`,
    );
  return callRounds(what, port, { url, headers, timeoutMs, maxRounds }, serviceUrlAllowlist, limits);
}

/** Calls the service round by round until a round adds nothing, within the budgets. */
async function callRounds(
  what: string,
  port: ServicePort,
  call: { url: string; headers: Record<string, string>; timeoutMs: number; maxRounds: number },
  serviceUrlAllowlist: readonly string[],
  limits: SynthLimits,
): Promise<unknown[][]> {
  const { url, headers, timeoutMs, maxRounds } = call;
  const rows: unknown[][] = [];
  let previous: string | undefined;
  let collected = 0;
  for (let round = 0; round < maxRounds; round++) {
    let body: string;
    try {
      body = await port.fetch({
        url,
        headers,
        timeoutMs,
        round,
        allowRedirect: (to) => serviceUrlRefusal(to, serviceUrlAllowlist) === undefined,
      });
    } catch (err) {
      // adapters fail with a plain Error in their own words; anything else is not passed on
      const why = plainMessage(err, 'the call failed unexpectedly');
      throw new SynthError('SYNTH_LOAD', `${what}: round ${round + 1}: ${why}`);
    }
    collected += body.length;
    if (collected > limits.serviceCallMaxChars)
      throw new SynthError(
        'SYNTH_LOAD',
        `${what}: round ${round + 1}: ${overLimit('the response text (characters)', collected, 'serviceCallMaxChars', limits)}`,
      );
    const got = responseRows(body, `${what}: round ${round + 1}: the response`);
    if (got.length === 0 || body === previous) break;
    for (const r of got) rows.push(r);
    previous = body;
  }
  return rows;
}

export const SERVICE_CALL: ComponentImpl = {
  descriptor: descriptorOf('ServiceCall'),
  inputAttributes: [],
  load,
  create(ctx): RuntimeNode {
    const p = ctx.params;
    const outputs = outputsOf(p.text('outputs'));
    if (outputs === undefined)
      return p.reject(`outputs "${p.text('outputs')}" must list numeric or string per column`);
    if (ctx.inputs.length > 1) p.reject('takes at most one input');
    checkColumns(ctx, outputs.length, 'the output count');
    const raw = ctx.outside as unknown[][] | undefined;
    if (raw === undefined) return p.reject('the service was not called (no load phase ran)');
    if (raw.length === 0) p.reject('the service returned no rows');
    const dimension = outputs.length;
    const nums: number[][] = [];
    const strs: string[][] = [];
    raw.forEach((r, i) => {
      if (r.length < dimension)
        p.reject(`row ${i + 1} has ${r.length} values, outputs asks for ${dimension}`);
      const n: number[] = [];
      const s: string[] = [];
      outputs.forEach((o, j) => {
        const v = r[j];
        if (o === 'numeric') {
          const x = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
          if (Number.isNaN(x)) p.reject(`row ${i + 1} column ${j}: "${String(v)}" is not numeric`);
          n.push(x);
          s.push('');
        } else {
          n.push(NaN);
          s.push(v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));
        }
      });
      nums.push(n);
      strs.push(s);
    });
    const input = ctx.inputs[0];
    const keyRow = new RowBuffer(input?.dimension ?? 0);
    let i = 0;
    const count = raw.length;
    const emit = (k: number, out: Row, offset: number): void => {
      for (let j = 0; j < dimension; j++) {
        const numeric = outputs[j] === 'numeric';
        out.kinds[offset + j] = numeric ? DOUBLE : STRING;
        out.nums[offset + j] = nums[k]![j]!;
        if (!numeric) out.strs[offset + j] = strs[k]![j]!;
      }
    };
    return {
      name: ctx.name,
      type: ctx.type,
      dimension,
      synchronous: input?.synchronous ?? false,
      next(out: Row, offset: number): void {
        if (input === undefined) {
          emit(i, out, offset);
          i = (i + 1) % count;
          return;
        }
        // The input's first value picks the row.
        input.next(keyRow, 0);
        const key = Math.trunc(keyRow.num(0));
        emit(Number.isFinite(key) ? ((key % count) + count) % count : 0, out, offset);
      },
    };
  },
};
