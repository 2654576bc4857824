// `modelworks calc generate` as a user runs it (a child process on dist/cli/main.js) against the
// loopback provider: progress on stderr in order, the spec written to --out, the key nowhere in
// the output; without a provider, exit 2 saying how to configure one.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONVERGING_SCRIPT, loanSpec } from '../helpers/generation-specs.js';
import { startLoopbackLlm, type LoopbackLlm } from '../helpers/loopback-llm.js';
import { cli, root, type CliResult } from './cli-process.js';

const KEY = 'sk-cli-KEY-0e77';
let llm: LoopbackLlm;

beforeAll(async () => {
  llm = await startLoopbackLlm();
});
afterAll(async () => {
  await llm?.close();
});

/** Runs the CLI without blocking this process (the loopback provider answers from here). */
function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('MODELWORKS_LLM_')),
  );
  const child = spawn(process.execPath, [cli, ...args], {
    cwd: root,
    env: { ...clean, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('modelworks calc generate', () => {
  it('converges, reporting each phase on stderr, and writes the spec to --out', async () => {
    llm.script(CONVERGING_SCRIPT);
    const out = join(mkdtempSync(join(tmpdir(), 'gen-cli-')), 'spec.json');
    const r = await runCli(
      ['calc', 'generate', 'a car loan with a deposit', '--model-id', 'car-loan', '--out', out],
      {
        MODELWORKS_LLM_PROVIDER: 'openai',
        MODELWORKS_LLM_MODEL: 'cli-model',
        MODELWORKS_LLM_BASE_URL: llm.openaiUrl,
        MODELWORKS_LLM_API_KEY: KEY,
      },
    );
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(loanSpec('car-loan'));
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe('modelworks: attempt 1: asking openai (cli-model)');
    expect(lines[1]).toMatch(/^modelworks: attempt 1: 1 problem\(s\): root: the answer is not valid JSON/);
    expect(lines).toContain('modelworks: attempt 3: 1 embedded test(s) failed');
    expect(lines.at(-2)).toBe(
      "modelworks: valid spec 'car-loan' after 4 attempt(s); embedded tests 1/1 passed (green)",
    );
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it('without a provider exits 2 saying how to configure one', async () => {
    const r = await runCli(['calc', 'generate', 'a car loan'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /LLM_NOT_CONFIGURED: No language-model provider is configured: set MODELWORKS_LLM_PROVIDER/,
    );
  });

  it('a malformed setting exits 2 naming it', async () => {
    const r = await runCli(['calc', 'generate', 'a car loan'], { MODELWORKS_LLM_PROVIDER: 'palm' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/MODELWORKS_LLM_PROVIDER must be one of anthropic, openai, openai-compatible/);
  });
});
