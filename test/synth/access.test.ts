/**
 * Outside access is refused before anything is read (synth-spec §9.3): path climbs, absolute paths
 * outside the allowlist, symlinks pointing out, URL tricks, redirects to refused hosts, database
 * URLs off the list and queries while queries are off. The real adapters are wrapped only to count
 * what reaches them; every refusal must be a load error naming the setting to change.
 */
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Allowlists } from '../../src/synth/access/allowlists.js';
import { CLOSED_ALLOWLISTS } from '../../src/synth/access/allowlists.js';
import { isInside } from '../../src/synth/access/paths.js';
import type { AccessPorts, DatabasePort, FilePort, ServicePort } from '../../src/synth/access/ports.js';
import { databaseUrlRefusal, serviceUrlRefusal } from '../../src/synth/access/urls.js';
import { loadSynthModel } from '../../src/synth/engine/prepare.js';
import { SynthRun } from '../../src/synth/engine/run.js';
import { SynthError } from '../../src/synth/errors.js';
import { parseModel } from '../../src/synth/model/io.js';
import { renderChunks } from '../../src/synth/output/format.js';
import { fetchServicePort, nodeDatabasePort, nodeFilePort } from '../../src/synth-io/index.js';
import { scratchDir, xmlModel } from './helpers.js';

const { dir: work, put } = scratchDir('mw-access-');

/** The real ports, counting what reaches them. */
function countingPorts(): { ports: AccessPorts; reads: string[] } {
  const reads: string[] = [];
  const files: FilePort = {
    realpath: (p) => nodeFilePort.realpath(p),
    readText: (p) => {
      reads.push(`file:${p}`);
      return nodeFilePort.readText(p);
    },
  };
  const database: DatabasePort = {
    read: (r) => {
      reads.push(`db:${r.url}`);
      return nodeDatabasePort.read(r);
    },
  };
  const service: ServicePort = {
    fetch: (r) => {
      reads.push(`http:${r.url}`);
      return fetchServicePort.fetch(r);
    },
  };
  return { ports: { files, database, service }, reads };
}

interface Outcome {
  error?: string;
  output?: string;
  reads: string[];
}

/** Loads and runs a model file (async load phase), returning the load error or the output. */
async function attempt(
  modelPath: string,
  allow: Partial<Allowlists> = {},
  cwd = dirname(modelPath),
  count = 3,
): Promise<Outcome> {
  const { ports, reads } = countingPorts();
  try {
    const prepared = await loadSynthModel(parseModel(readFileSync(modelPath, 'utf8')), {
      location: nodeFilePort.realpath(modelPath),
      cwd,
      allowlists: { ...CLOSED_ALLOWLISTS, ...allow },
      ports,
    });
    let output = '';
    for (const chunk of renderChunks(new SynthRun(prepared, 1n), { count, format: 'csv', header: false }))
      output += chunk;
    return { output, reads };
  } catch (err) {
    if (err instanceof SynthError) return { error: `${err.code}: ${err.message}`, reads };
    throw err;
  }
}

const FLATFILE = 'MODELWORKS_SYNTH_FLATFILE_PATH_ALLOWLIST';

describe('file paths', () => {
  const secret = put('secret/data.csv', 'top,secret\n');
  put('allowed/ok.csv', 'fine\n');
  put('allowed-evil/x.csv', 'evil\n');
  put('jail/inside.csv', 'inside\n');
  symlinkSync(secret, join(work, 'jail', 'link.csv'));
  symlinkSync(join(work, 'secret'), join(work, 'allowed', 'door'));
  const model = (name: string, file: string): string =>
    put(`jail/${name}.xml`, xmlModel('F', `<FlatFile name="F" file="${file}"/>`));

  it('reads a relative file inside the model folder', async () => {
    expect(await attempt(model('ok', 'inside.csv'))).toMatchObject({ output: 'inside\ninside\ninside\n' });
  });

  it('refuses ../ climbs out of the model folder and the working directory, reading nothing', async () => {
    const r = await attempt(model('climb', '../secret/data.csv'));
    expect(r.error).toMatch(/SYNTH_LOAD: FlatFile "F": relative path "\.\.\/secret\/data\.csv" climbs out/);
    expect(r.error).toContain(FLATFILE);
    expect(r.reads).toEqual([]);
    const deep = await attempt(model('deep', 'sub/../../../../../../etc/passwd'));
    expect(deep.error).toMatch(/climbs out/);
    expect(deep.reads).toEqual([]);
  });

  it('refuses absolute paths when the allowlist is empty or does not cover them', async () => {
    const none = await attempt(model('abs', secret));
    expect(none.error).toMatch(/absolute path ".*data\.csv" refused: no absolute paths are allowed/);
    expect(none.error).toContain(FLATFILE);
    const other = await attempt(model('abs2', secret), { flatFilePathAllowlist: [join(work, 'allowed')] });
    expect(other.error).toMatch(/outside every prefix/);
    // A string prefix is not a folder: allowed-evil is not inside allowed.
    const prefix = await attempt(model('abs3', join(work, 'allowed-evil', 'x.csv')), {
      flatFilePathAllowlist: [join(work, 'allowed')],
    });
    expect(prefix.error).toMatch(/outside every prefix/);
    expect([...none.reads, ...other.reads, ...prefix.reads]).toEqual([]);
    expect(isInside('/a/allowed-evil/x', '/a/allowed')).toBe(false);
  });

  it('accepts an absolute path under an allowlisted prefix', async () => {
    const r = await attempt(model('abs4', join(work, 'allowed', 'ok.csv')), {
      flatFilePathAllowlist: [join(work, 'allowed')],
    });
    expect(r.output).toBe('fine\nfine\nfine\n');
  });

  it('refuses symlinks that point out, relative or absolute, reading nothing', async () => {
    const rel = await attempt(model('link', 'link.csv'));
    expect(rel.error).toMatch(/"link\.csv" resolves \(through a symlink\) to .*secret.*data\.csv, outside/);
    const abs = await attempt(model('door', join(work, 'allowed', 'door', 'data.csv')), {
      flatFilePathAllowlist: [join(work, 'allowed')],
    });
    expect(abs.error).toMatch(/resolves \(through a symlink\) to .*secret.*outside every prefix/);
    expect([...rel.reads, ...abs.reads]).toEqual([]);
  });
});

