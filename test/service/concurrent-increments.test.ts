// Issue 19, point 2, acceptance: two `modelworks serve` processes on one store, three clients on
// each, 200 increments of $.count per client with the read-modify-write recipe (read the state and
// its revision, write count + 1 with expectedRevision, re-read and retry on a Version conflict).
// The clients of one process go through REST with the remote-mode client (CalcClient), those of the
// other through MCP over Streamable HTTP. The final count must be exact (1200) and every refusal a
// structured Version conflict. SQLite always; PostgreSQL when MODELWORKS_TEST_POSTGRES_URL is set.
// Needs a build (dist/cli/main.js).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CalcError } from '../../src/calc/index.js';
import { REVISION_META } from '../../src/mcp/calc-tools.js';
import { CalcClient } from '../../src/remote/calc-client.js';
import { startAnnounced, type AnnouncedChild } from '../helpers/child.js';
import { connectHttp, cli, type Peer } from '../mcp/helpers/peers.js';
import {
  freshPostgresUrl,
  POSTGRES_SKIP_REASON,
  POSTGRES_URL,
  TEST_AUDIT_KEY_TEXT,
} from '../store/helpers.js';

const PROCESSES = 2;
const CLIENTS = 3;
const INCREMENTS = 200;
const TOTAL = PROCESSES * CLIENTS * INCREMENTS;
/** A client giving up after this many refusals in a row would mean no one is making progress. */
const MAX_TRIES = 500;
const ID = 'counter';
const SPEC = {
  id: ID,
  version: '1.0.0',
  schema: { type: 'object', properties: { count: { type: 'integer', minimum: 0 } } },
  defaultValues: [{ path: '$', expr: '{"count": 0}' }],
};

const dir = mkdtempSync(join(tmpdir(), 'mw-increments-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function serve(store: string): Promise<AnnouncedChild> {
  return startAnnounced({
    args: [cli, 'serve', '--port', '0', '--store', store],
    // no API key (a loopback server); one audit key for both processes, none from the user's files
    env: { ...process.env, MODELWORKS_API_KEY: '', MODELWORKS_AUDIT_KEY: TEST_AUDIT_KEY_TEXT },
    announce: /serving (http:\/\/\S+)/,
    what: 'modelworks serve',
  });
}

/** The Version conflicts a group of clients met (any other refusal fails the test at once). */
interface Tally {
  conflicts: number;
}

// After a conflict a client reads again at once: every conflict means another client's write
// landed, so the group always progresses (no random back-off: nothing to seed or print).

/** A refusal of a write made at `read` must be a Version conflict naming it and a later revision. */
function checkConflict(shape: { expected?: unknown; actual?: unknown }, read: number): void {
  expect(shape.expected).toBe(read);
  expect(Number.isInteger(shape.actual) && (shape.actual as number) > read).toBe(true);
}

/** One client through REST (remote mode): the state's Model-Revision header, ?expectedRevision. */
async function restClient(url: string, tally: Tally): Promise<void> {
  const calc = new CalcClient({ url });
  try {
    for (let i = 0; i < INCREMENTS; i++) {
      for (let tries = 1; ; tries++) {
        const { state, revision } = await calc.readState(ID);
        const count = (state as { count: number }).count;
        try {
          await calc.mutate(ID, { '$.count': count + 1 }, { expectedRevision: revision });
          break;
        } catch (err) {
          if (!(err instanceof CalcError) || err.code !== 'VERSION_CONFLICT') throw err;
          checkConflict(err.details, revision);
          tally.conflicts++;
          if (tries >= MAX_TRIES) throw new Error(`no progress after ${tries} conflicts`);
        }
      }
    }
  } finally {
    await calc.close();
  }
}

/** One client through MCP: get_state's _meta revision, mutate's expectedRevision argument. */
async function mcpClient(url: string, tally: Tally): Promise<void> {
  const peer: Peer = await connectHttp(`${url}/mcp`);
  try {
    for (let i = 0; i < INCREMENTS; i++) {
      for (let tries = 1; ; tries++) {
        const read = await peer.call('get_state', { id: ID });
        expect(read.isError).toBeFalsy();
        const revision = (read as { _meta?: Record<string, unknown> })._meta?.[REVISION_META] as number;
        const count = read.structuredContent!.count as number;
        const res = await peer.call('mutate', {
          id: ID,
          mutations: { '$.count': count + 1 },
          expectedRevision: revision,
        });
        if (!res.isError) break;
        const refusal = res.structuredContent ?? {};
        expect(refusal, JSON.stringify(res.content)).toMatchObject({
          error: 'Version conflict',
          message: expect.any(String),
        });
        checkConflict(refusal, revision);
        tally.conflicts++;
        if (tries >= MAX_TRIES) throw new Error(`no progress after ${tries} conflicts`);
      }
    }
  } finally {
    await peer.close();
  }
}

async function race(store: string): Promise<void> {
  const servers = await Promise.all([serve(store), serve(store)]);
  try {
    const [restUrl, mcpUrl] = servers.map((s) => s.match[1]!) as [string, string];
    const admin = new CalcClient({ url: restUrl });
    await admin.createModel(SPEC);
    const rest: Tally = { conflicts: 0 };
    const mcp: Tally = { conflicts: 0 };
    await Promise.all([
      ...Array.from({ length: CLIENTS }, () => restClient(restUrl, rest)),
      ...Array.from({ length: CLIENTS }, () => mcpClient(mcpUrl, mcp)),
    ]);
    // exact: no increment lost, none doubled; one committed cycle each, on an intact chain
    for (const url of [restUrl, mcpUrl]) {
      const reader = new CalcClient({ url });
      expect(await reader.readState(ID)).toEqual({ state: { count: TOTAL }, revision: TOTAL });
      await reader.close();
    }
    const trail = await admin.getAudit(ID, { limit: 10_000 });
    expect(trail).toHaveLength(TOTAL);
    expect(trail.map((r) => r.mutations['$.count']).reverse()).toEqual(
      Array.from({ length: TOTAL }, (_, i) => i + 1),
    );
    expect(await admin.verifyAudit(ID)).toMatchObject({ valid: true, recordsChecked: TOTAL });
    await admin.close();
    // the clients really raced, within each process and across the two
    expect(rest.conflicts).toBeGreaterThan(0);
    expect(mcp.conflicts).toBeGreaterThan(0);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

describe('two processes × three clients × 200 increments with expectedRevision', () => {
  it('SQLite: the final count is exact and every refusal a structured Version conflict', async () => {
    await race(`sqlite:${join(dir, 'increments.db')}`);
  }, 120_000);

  it.skipIf(!POSTGRES_URL)(
    `PostgreSQL: the same${POSTGRES_URL ? '' : ` (skipped: ${POSTGRES_SKIP_REASON})`}`,
    async () => {
      // a schema of its own (dropped afterwards), named to both processes through the URL
      const url = await freshPostgresUrl();
      await race(url);
    },
    120_000,
  );
});
