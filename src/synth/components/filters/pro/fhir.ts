/**
 * FHIR R4 renderers: Patient, Observation, blood-pressure Observation, and the Bundle around them.
 * Ids come from a shared FhirIdRegistry peer (one sequence for every resource of a bundle); the
 * observations ask the Patient peer for its current reference instead of pulling it again. Numbers
 * print as Java does, so the JSON matches the recorded bundle byte for byte.
 */
import { Row } from '../../../engine/row.js';
import type { RuntimeNode } from '../../../engine/row.js';
import { javaDoubleToString } from '../../../random/java-double.js';
import { SynthError } from '../../../errors.js';
import type { BuildContext, CollaborateTarget, ComponentImpl } from '../../component.js';
import { collaborateValue, collaborator } from '../../component.js';
import { byRole, filterNode, proImpl, singleInput } from '../../pro-nodes.js';

const LOINC = 'http://loinc.org';
const UCUM = 'http://unitsofmeasure.org';
const CATEGORY_SYSTEM = 'http://terminology.hl7.org/CodeSystem/observation-category';

const q = (s: string): string => JSON.stringify(s);

/** A JSON number as Java prints a double (`74.0`, `1.0E7`); non-finite values are refused by FHIR. */
function jsonNumber(ctx: BuildContext, v: number): string {
  if (!Number.isFinite(v))
    throw new SynthError('SYNTH_RUNTIME', `${ctx.type} "${ctx.name}": value ${v} is not finite`);
  return javaDoubleToString(v);
}

/** The next id: from the registry peer when linked, else from the node's own counter. */
function idSource(ctx: BuildContext): () => number {
  const registry = collaborator(ctx, 'idRegistry', false);
  let own = 1;
  if (registry === undefined) return () => own++;
  const read = collaborateValue(registry);
  return () => Number(read());
}

function valueQuantity(
  ctx: BuildContext,
  value: number,
  unit: string | undefined,
  code: string | undefined,
): string {
  let s = `{"value":${jsonNumber(ctx, value)}`;
  if (unit !== undefined) s += `,"unit":${q(unit)}`;
  if (code !== undefined) s += `,"system":${q(UCUM)},"code":${q(code)}`;
  return s + '}';
}

function coding(system: string, code: string, display?: string): string {
  return `{"coding":[{"system":${q(system)},"code":${q(code)}${display === undefined ? '' : `,"display":${q(display)}`}}]}`;
}

/** The common head of an Observation up to its value. */
function observationHead(
  ctx: BuildContext,
  id: string,
  category: string,
  code: string,
  patient: string,
): string {
  return (
    `{"resourceType":"Observation","id":${q(id)},"status":"final","category":[${coding(CATEGORY_SYSTEM, category)}],` +
    `"code":${code},"subject":{"reference":${q(patient)}},"effectiveDateTime":${q(ctx.params.text('effectiveDateTime')!)}`
  );
}

const optional = (ctx: BuildContext, name: string): string | undefined => ctx.params.text(name);