describe('service URLs', () => {
  let api: Server;
  let other: Server;
  let apiBase = '';
  let otherBase = '';
  const hits = { api: 0, other: 0 };

  beforeAll(async () => {
    api = createServer((req, res) => {
      hits.api++;
      if (req.url?.startsWith('/api/redirect-out')) {
        res.writeHead(302, { location: `${otherBase}/steal` }).end();
      } else if (req.url?.startsWith('/api/redirect-in')) {
        res.writeHead(302, { location: '/api/rows' }).end();
      } else if (req.url?.startsWith('/api/rows')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('[[1,"a"],[2,"b"]]');
      } else res.writeHead(404).end();
    });
    other = createServer((_req, res) => {
      hits.other++;
      res.end('[[666,"stolen"]]');
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    apiBase = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    otherBase = `http://localhost:${(other.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => api.close(r));
    await new Promise((r) => other.close(r));
  });

  const call = (name: string, url: string): string =>
    put(`svc/${name}.xml`, xmlModel('S', `<ServiceCall name="S" url="${url}" outputs="numeric,string"/>`));

  it('compares parsed URLs, not strings', () => {
    const list = ['http://127.0.0.1:8080/api'];
    expect(serviceUrlRefusal('http://127.0.0.1:8080/api/rows', list)).toBeUndefined();
    expect(serviceUrlRefusal('http://127.0.0.1:8080/api', list)).toBeUndefined();
    expect(serviceUrlRefusal('http://127.0.0.1:8080/apix', list)).toMatch(/is not on/);
    expect(serviceUrlRefusal('http://127.0.0.1:8081/api/rows', list)).toMatch(/is not on/);
    expect(serviceUrlRefusal('https://127.0.0.1:8080/api/rows', list)).toMatch(/is not on/);
    expect(serviceUrlRefusal('http://127.0.0.1:8080@evil.test/api', list)).toMatch(/carries credentials/);
    expect(serviceUrlRefusal('http://127.0.0.1.evil.test:8080/api', list)).toMatch(/is not on/);
    expect(serviceUrlRefusal('http://127.0.0.1:8080/api/../admin', list)).toMatch(/is not on/);
    expect(serviceUrlRefusal('http://127.0.0.1:8080/api/%2e%2e/admin', list)).toMatch(/is not on/);
    expect(serviceUrlRefusal('http://127.0.0.1:8080/api/%2E%2E%2Fadmin', list)).toMatch(/encoded/);
    expect(serviceUrlRefusal('file:///etc/passwd', list)).toMatch(/not an http/);
    expect(serviceUrlRefusal('http://127.0.0.1:8080/api', [])).toMatch(
      /MODELWORKS_SYNTH_SERVICE_URL_ALLOWLIST/,
    );
  });

  it('calls an allowlisted service and emits its rows in order', async () => {
    const r = await attempt(call('ok', `${apiBase}/api/rows`), { serviceUrlAllowlist: [`${apiBase}/api`] });
    expect(r.output).toBe('1.0,a\n2.0,b\n1.0,a\n');
  });

  it('refuses URLs off the list (empty list, userinfo, encoded dots, other ports) without a request', async () => {
    const before = { ...hits };
    const list = { serviceUrlAllowlist: [`${apiBase}/api`] };
    const cases = [
      await attempt(call('empty', `${apiBase}/api/rows`)),
      await attempt(call('userinfo', `${apiBase}@${otherBase.slice(7)}/api/rows`), list),
      await attempt(call('dots', `${apiBase}/api/%2e%2e/steal`), list),
      await attempt(call('port', `${otherBase.replace('localhost', '127.0.0.1')}/api/rows`), list),
    ];
    for (const c of cases) {
      expect(c.error).toMatch(/^SYNTH_LOAD: ServiceCall "S": /);
      expect(c.error).toContain('MODELWORKS_SYNTH_SERVICE_URL_ALLOWLIST');
      expect(c.reads).toEqual([]);
    }
    expect(cases[1]!.error).toMatch(/userinfo/);
    expect(hits).toEqual(before);
  });

  it('follows a redirect inside the allowlist, refuses one to a refused host', async () => {
    const list = { serviceUrlAllowlist: [`${apiBase}/api`] };
    expect((await attempt(call('in', `${apiBase}/api/redirect-in`), list)).output).toBe(
      '1.0,a\n2.0,b\n1.0,a\n',
    );
    const otherBefore = hits.other;
    const out = await attempt(call('out', `${apiBase}/api/redirect-out`), list);
    expect(out.error).toMatch(
      /redirect from .* to http:\/\/localhost:\d+\/steal refused: not on the service URL allowlist/,
    );
    expect(hits.other).toBe(otherBefore);
  });
});

describe('database URLs and the query gate', () => {
  const dbFile = join(work, 'db', 'data.sqlite');
  beforeAll(async () => {
    mkdirSync(dirname(dbFile), { recursive: true });
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(dbFile);
    db.exec("CREATE TABLE t (n INTEGER, s TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b');");
    db.close();
  });

  const dbModel = (name: string, attrs: string): string =>
    put(`dbm/${name}.xml`, xmlModel('D', `<Database name="D" ${attrs}/>`));

  it('parses database URLs and compares them by target', () => {
    const list = ['jdbc:postgresql://db.internal:5432/warehouse', `jdbc:sqlite:${join(work, 'db')}`];
    expect(databaseUrlRefusal('postgres://u:p@db.internal/warehouse', list, nodeFilePort)).toBeUndefined();
    expect(databaseUrlRefusal('postgres://db.internal/other', list, nodeFilePort)).toMatch(/is not on/);
    expect(databaseUrlRefusal('postgres://db.internal@evil.test/warehouse', list, nodeFilePort)).toMatch(
      /is not on/,
    );
    expect(databaseUrlRefusal('postgres://db.internal:5433/warehouse', list, nodeFilePort)).toMatch(
      /is not on/,
    );
    expect(databaseUrlRefusal(`jdbc:sqlite:${dbFile}`, list, nodeFilePort)).toBeUndefined();
    expect(databaseUrlRefusal(`jdbc:sqlite:${join(work, 'db-evil', 'x')}`, list, nodeFilePort)).toMatch(
      /is not on/,
    );
    expect(databaseUrlRefusal('jdbc:mysql://db.internal/x', list, nodeFilePort)).toMatch(/not a supported/);
  });

  it('refuses a database URL not on the list, reading nothing', async () => {
    const empty = await attempt(dbModel('empty', `url="jdbc:sqlite:${dbFile}" table="t"`));
    expect(empty.error).toMatch(/databases are disabled; .*MODELWORKS_SYNTH_DATABASE_URL_ALLOWLIST/);
    const other = await attempt(dbModel('other', `url="jdbc:sqlite:${dbFile}" table="t"`), {
      databaseUrlAllowlist: [`jdbc:sqlite:${join(work, 'elsewhere')}`],
    });
    expect(other.error).toMatch(/is not on MODELWORKS_SYNTH_DATABASE_URL_ALLOWLIST/);
    expect([...empty.reads, ...other.reads]).toEqual([]);
  });

  it('refuses a query while queries are off, and table names that are not plain names', async () => {
    const allow = { databaseUrlAllowlist: [`jdbc:sqlite:${dbFile}`] };
    const q = await attempt(dbModel('q', `url="jdbc:sqlite:${dbFile}" query="SELECT * FROM t"`), allow);
    expect(q.error).toMatch(/free-form queries are refused; set MODELWORKS_SYNTH_DATABASE_ALLOW_QUERY/);
    const inj = await attempt(dbModel('inj', `url="jdbc:sqlite:${dbFile}" table="t; DROP TABLE t"`), allow);
    expect(inj.error).toMatch(/is not a plain name/);
    expect([...q.reads, ...inj.reads]).toEqual([]);
    const ok = await attempt(
      dbModel('ok', `url="jdbc:sqlite:${dbFile}" table="t" mode="sequential"`),
      allow,
      work,
      2,
    );
    expect(ok.output).toBe('1.0,a\n2.0,b\n');
  });
});
