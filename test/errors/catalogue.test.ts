/**
 * One error catalogue (issue 27 point 3): every code the source raises or answers with, on every
 * engine and surface, is in src/errors/catalogue.ts and documented in docs/errors.md with the
 * catalogue's status; every status a surface writes next to a code agrees with the catalogue.
 * Codes are collected from the source text, not from a hand list.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CALC_ERROR_CODES } from '../../src/calc/errors.js';
import { ERROR_CATALOGUE, httpStatusOf, isCatalogueCode } from '../../src/errors/catalogue.js';
import { SHEET_SERVICE_REASONS } from '../../src/service/sheet-service.js';
import { SynthServiceError, type SynthServiceErrorCode } from '../../src/service/synth-errors.js';
import { SHEET_ERROR_CODES } from '../../src/sheet/errors.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8');
const CODE = String.raw`'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{4,})'`;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Where a code is raised or answered: error constructors, `code:` fields, `...ErrorCode` unions. */
const PATTERNS = [
  new RegExp(String.raw`new \w*Error\(\s*${CODE}`, 'g'),
  new RegExp(String.raw`\bcode:\s*${CODE}`, 'g'),
  new RegExp(String.raw`sendError\(\s*\w+,\s*\d+,\s*${CODE}`, 'g'),
];
/** Not product codes: Node errno values, validator finding ids. */
const NOT_CODES = /^E[A-Z]+$|^D\d+$/;

interface Found {
  code: string;
  file: string;
}

function collect(): Found[] {
  const found: Found[] = [];
  for (const file of sources(join(ROOT, 'src'))) {
    const text = readFileSync(file, 'utf8');
    const rel = relative(ROOT, file);
    for (const p of PATTERNS) for (const m of text.matchAll(p)) found.push({ code: m[1]!, file: rel });
    for (const u of text.matchAll(/export type \w*ErrorCode\s*=([^;]+);/g))
      for (const m of u[1]!.matchAll(new RegExp(CODE, 'g'))) found.push({ code: m[1]!, file: rel });
  }
  return found.filter((f) => !NOT_CODES.test(f.code));
}

/** `sendError(reply, 404, 'CODE'` and `problem(404, ..., { code: 'CODE' })`: a status written by hand. */
function literalStatuses(): { code: string; status: number; file: string }[] {
  const out: { code: string; status: number; file: string }[] = [];
  for (const file of sources(join(ROOT, 'src'))) {
    const text = readFileSync(file, 'utf8');
    const rel = relative(ROOT, file);
    for (const m of text.matchAll(new RegExp(String.raw`sendError\(\s*\w+,\s*(\d{3}),\s*${CODE}`, 'g')))
      out.push({ status: Number(m[1]), code: m[2]!, file: rel });
    for (const m of text.matchAll(
      new RegExp(String.raw`problem\(\s*(\d{3}),[^;]*?\{\s*code:\s*${CODE}`, 'g'),
    ))
      out.push({ status: Number(m[1]), code: m[2]!, file: rel });
  }
  return out;
}

const FOUND = collect();

describe('the error catalogue', () => {
  it('the source scan finds the codes of every engine and surface', () => {
    const files = new Set(FOUND.map((f) => f.file.split('/')[1]));
    for (const area of ['calc', 'synth', 'sheet', 'service', 'http', 'synth-service-http', 'mcp', 'remote'])
      expect(files, area).toContain(area);
    expect(new Set(FOUND.map((f) => f.code)).size).toBeGreaterThan(50);
  });

  it('holds every code the source raises or answers with', () => {
    const missing = FOUND.filter((f) => !isCatalogueCode(f.code)).map((f) => `${f.code} (${f.file})`);
    expect([...new Set(missing)]).toEqual([]);
  });

  it('holds every code of the engines’ own lists, with the same status where they carry one', () => {
    for (const [code, { status }] of Object.entries(CALC_ERROR_CODES))
      expect(httpStatusOf(code), code).toBe(status);
    for (const code of [...SHEET_ERROR_CODES, ...SHEET_SERVICE_REASONS])
      expect(isCatalogueCode(code), code).toBe(true);
    for (const f of FOUND.filter((x) => x.file === 'src/service/synth-errors.ts'))
      expect(new SynthServiceError(f.code as SynthServiceErrorCode, '').status, f.code).toBe(
        httpStatusOf(f.code),
      );
  });

  it('agrees with every status a surface writes by hand next to a code', () => {
    const found = literalStatuses();
    expect(found.length).toBeGreaterThan(3);
    const wrong = found.filter((f) => httpStatusOf(f.code) !== f.status);
    expect(wrong).toEqual([]);
  });

  it('gives one status to one kind of refusal across engines', () => {
    expect(ERROR_CATALOGUE.BUSY.status).toBe(429);
    expect(ERROR_CATALOGUE.MODEL_INVALID.status).toBe(ERROR_CATALOGUE.SPEC_INVALID.status);
    expect(new SynthServiceError('BUSY', '').status).toBe(CALC_ERROR_CODES.BUSY.status);
    expect(httpStatusOf('__proto__')).toBe(500);
    expect(httpStatusOf('toString')).toBe(500);
  });

  it.each(Object.entries(ERROR_CATALOGUE))(
    'docs/errors.md documents %s with its status',
    (code, { status }) => {
      expect(DOC).toMatch(new RegExp(`\\| \`${code}\` +\\| ${status} +\\|`));
    },
  );
});
