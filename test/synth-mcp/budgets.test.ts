// What one request may cost a shared synth server, in process: the byte cap holds while rows are
// produced, cached generations share one byte budget (least recently used evicted first), model
// text reads no file the operator did not allowlist (never one in the server's working
// directory), every budget is a setting refused at start-up when malformed, and an unexpected
// failure reaches the caller as INTERNAL, never as JavaScript engine text.
import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { synthMcpGroup } from '../../src/mcp/synth-setup.js';
import { synthErrorResult } from '../../src/mcp/synth-tools.js';
import { SynthServiceError } from '../../src/service/synth-errors.js';
import {
  GenerationCache,
  generationText,
  heldBytes,
  produceGeneration,
  type ProduceRequest,
} from '../../src/service/synth-generation.js';
import { SynthService, type SynthServiceOptions } from '../../src/service/synth-service.js';
import { cacheBudget, limitsFromEnv } from '../../src/service/synth-settings.js';
import { buildSynthServiceApp } from '../../src/synth-service-http/app.js';
import { CLOSED_ALLOWLISTS, parseModel, SynthRun, type Allowlists } from '../../src/synth/index.js';
import { SUPPORT_QUEUE } from './helpers.js';

const ENGINE_TEXT =
  /Cannot read propert|Cannot set propert|is not a function|is not defined|Maximum call stack|Unexpected (token|end)|is not iterable|Invalid (array|string) length|\[object Object\]/;

const work = realpathSync(mkdtempSync(join(tmpdir(), 'mw-synth-budgets-')));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const services: SynthService[] = [];
function service(options: SynthServiceOptions = {}): SynthService {
  const s = new SynthService(options);
  services.push(s);
  return s;
}
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of services.splice(0)) await s.close();
});

async function errorOf(p: Promise<unknown>): Promise<SynthServiceError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SynthServiceError) return err;
    throw err;
  }
  throw new Error('expected a SynthServiceError');
}

/** 10,000 doubles a row: about 190 kB of CSV each. */
const WIDE_ROWS = `<dataset seed="3"><root node="W"/><nodes><Redimension name="W" dimension="10000"><input name="N"/></Redimension><Normal name="N"/></nodes></dataset>`;

