/** Extract (composite fields to columns) and Convert (a JSON text to an object composite). */
import { Row } from '../../../engine/row.js';
import { SynthError } from '../../../errors.js';
import type { ComponentImpl } from '../../component.js';
import { composite, filterNode, proImpl, singleInput } from '../../pro-nodes.js';

export const COMPOSITE_FILTERS: ComponentImpl[] = [
  proImpl('Extract', (ctx) => {
    const input = singleInput(ctx);
    const fields = (ctx.params.text('fields') ?? '').split(/[\s,]+/).filter((f) => f !== '');
    if (fields.length === 0) ctx.params.reject('fields must name at least one field');
    const index = ctx.params.int('index');
    if (index < 0 || index >= input.dimension)
      ctx.params.reject(`index ${index} is outside the input's columns`);
    const scratch = new Row(input.dimension);
    const dim = input.dimension - 1 + fields.length;
    return filterNode(ctx, dim, (out, offset) => {
      input.next(scratch, 0);
      let at = offset;
      for (let i = 0; i < index; i++) out.copy(scratch, i, at++);
      const value = scratch.composite(index);
      for (const f of fields) {
        const text =
          value === undefined
            ? f === 'formatted'
              ? String(scratch.value(index))
              : undefined
            : value.field(f);
        if (text === undefined)
          throw new SynthError(
            'SYNTH_RUNTIME',
            `Extract "${ctx.name}": column ${index} ${value === undefined ? 'is not a composite' : `(${value.type}) has no field "${f}"; fields: ${value.fieldNames.join(', ')}, formatted`}`,
          );
        out.setText(at++, text);
      }
      for (let i = index + 1; i < input.dimension; i++) out.copy(scratch, i, at++);
    });
  }),
  proImpl('Convert', (ctx) => {
    const input = singleInput(ctx);
    // No class is loaded: the name labels the object, whose fields are the JSON's top-level keys.
    const className = ctx.params.text('class')!.trim();
    if (!/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(className))
      ctx.params.reject(`class "${className}" is not a class name`);
    const scratch = new Row(input.dimension);
    return filterNode(ctx, 1, (out, offset) => {
      input.next(scratch, 0);
      const text = String(scratch.value(0));
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new SynthError(
          'SYNTH_RUNTIME',
          `Convert "${ctx.name}": input is not JSON: ${text.slice(0, 60)}`,
        );
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new SynthError('SYNTH_RUNTIME', `Convert "${ctx.name}": input is not a JSON object`);
      const fields: Record<string, string> = {};
      for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
        if (k === '__proto__')
          throw new SynthError(
            'SYNTH_RUNTIME',
            `Convert "${ctx.name}": "__proto__" is not allowed as a field name`,
          );
        fields[k] = typeof v === 'string' ? v : JSON.stringify(v);
      }
      out.setComposite(offset, composite(className, fields, JSON.stringify(parsed)));
    });
  }),
];
