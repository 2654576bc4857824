// The MCP Tasks extension at 2026-07-28 (issue 43, point 4): a client that declares
// `io.modelcontextprotocol/tasks` gets a task handle for a long tools/call (`simulate` here), polls
// tasks/get for its progress and result, and stops it with tasks/cancel; without the extension the
// same call answers its result directly. Raw JSON-RPC over Streamable HTTP and over stdio (the v2
// SDK client does not take task results by itself). Needs the build (dist/cli/main.js).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, root, serverEnv, startHttpServer } from './helpers/peers.js';
import { priceSpec } from './helpers/specs.js';

const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
/** One JSON-RPC request: its `result`, or its `error` as `{error}`. */
type Rpc = (method: string, params: Json, capabilities?: Json) => Promise<Json>;

const cleanups: (() => Promise<unknown> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const envelope = (capabilities: Json) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'tasks-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

let nextId = 1;

/** Requests over Streamable HTTP with the headers 2026-07-28 asks for (JSON or SSE answers). */
function httpRpc(url: string): Rpc {
  return async (method, params, capabilities = {}) => {
    const name = params.name ?? params.taskId;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: nextId++,
        method,
        params: { ...params, _meta: envelope(capabilities) },
      }),
    });
    const text = await res.text();
    const body = res.headers.get('content-type')?.includes('text/event-stream')
      ? (text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => JSON.parse(l.slice(5)) as Json)
          .find((m) => 'result' in m || 'error' in m) as Json)
      : (JSON.parse(text) as Json);
    return body.error ? { error: body.error } : (body.result as Json);
  };
}

/** Requests as JSON lines to a `modelworks mcp` stdio child (an enveloped opening: 2026-07-28). */
function stdioRpc(): Rpc {
  const child = spawn(process.execPath, [cli, 'mcp'], { env: serverEnv, cwd: root, stdio: 'pipe' });
  cleanups.push(() => void child.kill());
  const waiting = new Map<number, (m: Json) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as Json;
    if (typeof message.id === 'number') waiting.get(message.id)?.(message);
  });
  return (method, params, capabilities = {}) => {
    const id = nextId++;
    const answered = new Promise<Json>((resolve) => waiting.set(id, resolve));
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(capabilities) } })}\n`,
    );
    return answered.then((m) => (m.error ? { error: m.error } : (m.result as Json)));
  };
}

const SPEC = priceSpec('costs');

const simulate = (id: string, runs: number) => ({
  name: 'simulate',
  arguments: {
    id,
    inputs: { '$.cost': { type: 'Uniform', min: 8, max: 18 } },
    outputs: ['$.price'],
    runs,
    seed: 7,
  },
});

async function taskFlow(rpc: Rpc, id: string): Promise<void> {
  const created = await rpc('tools/call', { name: 'create_model', arguments: { spec: { ...SPEC, id } } });
  expect(created.isError).toBeFalsy();
  const withTasks = { extensions: { [TASKS]: {} } };

  // the handle at once, then the result by polling
  const handle = await rpc('tools/call', simulate(id, 2_000), withTasks);
  expect(handle).toMatchObject({
    resultType: 'task',
    status: 'working',
    taskId: expect.any(String),
    ttlMs: expect.any(Number),
    pollIntervalMs: expect.any(Number),
  });
  let task: Json = handle;
  for (let i = 0; i < 200 && task.status === 'working'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    task = await rpc('tasks/get', { taskId: handle.taskId }, withTasks);
  }
  expect(task.status).toBe('completed');
  expect(task.result.structuredContent.runs).toBe(2_000);
  expect(task.result.structuredContent.outputs['$.price'].min).toBeGreaterThanOrEqual(8 * 1.2);

  // a long one, cancelled: it ends cancelled, with no result
  const long = await rpc('tools/call', simulate(id, 100_000), withTasks);
  expect(long.status).toBe('working');
  expect(await rpc('tasks/cancel', { taskId: long.taskId }, withTasks)).not.toHaveProperty('error');
  const cancelled = await rpc('tasks/get', { taskId: long.taskId }, withTasks);
  expect(cancelled.status).toBe('cancelled');
  expect(cancelled).not.toHaveProperty('result');

  // an unknown task is invalid params, naming it
  const unknown = await rpc('tasks/get', { taskId: 'no-such-task' }, withTasks);
  expect(unknown.error).toMatchObject({ code: -32602, data: { taskId: 'no-such-task' } });

  // tasks/* from a client that did not declare the extension: -32021 (missing client capability)
  const undeclared = await rpc('tasks/get', { taskId: handle.taskId }, {});
  expect(undeclared.error).toMatchObject({
    code: -32021,
    data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
  });

  // a client without the extension gets the result itself
  const direct = await rpc('tools/call', simulate(id, 500), {});
  expect(direct.resultType ?? 'complete').toBe('complete');
  expect(direct.structuredContent.runs).toBe(500);

  // quick tools never become tasks
  const read = await rpc('tools/call', { name: 'get_state', arguments: { id } }, withTasks);
  expect(read.resultType ?? 'complete').toBe('complete');
}

describe('2026-07-28 Tasks extension', () => {
  it('over Streamable HTTP', async () => {
    const server = await startHttpServer();
    cleanups.push(() => server.stop());
    const rpc = httpRpc(server.url);
    const discovered = await rpc('server/discover', {});
    expect(discovered.capabilities.extensions).toEqual({ [TASKS]: {} });
    await taskFlow(rpc, 'tasks-http');
  }, 60_000);

  it('over stdio', async () => {
    await taskFlow(stdioRpc(), 'tasks-stdio');
  }, 60_000);
});