describe('the byte cap holds while rows are produced', () => {
  it('stops pulling rows once the output passes the cap, even inside the warm-up sample', async () => {
    const run = new SynthRun(parseModel(WIDE_ROWS), 1n);
    let pulled = 0;
    const next = run.next.bind(run);
    run.next = () => {
      pulled++;
      return next();
    };
    const request: ProduceRequest = {
      id: 'e-wide',
      modelId: 'local-wide',
      run,
      seed: 1n,
      seedSource: 'request',
      count: 1000, // all warm-up: before, every row was built before any size check
      format: 'csv',
      maxBytes: 1024 * 1024,
      maxBytesSetting: 'TEST_CAP',
    };
    const err = await errorOf(produceGeneration(request));
    expect(err.code).toBe('TOO_LARGE');
    expect(err.message).toContain('TEST_CAP');
    // 1 MiB holds five or six of these rows: the one that passes the cap is the last one built
    expect(pulled).toBeLessThanOrEqual(7);
  });

  it('refuses one row bigger than the cap before building it whole', async () => {
    const huge = `<dataset><root node="A"/><nodes><Arrange name="A" columns="${'0 '.repeat(2000).trim()}"><input name="C"/></Arrange><Constant name="C" type="string" value="${'x'.repeat(50_000)}"/></nodes></dataset>`;
    const s = service({ embeddedMaxBytes: 1024 * 1024 });
    const err = await errorOf(s.generateEmbedded(huge, { count: 1 }));
    expect(err.code).toBe('TOO_LARGE');
    expect(err.message).toMatch(/output of at least \d+ bytes for 1 rows exceeds the cap of 1048576 bytes/);
  });

  it('refuses the widest row as an invalid model, naming MODELWORKS_SYNTH_MAX_COLUMNS', async () => {
    const widest = WIDE_ROWS.replace('dimension="10000"', 'dimension="2147483647"');
    const s = service();
    const embedded = await errorOf(s.generateEmbedded(widest, { count: 1 }));
    expect(embedded.code).toBe('MODEL_INVALID');
    expect(embedded.message).toMatch(
      /dimension 2147483647 is over this server's limit of 10000 \(MODELWORKS_SYNTH_MAX_COLUMNS\)/,
    );
    // the node is named once, not once by its own refusal and again by the summary
    expect(embedded.message.match(/Redimension "/g)).toHaveLength(1);
    const registered = await errorOf(s.registerModel(widest));
    expect(registered.code).toBe('MODEL_INVALID');
    expect((await s.validate(widest)).failures[0]?.message).toContain('MODELWORKS_SYNTH_MAX_COLUMNS');
  });
});

describe('cached generations share one byte budget', () => {
  const gen = async (id: string, count: number): Promise<ReturnType<typeof produceGeneration>> => {
    const g = await produceGeneration({
      id,
      modelId: 'local-test',
      run: new SynthRun(parseModel(SUPPORT_QUEUE), 9n),
      seed: 9n,
      seedSource: 'request',
      count,
      format: 'csv',
      maxBytes: 1e9,
      maxBytesSetting: 'TEST_CAP',
    });
    return g;
  };

  it('evicts the least recently used generations until the total fits', async () => {
    const a = await gen('a', 400);
    const b = await gen('b', 400);
    const c = await gen('c', 400);
    const budget = heldBytes(a) + heldBytes(b) + Math.floor(heldBytes(c) / 2);
    const cache = new GenerationCache(50, budget);
    cache.add(a);
    cache.add(b);
    cache.get('a'); // a is now the most recently used
    cache.add(c);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.id).toBe('a');
    expect(cache.get('c')?.id).toBe('c');
    expect(cache.bytes).toBeLessThanOrEqual(budget);
    expect(generationText(c)).toContain('\n');
  });

  it('the Service answers a read of an evicted generation with "generate again"', async () => {
    const s = service({ serviceMaxBytes: 40_000, serviceCacheMaxBytes: 100_000 });
    const { modelId } = await s.registerModel(SUPPORT_QUEUE);
    const first = await s.generate(modelId, { count: 700, seed: 1 });
    const second = await s.generate(modelId, { count: 700, seed: 2 });
    s.readGeneration(first.generationId, { maxChars: 1000 }); // first is now the most recent
    const third = await s.generate(modelId, { count: 700, seed: 3 });
    const evicted = (() => {
      try {
        s.readGeneration(second.generationId, { maxChars: 1000 });
        return undefined;
      } catch (err) {
        return err as SynthServiceError;
      }
    })();
    expect(evicted?.code).toBe('GENERATION_NOT_FOUND');
    expect(evicted?.message).toMatch(/evicted from the cache\); call generate again/);
    expect(s.readGeneration(first.generationId, { maxChars: 1000 }).rowCount).toBeGreaterThan(0);
    expect(s.readGeneration(third.generationId, { maxChars: 1000 }).rowCount).toBeGreaterThan(0);
  });

  it('so does the embedded cache, under its own budget', async () => {
    const s = service({ embeddedMaxBytes: 40_000, embeddedCacheMaxBytes: 70_000 });
    const first = await s.generateEmbedded(SUPPORT_QUEUE, { count: 700, seed: 1 });
    const second = await s.generateEmbedded(SUPPORT_QUEUE, { count: 700, seed: 2 });
    expect(() => s.readGeneration(first.generationId, { maxChars: 1000 })).toThrow(/call generate again/);
    expect(s.readGeneration(second.generationId, { maxChars: 1000 }).rowCount).toBeGreaterThan(0);
  });

  it('a cache budget must hold one generation; defaults follow the caps', () => {
    expect(() => new SynthService({ serviceMaxBytes: 1000, serviceCacheMaxBytes: 999 })).toThrow(
      /MODELWORKS_SYNTH_CACHE_MAX_BYTES: 999 bytes cannot hold one generation of up to 1000 bytes/,
    );
    const env = { MODELWORKS_SYNTH_CACHE_MAX_BYTES: '1000' };
    expect(() => cacheBudget(env, 'MODELWORKS_SYNTH_CACHE_MAX_BYTES', 5, 2000, 'THE_CAP')).toThrow(
      /MODELWORKS_SYNTH_CACHE_MAX_BYTES \(1000 bytes\) must be at least one generation's cap, 2000 bytes \(THE_CAP\)/,
    );
    expect(cacheBudget({}, 'MODELWORKS_SYNTH_CACHE_MAX_BYTES', 256, 1000, 'THE_CAP')).toBe(1000);
    expect(cacheBudget({}, 'MODELWORKS_SYNTH_CACHE_MAX_BYTES', 256, 100, 'THE_CAP')).toBe(256);
  });
});

