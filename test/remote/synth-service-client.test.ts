/**
 * The synth Service client's failures when the connection itself fails: refused before any answer,
 * or dropped while the answer's body is being read. Both are SERVICE_UNREACHABLE (naming the URL),
 * never an INTERNAL error; a cancelled call is CANCELLED.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SynthServiceClient } from '../../src/remote/synth-service-client.js';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  if (server?.listening) await new Promise((r) => server!.close(r));
  server = undefined;
});

/** A server that sends a status line and half a JSON body, then drops the connection. */
async function breakingServer(onHalfSent?: () => void): Promise<string> {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"modelId":"m-1","rows":[[1,');
    if (onHalfSent) onHalfSent();
    else setImmediate(() => res.socket?.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('synth Service client: a broken connection', () => {
  it('reports an answer that breaks off midway as SERVICE_UNREACHABLE, naming the URL', async () => {
    const url = await breakingServer();
    const client = new SynthServiceClient({ baseUrl: url });
    await expect(client.register('<model/>')).rejects.toMatchObject({
      code: 'SERVICE_UNREACHABLE',
      message: expect.stringContaining(`synth Service at ${url} (the answer broke off`),
    });
  });

  it('reports a refused connection as SERVICE_UNREACHABLE', async () => {
    const url = await breakingServer();
    await new Promise((r) => server!.close(r)); // nothing listens on the port any more
    const client = new SynthServiceClient({ baseUrl: url });
    await expect(client.register('<model/>')).rejects.toMatchObject({ code: 'SERVICE_UNREACHABLE' });
  });

  it('reports a call cancelled while its answer is read as CANCELLED', async () => {
    const abort = new AbortController();
    const url = await breakingServer(() => setImmediate(() => abort.abort()));
    const client = new SynthServiceClient({ baseUrl: url });
    await expect(client.register('<model/>', abort.signal)).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});
