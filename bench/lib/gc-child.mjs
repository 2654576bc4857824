// One case of bench/mcp-gc.mjs, run under `node --trace-gc-nvp`: V8 prints a line per collection
// on stdout, so nothing here may print there but the two markers the parent reads. The servers are
// driven in-process over a transport that hands messages straight over (no stdio), so the
// collections measured are the server's own work and nothing else's.
import { calcServer, demoSpec, directClient, echoServer } from './direct-mcp.mjs';

const [which, countText] = process.argv.slice(2);
const N = Number(countText);

/** A request-sized object graph, as a server parses one off the wire. */
const requestLike = (i) => ({
  jsonrpc: '2.0',
  id: i,
  method: 'tools/call',
  params: { name: 'mutate', arguments: { id: 'demo', mutations: { '$.price': i % 100, '$.qty': 3 } } },
});

/** Each case: set-up, then one call of the measured loop. */
const cases = {
  async echo() {
    const call = await directClient(await echoServer());
    return (i) => call('echo', { text: `hello ${i}` });
  },
  async mutate() {
    const call = await directClient(await calcServer());
    await call('create_model', { spec: demoSpec('demo') });
    return (i) => call('mutate', { id: 'demo', mutations: { '$.price': i % 100, '$.qty': 3 } });
  },
  async unchanged() {
    const call = await directClient(await calcServer());
    await call('create_model', { spec: demoSpec('still') });
    const still = { id: 'still', mutations: { '$.price': 7, '$.qty': 3 } };
    await call('mutate', still);
    return async () => {
      const result = await call('mutate', still);
      if (result.structuredContent?.unchanged !== true) throw new Error('unchanged write: a cycle ran');
    };
  },
  // what the SDK does with each inbound request before dispatching it: asks whether it is a
  // response (two safeParse calls that fail) and whether it is a request (one that passes)
  async 'zod-fail'() {
    const { z } = await import('zod');
    const response = z
      .object({ jsonrpc: z.literal('2.0'), id: z.number(), result: z.looseObject({}) })
      .strict();
    return (i) => {
      if (response.safeParse(requestLike(i)).success) throw new Error('a request parsed as a response');
    };
  },
  async 'zod-pass'() {
    const { z } = await import('zod');
    const request = z
      .object({ jsonrpc: z.literal('2.0'), id: z.number(), method: z.string(), params: z.looseObject({}) })
      .strict();
    return (i) => {
      if (!request.safeParse(requestLike(i)).success) throw new Error('a request did not parse');
    };
  },
  // the SDK makes an AbortController per request and reads its signal into the handler's context
  async 'abort-signal'() {
    return (i) => {
      const controller = new AbortController();
      controller.payload = requestLike(i);
      if (controller.signal.aborted) throw new Error('aborted');
    };
  },
  async 'abort-controller'() {
    return (i) => {
      const controller = new AbortController();
      controller.payload = requestLike(i);
      if (controller.payload.id !== i) throw new Error('lost');
    };
  },
};

const make = cases[which];
if (!make) throw new Error(`unknown case '${which}'; one of ${Object.keys(cases).join(', ')}`);
const once = await make();
// warm-up: our mutate needs ~3,000 calls before its code is optimised (bench/mcp-cold.mjs)
for (let i = 0; i < 5000; i++) await once(i);
process.stdout.write('gc-bench: measure\n');
const started = performance.now();
for (let i = 0; i < N; i++) await once(i);
process.stdout.write(`gc-bench: done ${N} ${(performance.now() - started).toFixed(1)}\n`);