export const FHIR_FILTERS: ComponentImpl[] = [
  proImpl('FhirPatientRender', (ctx): CollaborateTarget => {
    const [person, birthDate] = byRole(ctx, [['person'], ['birthdate']]) as RuntimeNode[];
    const nextId = idSource(ctx);
    const prefix = ctx.params.text('idPrefix')!;
    const p = new Row(person!.dimension);
    const b = new Row(birthDate!.dimension);
    let reference = '';
    const node = filterNode(ctx, 1, (out, offset) => {
      person!.next(p, 0);
      birthDate!.next(b, 0);
      const who = p.composite(0);
      if (who?.type !== 'Person')
        throw new SynthError(
          'SYNTH_RUNTIME',
          `FhirPatientRender "${ctx.name}": the person input must be a Person`,
        );
      const id = `${prefix}-${nextId()}`;
      reference = `Patient/${id}`;
      const gender = (who.field('gender') ?? '').toLowerCase();
      out.setText(
        offset,
        `{"resourceType":"Patient","id":${q(id)},"name":[{"family":${q(who.field('surname') ?? '')},"given":[${q(who.field('givenName') ?? '')}]}]` +
          (gender === '' ? '' : `,"gender":${q(gender)}`) +
          `,"birthDate":${q(String(b.value(0)))}}`,
      );
    });
    // Peers read the reference of the patient rendered most recently; reading never renders.
    return {
      ...node,
      collaborateDimension: 1,
      collaborate: (out, offset) => out.setText(offset, reference),
    };
  }),
  proImpl('FhirObservationRender', (ctx) => {
    const input = singleInput(ctx);
    const patient = collaborateValue(collaborator(ctx, 'patient')!);
    const nextId = idSource(ctx);
    const prefix = ctx.params.text('idPrefix')!;
    const code = coding(LOINC, ctx.params.text('code')!, ctx.params.text('display'));
    const category = ctx.params.text('category')!;
    const unit = optional(ctx, 'unit');
    const unitCode = optional(ctx, 'unitCode');
    const scratch = new Row(input.dimension);
    return filterNode(ctx, 1, (out, offset) => {
      input.next(scratch, 0);
      const id = `${prefix}-${nextId()}`;
      out.setText(
        offset,
        observationHead(ctx, id, category, code, String(patient())) +
          `,"valueQuantity":${valueQuantity(ctx, scratch.num(0), unit, unitCode)}}`,
      );
    });
  }),
  proImpl('FhirBloodPressureRender', (ctx) => {
    const [systolic, diastolic] = byRole(ctx, [['systolic'], ['diastolic']]) as RuntimeNode[];
    const patient = collaborateValue(collaborator(ctx, 'patient')!);
    const nextId = idSource(ctx);
    const prefix = ctx.params.text('idPrefix')!;
    const unit = ctx.params.text('unit')!;
    const unitCode = ctx.params.text('unitCode')!;
    const panel = coding(LOINC, '85354-9', 'Blood pressure panel with all children optional');
    const s = new Row(systolic!.dimension);
    const d = new Row(diastolic!.dimension);
    return filterNode(ctx, 1, (out, offset) => {
      systolic!.next(s, 0);
      diastolic!.next(d, 0);
      const id = `${prefix}-${nextId()}`;
      const component = (loinc: string, display: string, v: number): string =>
        `{"code":${coding(LOINC, loinc, display)},"valueQuantity":${valueQuantity(ctx, v, unit, unitCode)}}`;
      out.setText(
        offset,
        observationHead(ctx, id, 'vital-signs', panel, String(patient())) +
          `,"component":[${component('8480-6', 'Systolic blood pressure', s.num(0))},${component('8462-4', 'Diastolic blood pressure', d.num(0))}]}`,
      );
    });
  }),
  proImpl('FhirBundleAssembler', (ctx) => {
    if (ctx.inputs.length === 0) ctx.params.reject('needs at least one resource input');
    const id = ctx.params.text('id')!;
    const type = ctx.params.text('type')!;
    // trailing slashes cut by a scan: /\/+$/ is quadratic on a long run of slashes in a model's text
    let base = ctx.params.text('baseUrl')!;
    let end = base.length;
    while (end > 0 && base.charCodeAt(end - 1) === 47) end--;
    base = base.slice(0, end);
    const rows = ctx.inputs.map((n) => new Row(n.dimension));
    return filterNode(ctx, 1, (out, offset) => {
      const entries = ctx.inputs.map((n, i) => {
        n.next(rows[i]!, 0);
        const text = String(rows[i]!.value(0));
        let head: { resourceType?: unknown; id?: unknown };
        try {
          head = JSON.parse(text) as typeof head;
        } catch {
          throw new SynthError(
            'SYNTH_RUNTIME',
            `FhirBundleAssembler "${ctx.name}": input "${n.name}" is not a JSON resource`,
          );
        }
        // The resource text is embedded as rendered, so its numbers keep their Java spelling.
        return `{"fullUrl":${q(`${base}/${String(head.resourceType)}/${String(head.id)}`)},"resource":${text}}`;
      });
      out.setText(
        offset,
        `{"resourceType":"Bundle","id":${q(id)},"type":${q(type)},"entry":[${entries.join(',')}]}`,
      );
    });
  }),
];
