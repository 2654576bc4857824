// A scripted console session in a real terminal (tmux): create, mutate and explain a model, with
// Tab completion of commands and model ids, and line history. Needs tmux and a build.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { AddressInfo } from 'node:net';
import { runLine } from '../../src/cli/console.js';
import { CalcClient } from '../../src/remote/calc-client.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { testApp } from '../http/helpers.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'dist/cli/main.js');
const TMUX = '/usr/bin/tmux';
const socket = `modelworks-console-${process.pid}`;
const tmp = mkdtempSync(join(tmpdir(), 'modelworks-console-'));

const tmux = (...args: string[]) => execFileSync(TMUX, ['-L', socket, ...args], { encoding: 'utf8' });
const screen = () =>
  tmux('capture-pane', '-p', '-J', '-S', '-2000', '-t', 'console')
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
const type = (text: string) => tmux('send-keys', '-t', 'console', '-l', text);
const press = (...keys: string[]) => tmux('send-keys', '-t', 'console', ...keys);

/** Waits until the pane shows `pattern` (counted from `from` occurrences on). */
async function waitFor(pattern: string | RegExp, times = 1): Promise<string> {
  return vi.waitFor(
    () => {
      const text = screen();
      const count =
        typeof pattern === 'string'
          ? text.split(pattern).length - 1
          : (text.match(new RegExp(pattern, `${pattern.flags}g`)) ?? []).length;
      if (count < times) throw new Error(`waiting for ${String(pattern)}; screen:\n${text}`);
      return text;
    },
    { timeout: 20_000, interval: 100 },
  );
}

afterAll(() => {
  spawnSync(TMUX, ['-L', socket, 'kill-server']);
});

describe.skipIf(!existsSync(TMUX))('modelworks calc console in a terminal', () => {
  it('creates, mutates and explains a model, completing with Tab and recalling history', async () => {
    const spec = join(tmp, 'loan.json');
    writeFileSync(
      spec,
      JSON.stringify({
        id: 'loan-demo',
        version: '1',
        schema: {},
        derivations: [{ path: '$.total', expr: 'price * qty' }],
      }),
    );
    tmux(
      'new-session',
      '-d',
      '-s',
      'console',
      '-x',
      '160',
      '-y',
      '50',
      `MODELWORKS_STORE=memory ${process.execPath} ${cli} calc console`,
    );
    await waitFor('modelworks>');

    type(`create ${spec}`);
    press('Enter');
    await waitFor('"derivationCount": 1');

    // Tab completes a command name, then a model id
    type('se');
    press('Tab');
    await waitFor(/modelworks> set$/m);
    type('lo');
    press('Tab');
    await waitFor(/modelworks> set loan-demo$/m);
    type('$.price=6 $.qty=7');
    press('Enter');
    const mutated = await waitFor('"derivedUpdated"');
    expect(mutated).toContain('set loan-demo $.price=6 $.qty=7');

    type('expl');
    press('Tab');
    await waitFor(/modelworks> explain$/m);
    type('loan');
    press('Tab');
    await waitFor(/modelworks> explain loan-demo$/m);
    type('$.total');
    press('Enter');
    const explained = await waitFor('"result": 42');
    expect(explained).toContain('explain loan-demo $.total');
    expect(explained).toContain('"expression": "price * qty"');

    // history: Up twice recalls the set command; change a value and run it again
    press('Up', 'Up');
    await waitFor(/modelworks> set loan-demo \$\.price=6 \$\.qty=7$/m);
    press('BSpace');
    type('8');
    press('Enter');
    type('get loan-demo $.total');
    press('Enter');
    await waitFor(/^48$/m);

    type('quit');
    press('Enter');
  });
});

describe('console commands (in-process)', () => {
  it('reports errors with their code and details, and usage problems', async () => {
    const calc = new CalcService(new MemoryStore());
    const lines: string[] = [];
    const out = (t: string) => lines.push(t);
    await runLine(
      calc,
      'create {"id":"c","version":"1","schema":{"type":"object","properties":{"n":{"type":"number"}}}}',
      out,
    );
    await runLine(calc, 'set c $.n="x"', out);
    expect(lines.at(-1)).toMatch(/^error \(SCHEMA_VIOLATION\)/);
    // a write at the console is a person's in the audit trail (it read `client` before)
    await runLine(calc, 'set c $.n=3', out);
    expect((await calc.getAudit('c', { limit: 10 })).map((r) => r.source)).toContain('person');
    await runLine(calc, 'get c', out);
    expect(lines.at(-1)).toBe('error: usage: get <id> <path>');
    await runLine(calc, 'info nope', out);
    expect(lines.at(-1)).toBe('error (MODEL_NOT_FOUND): Model not found: nope');
    expect(await runLine(calc, 'quit', out)).toBe(false);
    await calc.close();
  });

  it('works the same against a server, through the REST client', async () => {
    const t = await testApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const remote = new CalcClient({
      url: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`,
    });
    const lines: string[] = [];
    const out = (text: string) => lines.push(text);
    try {
      await runLine(
        remote,
        'create {"id":"r","version":"1","schema":{},"derivations":[{"path":"$.total","expr":"price * qty"}]}',
        out,
      );
      await runLine(remote, 'set r $.price=2 $.qty=21', out);
      await runLine(remote, 'get r $.total', out);
      expect(lines.at(-1)).toBe('42');
      expect(await t.calc.getField('r', '$.total')).toBe(42);
      await runLine(remote, 'explain r $.total limit=1', out);
      expect(JSON.parse(lines.at(-1)!)).toEqual([
        expect.objectContaining({ targetPath: '$.total', result: 42 }),
      ]);
      await runLine(remote, 'list', out);
      expect(JSON.parse(lines.at(-1)!)).toEqual(['r']);
    } finally {
      await remote.close();
      await t.close();
    }
  });
});