describe('budgets are settings, refused at start-up when malformed', () => {
  it.each([
    ['MODELWORKS_SYNTH_MAX_COLUMNS', 'wide'],
    ['MODELWORKS_SYNTH_MAX_ENTRIES', '0'],
    ['MODELWORKS_SYNTH_SERVICE_CALL_MAX_TIMEOUT_MS', '-5'],
    ['MODELWORKS_SYNTH_SERVICE_CALL_MAX_ROUNDS', '1.5'],
    ['MODELWORKS_SYNTH_SERVICE_CALL_MAX_CHARS', 'lots'],
    ['MODELWORKS_SYNTH_EMBEDDED_CACHE_MAX_BYTES', '12x'],
    ['MODELWORKS_SYNTH_EMBEDDED_MAX_BYTES', '99999999999'],
  ])('%s=%s stops the MCP synth group from starting', (name, value) => {
    expect(() => synthMcpGroup({ [name]: value }, () => {})).toThrow(
      new RegExp(`^${name} must be a positive number`),
    );
  });

  it('MODELWORKS_SYNTH_WORKERS is read at start-up too, not at the first generation', () => {
    expect(() => synthMcpGroup({ MODELWORKS_SYNTH_WORKERS: 'many' }, () => {})).toThrow(
      /^MODELWORKS_SYNTH_WORKERS must be a whole number from 1 to 256/,
    );
  });

  it('reads every engine budget from the environment', () => {
    expect(
      limitsFromEnv({
        MODELWORKS_SYNTH_MAX_COLUMNS: '20',
        MODELWORKS_SYNTH_MAX_ENTRIES: '30',
        MODELWORKS_SYNTH_SERVICE_CALL_MAX_TIMEOUT_MS: '40',
        MODELWORKS_SYNTH_SERVICE_CALL_MAX_ROUNDS: '50',
        MODELWORKS_SYNTH_SERVICE_CALL_MAX_CHARS: '60',
      }),
    ).toEqual({
      maxColumns: 20,
      maxEntries: 30,
      serviceCallMaxTimeoutMs: 40,
      serviceCallMaxRounds: 50,
      serviceCallMaxChars: 60,
    });
  });

  it('the MCP synth tools validate under the configured ServiceCall caps', async () => {
    const group = synthMcpGroup({ MODELWORKS_SYNTH_SERVICE_CALL_MAX_ROUNDS: '5' }, () => {});
    try {
      const validate = group.tools.find((t) => t.name === 'validate_model')!;
      const r = await validate.run(
        {
          modelText:
            '<dataset><root node="S"/><nodes><ServiceCall name="S" url="https://x.test/r" outputs="numeric" maxRounds="6"/></nodes></dataset>',
        },
        {} as never,
      );
      expect((r.structuredContent as { loadError: string }).loadError).toBe(
        `ServiceCall "S": maxRounds 6 is over this server's limit of 5 (MODELWORKS_SYNTH_SERVICE_CALL_MAX_ROUNDS)`,
      );
    } finally {
      await group.close();
    }
  });
});

