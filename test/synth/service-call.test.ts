/**
 * ServiceCall against a local node:http server: rounds until an empty or repeated answer, the
 * maxRounds bound, the timeout, JSON and text bodies, headers, and row lookup by an input.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSED_ALLOWLISTS } from '../../src/synth/access/allowlists.js';
import { responseRows } from '../../src/synth/components/outside/service-call.js';
import { loadSynthModel } from '../../src/synth/engine/prepare.js';
import { SynthRun } from '../../src/synth/engine/run.js';
import { parseModel } from '../../src/synth/model/io.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';
import { realPorts } from '../../src/synth-io/index.js';
import { render, xmlModel } from './helpers.js';

let server: Server;
let base = '';
const seen: { url: string; round: string; token: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const round = String(req.headers['x-modelworks-round']);
    seen.push({ url: req.url ?? '', round, token: String(req.headers['x-token'] ?? '') });
    const n = Number(round);
    if (req.url === '/paged') {
      // Three pages, then an empty one.
      res.end(
        n < 3
          ? JSON.stringify({
              rows: [
                { id: n * 2, tag: `p${n}a` },
                { id: n * 2 + 1, tag: `p${n}b` },
              ],
            })
          : '[]',
      );
    } else if (req.url === '/static') res.end('7,seven\n8,eight\n');
    else if (req.url === '/endless') res.end(JSON.stringify([[n, `r${n}`]]));
    // a fake peer that answers late: the client's own time limit is what is under test
    else if (req.url === '/slow') setTimeout(() => res.end('[[1,"late"]]'), 2000);
    else res.writeHead(500).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function run(nodes: string, root = 'S', count = 6, seed = 5): Promise<string> {
  const prepared = await loadSynthModel(parseModel(xmlModel(root, nodes)), {
    allowlists: { ...CLOSED_ALLOWLISTS, serviceUrlAllowlist: [base] },
    ports: realPorts(),
  });
  return render(new SynthRun(prepared, BigInt(seed)), count);
}

describe('ServiceCall', () => {
  it('parses JSON arrays, objects with rows, scalars and plain text', () => {
    expect(responseRows('[[1,"a"],[2,"b"]]')).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    expect(responseRows('{"data":[{"x":1,"y":"z"}]}')).toEqual([[1, 'z']]);
    expect(responseRows('[3,4]')).toEqual([[3], [4]]);
    expect(responseRows('a,b\nc,d\n')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(responseRows('  ')).toEqual([]);
    // text responses are read like FlatFile tables (csv-parse): quoted commas and line breaks
    expect(responseRows('1,"Cole, Jr."\n2,"two\nlines"\n')).toEqual([
      ['1', 'Cole, Jr.'],
      ['2', 'two\nlines'],
    ]);
    expect(() => responseRows('1,"open\n', 'round 1')).toThrow(
      'round 1 is not a readable table: a quoted cell is never closed',
    );
  });

  it('calls in rounds until an empty answer, sends headers, and emits the rows in order', async () => {
    seen.length = 0;
    const out = await run(
      `<ServiceCall name="S" url="${base}/paged" outputs="numeric,string" headers="X-Token=abc"/>`,
    );
    expect(out).toBe('0.0,p0a\n1.0,p0b\n2.0,p1a\n3.0,p1b\n4.0,p2a\n5.0,p2b\n');
    expect(seen.map((s) => s.round)).toEqual(['0', '1', '2', '3']);
    expect(seen.every((s) => s.token === 'abc')).toBe(true);
  });

  it('stops at a repeated answer and at maxRounds', async () => {
    seen.length = 0;
    expect(await run(`<ServiceCall name="S" url="${base}/static" outputs="numeric,string"/>`, 'S', 3)).toBe(
      '7.0,seven\n8.0,eight\n7.0,seven\n',
    );
    expect(seen).toHaveLength(2);
    seen.length = 0;
    expect(
      await run(
        `<ServiceCall name="S" url="${base}/endless" outputs="numeric,string" maxRounds="3"/>`,
        'S',
        4,
      ),
    ).toBe('0.0,r0\n1.0,r1\n2.0,r2\n0.0,r0\n');
    expect(seen).toHaveLength(3);
  });

  it('fails the load on a timeout or an HTTP error, naming the node and round', async () => {
    await expect(
      run(`<ServiceCall name="S" url="${base}/slow" outputs="numeric,string" timeoutMs="100"/>`),
    ).rejects.toThrow(/ServiceCall "S": round 1: no answer from .*\/slow within 100 ms/);
    await expect(run(`<ServiceCall name="S" url="${base}/broken" outputs="numeric"/>`)).rejects.toThrow(
      /answered HTTP 500/,
    );
    await expect(
      run(`<ServiceCall name="S" url="${base}/static" outputs="numeric,numeric"/>`),
    ).rejects.toThrow(/"seven" is not numeric/);
  });

  it('with an input, pulls it once per row and uses its first value to pick the row', async () => {
    const out = await run(
      `<ServiceCall name="S" url="${base}/paged" outputs="numeric,string"><input name="U"/></ServiceCall><Uniform name="U" min="0" max="600"/>`,
      'S',
      20,
      11,
    );
    const rng = new L64X128MixRandom(11n);
    const expected = Array.from({ length: 20 }, () => {
      const k = Math.trunc(600 * rng.nextDouble()) % 6;
      return `${k}.0,p${Math.floor(k / 2)}${k % 2 === 0 ? 'a' : 'b'}`;
    });
    expect(out.trim().split('\n')).toEqual(expected);
  });
});
