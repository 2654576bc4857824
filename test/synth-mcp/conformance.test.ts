// The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.13) against the
// synth-only server on Streamable HTTP, started the way the docs say: MODELWORKS_MCP_TRANSPORT=http
// with MODELWORKS_MCP_HTTP_PORT (0 here, any free port). Every failure must be listed, with its
// reason, in test/synth-mcp/conformance-baseline.yml.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectConformance } from '../mcp/helpers/conformance.js';
import { SKIRMISH, SYNTH_TOOLS, childEnv, cli, grindBytes, root, type Json } from './helpers.js';
import { within } from '../helpers/time.js';

describe('synth-only MCP server over Streamable HTTP', () => {
  let url: string;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    const child = spawn(process.execPath, [cli, 'mcp', '--tools', 'synth'], {
      cwd: root,
      env: childEnv({ MODELWORKS_MCP_TRANSPORT: 'http', MODELWORKS_MCP_HTTP_PORT: '0' }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    stop = async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    };
    let stderr = '';
    url = await within(
      20_000,
      'the server announcing its URL',
      new Promise<string>((resolve) => {
        child.stderr.on('data', (c: Buffer) => {
          stderr += c.toString('utf8');
          const m = /MCP over Streamable HTTP at (http:\/\/\S+\/mcp)/.exec(stderr);
          if (m) resolve(m[1]!);
        });
      }),
    ).catch((err: Error) => {
      throw new Error(`${err.message}: ${stderr}`);
    });
  });
  afterAll(async () => {
    await stop?.();
  });

  it('binds loopback by default and serves the synth tools; generated pages equal grind', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: 'synth-http-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(SYNTH_TOOLS);
      const g = (
        await client.callTool({
          name: 'generate',
          arguments: { modelText: SKIRMISH, count: 400, seed: 5, previewLimit: 100 },
        })
      ).structuredContent as Json;
      let text = g.preview as string;
      let offset = g.rowCount as number;
      while (offset < g.totalCount) {
        const page = (
          await client.callTool({
            name: 'read_generation',
            arguments: { generationId: g.generationId, offset, limit: 150 },
          })
        ).structuredContent as Json;
        text += page.data;
        offset += page.rowCount;
      }
      expect(text).toBe(await grindBytes(SKIRMISH, ['--seed', '5', '--count', '400']));
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  });

  it('passes every conformance scenario not in the baseline, and every baseline entry still fails', async () => {
    await expectConformance(url, join(root, 'test/synth-mcp/conformance-baseline.yml'));
  }, 150_000);
});