describe('model text reads no file the operator did not allowlist', () => {
  // The server's working directory holds files a model must not reach by a relative path.
  const cwd = join(work, 'server-home');
  const shared = join(work, 'shared-tables');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(shared, { recursive: true });
  writeFileSync(join(cwd, 'secret.csv'), 'password\n');
  writeFileSync(
    join(cwd, 'lib.xml'),
    '<dataset><root node="U"/><nodes><Uniform name="U"/></nodes></dataset>',
  );
  writeFileSync(join(shared, 'names.csv'), 'Ann\nBob\n');
  writeFileSync(
    join(shared, 'lib.xml'),
    '<dataset><root node="C"/><nodes><Constant name="C" value="7"/></nodes></dataset>',
  );
  {
    const db = new Database(join(shared, 'ref.db'));
    db.exec("CREATE TABLE t (name TEXT); INSERT INTO t VALUES ('Cy');");
    db.close();
  }
  const flat = (file: string): string =>
    `<dataset><root node="F"/><nodes><FlatFile name="F" file="${file}" mode="sequential" onExhaustion="repeat"/></nodes></dataset>`;
  const imported = (file: string): string =>
    `<dataset><root node="L"/><nodes><Import name="L" file="${file}"/></nodes></dataset>`;
  const sqlite = (path: string): string =>
    `<dataset><root node="D"/><nodes><Database name="D" url="jdbc:sqlite:${path}" table="t"/></nodes></dataset>`;
  const serverIn = (dir: string, allow: Partial<Allowlists> = {}): SynthService => {
    vi.spyOn(process, 'cwd').mockReturnValue(dir);
    return service({ allowlists: () => ({ ...CLOSED_ALLOWLISTS, ...allow }) });
  };

  it('a relative FlatFile or Import in text is refused with an empty allowlist, naming the setting', async () => {
    const s = serverIn(cwd);
    for (const text of [flat('secret.csv'), imported('lib.xml')]) {
      const report = await s.validate(text);
      expect(report.valid).toBe(false);
      expect(report.loadError).toMatch(
        /relative path "(secret\.csv|lib\.xml)" in model text is refused: .* MODELWORKS_SYNTH_FLATFILE_PATH_ALLOWLIST \(flatFilePathAllowlist\), which lists none/,
      );
      const err = await errorOf(s.generateEmbedded(text, { count: 1 }));
      expect(err.code).toBe('MODEL_INVALID');
      expect(err.message).toContain('MODELWORKS_SYNTH_FLATFILE_PATH_ALLOWLIST');
      expect((await errorOf(s.registerModel(text))).code).toBe('MODEL_INVALID');
    }
  });

  it('… and resolved under an allowlisted folder, never the working directory', async () => {
    const s = serverIn(cwd, { flatFilePathAllowlist: [shared] });
    expect((await s.generateEmbedded(flat('names.csv'), { count: 3, seed: 1 })).preview).toBe(
      'Ann\nBob\nAnn\n',
    );
    expect((await s.generateEmbedded(imported('lib.xml'), { count: 1, seed: 1 })).preview).toBe('7.0\n');
    const secret = await s.validate(flat('secret.csv'));
    expect(secret.loadError).toMatch(
      /"secret\.csv" in model text is not under any folder listed in MODELWORKS_SYNTH_FLATFILE_PATH_ALLOWLIST/,
    );
    expect((await s.validate(flat('../server-home/secret.csv'))).loadError).toMatch(
      /climbs out of the folders listed/,
    );
  });

  it('a relative SQLite path in text resolves under the allowlisted SQLite folders only', async () => {
    const s = serverIn(cwd, { databaseUrlAllowlist: [`jdbc:sqlite:${shared}`] });
    expect((await s.generateEmbedded(sqlite('ref.db'), { count: 1, seed: 1 })).preview).toBe('Cy\n');
    writeFileSync(join(cwd, 'local.db'), '');
    expect((await s.validate(sqlite('local.db'))).loadError).toMatch(
      /relative SQLite path "local\.db" in model text is not under any SQLite folder listed in MODELWORKS_SYNTH_DATABASE_URL_ALLOWLIST/,
    );
  });

  it('POST /v1/models refuses the same text, and the MCP group starts with no flat-file allowlist', async () => {
    const s = serverIn(cwd);
    const app = buildSynthServiceApp({ service: s });
    try {
      const r = await app.inject({
        method: 'POST',
        url: '/v1/models',
        payload: { modelText: flat('secret.csv') },
      });
      expect(r.statusCode).toBe(422);
      expect(r.json().error).toMatchObject({ code: 'MODEL_INVALID' });
      expect(r.json().error.message).toContain('MODELWORKS_SYNTH_FLATFILE_PATH_ALLOWLIST');
    } finally {
      await app.close();
    }
    const group = synthMcpGroup({}, () => {});
    const allowlists = group.tools.find((t) => t.name === 'get_allowlists')!;
    expect((await allowlists.run({}, {} as never)).structuredContent).toMatchObject({
      flatFilePathAllowlist: [],
    });
    await group.close();
  });
});

describe('unexpected failures are INTERNAL, in our words', () => {
  it('an MCP tool result never carries the engine text of an unexpected error; the log does', () => {
    const logged: string[] = [];
    const r = synthErrorResult(new TypeError("Cannot read properties of undefined (reading 'x')"), (m) =>
      logged.push(m),
    );
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toEqual({
      code: 'INTERNAL',
      error: 'internal error; nothing was changed, and the server log has the details',
    });
    expect(r.content[0]!.text).not.toMatch(ENGINE_TEXT);
    expect(logged.join('\n')).toContain('Cannot read properties of undefined');
  });

  it('the Service refuses a "__proto__" key naming where it is, and takes "constructor" as data', async () => {
    const s = service();
    const app = buildSynthServiceApp({ service: s });
    try {
      const proto = await app.inject({
        method: 'POST',
        url: '/v1/models',
        headers: { 'content-type': 'application/json' },
        payload: `{"modelText": ${JSON.stringify(SUPPORT_QUEUE)}, "extra": {"__proto__": {"polluted": true}}}`,
      });
      expect(proto.statusCode).toBe(400);
      expect(proto.json().error).toEqual({
        code: 'BAD_REQUEST',
        message: expect.stringMatching(/^\$\.extra\.__proto__: '__proto__' cannot be used as a key/),
        path: '$.extra.__proto__',
      });
      const ctor = await app.inject({
        method: 'POST',
        url: '/v1/models',
        headers: { 'content-type': 'application/json' },
        payload: `{"modelText": ${JSON.stringify(SUPPORT_QUEUE)}, "constructor": {"prototype": {"x": 1}}}`,
      });
      expect(ctor.statusCode).toBe(201);
      const broken = await app.inject({
        method: 'POST',
        url: '/v1/models',
        headers: { 'content-type': 'application/json' },
        payload: '{"modelText": ',
      });
      expect(broken.json().error).toEqual({
        code: 'BAD_REQUEST',
        message: 'the request body is not valid JSON',
      });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});
