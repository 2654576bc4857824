// SynthService loads models through the engine's load phase: FlatFile and Database (SQLite) models
// validate, analyse, register and generate, reading through the real ports under the allowlists.
import Database from 'better-sqlite3';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SynthServiceError } from '../../src/service/synth-errors.js';
import { SynthService } from '../../src/service/synth-service.js';
import type { Allowlists } from '../../src/synth/index.js';
import { CLOSED_ALLOWLISTS } from '../../src/synth/index.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'mw-synth-service-')));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const table = join(work, 'names.csv');
writeFileSync(table, 'Ann\nBob\nCy\n');
const dbFile = join(work, 'people.sqlite');
{
  const db = new Database(dbFile);
  db.exec("CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('Ann'), ('Bob'), ('Cy');");
  db.close();
}

const flatFileModel = `<dataset><root node="F"/><nodes><FlatFile name="F" file="${table}" mode="sequential" onExhaustion="repeat"/></nodes></dataset>`;
const databaseModel = `<dataset><root node="D"/><nodes><Database name="D" url="jdbc:sqlite:${dbFile}" table="people" mode="sequential"/></nodes></dataset>`;

async function withService<T>(allow: Partial<Allowlists>, f: (s: SynthService) => Promise<T>): Promise<T> {
  const service = new SynthService({ allowlists: () => ({ ...CLOSED_ALLOWLISTS, ...allow }) });
  try {
    return await f(service);
  } finally {
    await service.close();
  }
}

async function errorOf(p: Promise<unknown>): Promise<SynthServiceError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SynthServiceError) return err;
    throw err;
  }
  throw new Error('expected a SynthServiceError');
}

describe('SynthService load phase', () => {
  it('reads an allowlisted FlatFile in embedded and registered generation, validation and analysis', async () => {
    await withService({ flatFilePathAllowlist: [work] }, async (s) => {
      const embedded = await s.generateEmbedded(flatFileModel, { count: 4, seed: 1 });
      expect(embedded.preview).toBe('Ann\nBob\nCy\nAnn\n');
      const info = await s.registerModel(flatFileModel);
      expect((await s.generate(info.modelId, { count: 2, seed: 1 })).preview).toBe('Ann\nBob\n');
      expect(await s.validate(flatFileModel)).toMatchObject({ valid: true, nodeCount: 1 });
      const analysis = await s.analyze(flatFileModel, { samples: 10 });
      expect(analysis.throughput?.sampleCount).toBe(10);
    });
  });

  it('refuses a FlatFile outside the allowlist before reading, naming the setting', async () => {
    await withService({}, async (s) => {
      const err = await errorOf(s.generateEmbedded(flatFileModel, { count: 1 }));
      expect(err.code).toBe('MODEL_INVALID');
      expect(err.message).toMatch(/FlatFile "F": absolute path .* refused.*FLATFILE_PATH_ALLOWLIST/);
      expect((await errorOf(s.registerModel(flatFileModel))).code).toBe('MODEL_INVALID');
      expect(s.listModels()).toEqual([]);
      const report = await s.validate(flatFileModel);
      expect(report.valid).toBe(false);
      expect(report.loadError).toMatch(/FLATFILE_PATH_ALLOWLIST/);
      expect((await errorOf(s.analyze(flatFileModel))).code).toBe('MODEL_INVALID');
    });
  });

  it('awaits a Database (SQLite) read when its URL is allowlisted, refuses it otherwise', async () => {
    await withService({ databaseUrlAllowlist: [`jdbc:sqlite:${work}`] }, async (s) => {
      expect((await s.generateEmbedded(databaseModel, { count: 3, seed: 1 })).preview).toBe('Ann\nBob\nCy\n');
      expect(await s.validate(databaseModel)).toMatchObject({ valid: true });
    });
    await withService({}, async (s) => {
      const err = await errorOf(s.generateEmbedded(databaseModel, { count: 1 }));
      expect(err.code).toBe('MODEL_INVALID');
      expect(err.message).toMatch(/DATABASE_URL_ALLOWLIST/);
    });
  });
});
