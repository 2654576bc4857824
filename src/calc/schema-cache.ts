/**
 * Compiled JSON Schemas, kept by content and bounded.
 *
 * Ajv keeps every schema it compiles (its cache, and the generated code's shared scope), so one
 * long-lived instance that compiles a schema per request grows without end, even for the same
 * schema sent twice. Here each cached entry owns its Ajv instance: an entry pushed out of the
 * least-recently-used bound takes everything it compiled with it.
 */
import { createHash } from 'node:crypto';
import Ajv2020Module from 'ajv/dist/2020.js';
import AjvFormatsModule from 'ajv-formats';
import { canonicalJson } from './json.js';
import { safeRegExp } from './safe-regex.js';

type Ajv2020 = InstanceType<typeof Ajv2020Module.default>;
const Ajv2020Ctor = Ajv2020Module.default;
const addFormats = AjvFormatsModule.default;

/** A least-recently-used map: `get` refreshes an entry; `set` past the bound drops the oldest. */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();
  constructor(readonly capacity: number) {}

  get(key: K): V | undefined {
    const v = this.entries.get(key);
    if (v === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, v);
    return v;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}

/** A stable key for a JSON value: the SHA-256 of its canonical text (key order does not matter). */
export function contentKey(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('base64url');
}

/**
 * Regular expressions in schemas run on RE2 (linear time), as everywhere else in the engine. Ajv
 * calls this with `new`-less syntax and reads `.test`; RE2 answers both.
 */
function re2ForAjv(pattern: string, flags: string): RegExp {
  return safeRegExp(pattern, flags);
}
re2ForAjv.code = 'safeRegExp';

/**
 * A fresh JSON Schema 2020-12 instance: all errors with the failing keyword's value and the data
 * (`verbose`), formats checked by ajv-formats, patterns on RE2. `validateSchema: false` because
 * every caller has checked the schema against the meta-schema first (the shared checker below).
 */
export function newDraft2020Ajv(): Ajv2020 {
  const ajv = new Ajv2020Ctor({
    strict: false,
    allErrors: true,
    verbose: true,
    validateSchema: false,
    code: { regExp: re2ForAjv },
  });
  addFormats(ajv);
  return ajv;
}

let metaChecker: Ajv2020 | undefined;
/**
 * The one instance that checks schemas against the 2020-12 meta-schema. `validateSchema` compiles
 * only the meta-schema (once) and keeps nothing per call, so sharing it does not grow.
 */
export function metaSchemaChecker(): Ajv2020 {
  metaChecker ??= new Ajv2020Ctor({ strict: false, allErrors: true });
  return metaChecker;
}

/** Format names ajv-formats defines, read from a configured instance. */
let formatSet: Set<string> | undefined;
function formatNames(): Set<string> {
  formatSet ??= new Set(
    Object.keys((newDraft2020Ajv() as unknown as { formats: Record<string, unknown> }).formats),
  );
  return formatSet;
}

/** The formats writes check, sorted (for messages). */
export function knownFormats(): string[] {
  return [...formatNames()].sort();
}

/** True for a `format` the write validator checks. */
export function isKnownFormat(name: string): boolean {
  return formatNames().has(name);
}
