/** Attribute resolution: names and aliases (case-insensitive), defaults, typed parsing, helpful errors. */
import type { ComponentDescriptor, ParameterDescriptor } from '../components/descriptor.js';
import { SynthError } from '../errors.js';
import { nearest } from '../../errors/nearest.js';

const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[dDfF]?$/;

/** Parses a Java-style double literal (also NaN / Infinity); undefined when it is not one. */
export function parseDouble(text: string): number | undefined {
  const t = text.trim();
  if (DECIMAL.test(t)) return Number(t.replace(/[dDfF]$/, ''));
  if (/^[-+]?(NaN|Infinity)$/.test(t)) return Number(t);
  return undefined;
}

/** A node's parameters, resolved against its descriptor. */
export class Params {
  private readonly values = new Map<string, string>();
  private readonly byName: Map<string, ParameterDescriptor>;

  /**
   * @throws SynthError SYNTH_LOAD on an unknown attribute (with the nearest valid name) or a
   *   missing required one
   */
  constructor(
    private readonly desc: ComponentDescriptor,
    readonly nodeName: string,
    attributes: Record<string, string>,
    reserved: readonly string[] = [],
  ) {
    this.byName = new Map(desc.parameters.map((p) => [p.name, p]));
    const lookup = new Map<string, ParameterDescriptor>();
    for (const p of desc.parameters) for (const a of p.aliases) lookup.set(a.toLowerCase(), p);
    // Canonical names are entered last so they win over an alias spelled the same way.
    for (const p of desc.parameters) lookup.set(p.name.toLowerCase(), p);
    const fromCanonical = new Set<string>();
    for (const [key, value] of Object.entries(attributes)) {
      if (reserved.includes(key)) continue;
      const p = lookup.get(key.toLowerCase());
      if (p === undefined) {
        const names = desc.parameters.flatMap((q) => [q.name, ...q.aliases]);
        const hint = nearest(key, names);
        throw new SynthError(
          'SYNTH_LOAD',
          `${desc.name} "${nodeName}": unknown attribute "${key}"` +
            (hint === undefined ? '' : ` (did you mean "${hint}"?)`) +
            `; accepted: ${names.length === 0 ? 'none' : names.join(', ')}`,
        );
      }
      const canonical = key.toLowerCase() === p.name.toLowerCase();
      // The main name's value wins over an alias, whichever is written first.
      if (canonical) {
        this.values.set(p.name, value);
        fromCanonical.add(p.name);
      } else if (!fromCanonical.has(p.name)) this.values.set(p.name, value);
    }
    for (const p of desc.parameters) {
      if (p.required && !this.values.has(p.name)) {
        throw new SynthError(
          'SYNTH_LOAD',
          `${desc.name} "${nodeName}": missing required attribute "${p.name}"`,
        );
      }
      if (p.allowedValues.length > 0 && this.values.has(p.name)) {
        const v = this.values.get(p.name)!;
        const hit = p.allowedValues.find((a) => a.toLowerCase() === v.trim().toLowerCase());
        if (hit === undefined) {
          throw new SynthError(
            'SYNTH_LOAD',
            `${desc.name} "${nodeName}": ${p.name}="${v}" is not one of ${p.allowedValues.join(', ')}`,
          );
        }
        this.values.set(p.name, hit);
      }
    }
  }

  private fail(name: string, what: string): never {
    throw new SynthError('SYNTH_LOAD', `${this.desc.name} "${this.nodeName}": ${name} ${what}`);
  }

  /** Whether the attribute was written (defaults do not count). */
  has(name: string): boolean {
    return this.values.has(name);
  }

  /** Raw text, falling back to the default; undefined when neither exists. */
  text(name: string): string | undefined {
    return this.values.get(name) ?? this.byName.get(name)?.defaultValue ?? undefined;
  }

  double(name: string): number {
    const t = this.text(name);
    if (t === undefined) return this.fail(name, 'is required');
    const v = parseDouble(t);
    return v === undefined ? this.fail(name, `"${t}" is not a number`) : v;
  }

  int(name: string): number {
    const t = this.text(name)?.trim();
    if (t === undefined) return this.fail(name, 'is required');
    if (!/^[-+]?\d+$/.test(t) || Math.abs(Number(t)) > 2147483647) this.fail(name, `"${t}" is not an int`);
    return Number(t);
  }

  bool(name: string): boolean {
    const t = this.text(name)?.trim().toLowerCase();
    if (t === 'true') return true;
    if (t === 'false' || t === undefined) return false;
    return this.fail(name, `"${t}" is not true/false`);
  }

  doubles(name: string): number[] {
    const t = this.text(name);
    if (t === undefined) return [];
    return splitList(t).map((s) => parseDouble(s) ?? this.fail(name, `"${s}" is not a number`));
  }

  ints(name: string): number[] {
    const t = this.text(name);
    if (t === undefined) return [];
    return splitList(t).map((s) =>
      /^[-+]?\d+$/.test(s) ? Number(s) : this.fail(name, `"${s}" is not an int`),
    );
  }

  /** Rows separated by `;` or newlines, values by commas or spaces. */
  matrix(name: string): number[][] {
    const t = this.text(name);
    if (t === undefined) return [];
    return t
      .split(/[;\n]/)
      .map((r) => r.trim())
      .filter((r) => r !== '')
      .map((r) => splitList(r).map((s) => parseDouble(s) ?? this.fail(name, `"${s}" is not a number`)));
  }

  /** A parameter the load phase refuses, such as a bound (the validator's `loadError`). */
  refuse(message: string): never {
    throw new SynthError('SYNTH_LOAD', `${this.desc.name} "${this.nodeName}": ${message}`);
  }

  /** A node-level validation failure (the validator reports it under `failures`). */
  reject(message: string): never {
    throw new SynthError('SYNTH_INVALID', `${this.desc.name} "${this.nodeName}": ${message}`);
  }
}

function splitList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
