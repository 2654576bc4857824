/**
 * The provider layer (issue 44 point 1) through the official Anthropic and OpenAI clients against
 * the loopback provider: settings, structured output as each provider takes it, failures in our
 * words, the budgets (calls at once, calls per minute) and the key kept out of every output.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InteractionLog,
  LlmClient,
  LlmError,
  llmConfigFromEnv,
  type LlmConfig,
} from '../../src/llm/index.js';
import { startLoopbackLlm, type LoopbackLlm } from '../helpers/loopback-llm.js';

const KEY = 'sk-loopback-SECRET-4f1c9a';
let llm: LoopbackLlm;

beforeAll(async () => {
  llm = await startLoopbackLlm();
});
afterAll(async () => {
  await llm?.close();
});

function config(
  provider: LlmConfig['provider'],
  over: Partial<LlmConfig['budgets']> = {},
  logContent = true,
): LlmConfig {
  const base = llmConfigFromEnv({
    MODELWORKS_LLM_PROVIDER: provider,
    MODELWORKS_LLM_MODEL: 'test-model',
    MODELWORKS_LLM_BASE_URL: provider === 'anthropic' ? llm.anthropicUrl : llm.openaiUrl,
    MODELWORKS_LLM_API_KEY: KEY,
    MODELWORKS_LLM_LOG_CONTENT: String(logContent),
  })!;
  return { ...base, budgets: { ...base.budgets, ...over } };
}

const SCHEMA = { name: 'submit_spec', description: 'The spec', schema: { type: 'object' } };
const call = { system: 'sys', user: 'describe a loan', maxTokens: 100, schema: SCHEMA };

describe('settings', () => {
  it('no provider is no client; a malformed value names its variable and never the key', () => {
    expect(llmConfigFromEnv({})).toBeUndefined();
    expect(() => llmConfigFromEnv({ MODELWORKS_LLM_PROVIDER: 'gemini' })).toThrow(
      /MODELWORKS_LLM_PROVIDER must be one of/,
    );
    expect(() => llmConfigFromEnv({ MODELWORKS_LLM_PROVIDER: 'anthropic' })).toThrow(
      /MODELWORKS_LLM_API_KEY/,
    );
    expect(() =>
      llmConfigFromEnv({ MODELWORKS_LLM_PROVIDER: 'openai-compatible', MODELWORKS_LLM_MODEL: 'llama3.1' }),
    ).toThrow(/MODELWORKS_LLM_BASE_URL is needed/);
    let message = '';
    try {
      llmConfigFromEnv({
        MODELWORKS_LLM_PROVIDER: 'openai',
        MODELWORKS_LLM_API_KEY: KEY,
        MODELWORKS_LLM_MAX_TOKENS: 'lots',
      });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/MODELWORKS_LLM_MAX_TOKENS/);
    expect(message).not.toContain(KEY);
  });

  it('reads the key from MODELWORKS_LLM_API_KEY_FILE; a local endpoint needs none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'llm-key-'));
    writeFileSync(join(dir, 'key'), `${KEY}\n`);
    const c = llmConfigFromEnv({
      MODELWORKS_LLM_PROVIDER: 'anthropic',
      MODELWORKS_LLM_API_KEY_FILE: join(dir, 'key'),
    });
    expect(c?.apiKey).toBe(KEY);
    expect(c?.model).toBe('claude-sonnet-4-6');
    const local = llmConfigFromEnv({
      MODELWORKS_LLM_PROVIDER: 'openai-compatible',
      MODELWORKS_LLM_MODEL: 'llama3.1',
      MODELWORKS_LLM_BASE_URL: 'http://127.0.0.1:11434/v1',
    });
    expect(local).toMatchObject({ apiKey: undefined, structuredOutput: 'json' });
  });
});

describe('the official clients against the loopback provider', () => {
  it('Anthropic: the answer comes back through a forced tool, the key in its auth header', async () => {
    llm.script(['{"id":"loan","schema":{"type":"object"}}']);
    const client = new LlmClient(config('anthropic'));
    const before = llm.requests.length;
    const answer = await client.complete(call, { purpose: 'generate' });
    expect(JSON.parse(answer.text)).toEqual({ id: 'loan', schema: { type: 'object' } });
    expect(answer.truncated).toBe(false);
    expect(answer.inputTokens).toBeGreaterThan(0);
    const sent = llm.requests[before]!;
    expect(sent.path).toBe('/v1/messages');
    // the 1.x client sends the key as a bearer token (older lines used x-api-key)
    expect([sent.headers.authorization, sent.headers['x-api-key']]).toContain(
      sent.headers['x-api-key'] === undefined ? `Bearer ${KEY}` : KEY,
    );
    expect(sent.body.tool_choice).toEqual({ type: 'tool', name: 'submit_spec' });
    expect(sent.body.system).toBe('sys');
  });

  it('OpenAI: response_format json_schema, the key as a bearer token; a cut-off answer says so', async () => {
    llm.script([{ text: '{"id":"lo', truncated: true }]);
    const client = new LlmClient(config('openai'));
    const before = llm.requests.length;
    const answer = await client.complete(call, { purpose: 'generate' });
    expect(answer).toMatchObject({ text: '{"id":"lo', truncated: true });
    const sent = llm.requests[before]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'submit_spec' },
    });
    expect(client.log.list()[0]).toMatchObject({
      outcome: 'truncated',
      provider: 'openai',
      model: 'test-model',
    });
  });

  it('a refused key is LLM_FAILED in our words; the log records it without the key', async () => {
    llm.script([{ status: 401 }]);
    const client = new LlmClient(config('anthropic'));
    const err = await client.complete(call, { purpose: 'generate' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).code).toBe('LLM_FAILED');
    expect((err as LlmError).status).toBe(502);
    expect((err as LlmError).message).toMatch(/refused the key \(HTTP 401\)/);
    expect((err as LlmError).message).not.toContain('scripted failure');
    const logged = JSON.stringify(client.log.list());
    expect(logged).toContain('"outcome":"failed"');
    expect(logged).not.toContain(KEY);
  });

  it('MODELWORKS_LLM_LOG_CONTENT=false keeps sizes and outcomes only', async () => {
    llm.script(['{"ok":true}']);
    const client = new LlmClient(config('openai', {}, false));
    await client.complete(call, { purpose: 'effect' });
    const [record] = client.log.list();
    expect(record).toMatchObject({
      system: '[redacted]',
      user: '[redacted]',
      response: '[redacted]',
      outcome: 'ok',
    });
    expect(record!.promptChars).toBe('sys'.length + 'describe a loan'.length);
    expect(record!.responseChars).toBe('{"ok":true}'.length);
  });
});

describe('the interactions log', () => {
  it('scrubs the key from any text it keeps (a provider echoing it in an error) and stays bounded', () => {
    const log = new InteractionLog(2, true, KEY);
    const record = {
      timestamp: '2026-12-05T00:00:00.000Z',
      purpose: 'generate' as const,
      provider: 'openai',
      model: 'm',
      system: `s ${KEY}`,
      user: 'u',
      response: `r ${KEY}`,
      errorMessage: `bad key ${KEY}`,
      outcome: 'failed' as const,
      durationMs: 1,
      promptChars: 1,
      responseChars: 1,
      inputTokens: 0,
      outputTokens: 0,
    };
    for (let i = 0; i < 3; i++) log.add({ ...record, user: `u${i}` });
    const kept = log.list();
    expect(kept.map((r) => r.user)).toEqual(['u2', 'u1']);
    expect(JSON.stringify(kept)).not.toContain(KEY);
    expect(kept[0]!.errorMessage).toBe('bad key [key]');
  });
});

describe('budgets', () => {
  it('one call at a time with no queue: a second concurrent call is refused BUSY', async () => {
    llm.script([{ text: '{}', delayMs: 300 }]);
    const client = new LlmClient(config('openai', { concurrency: 1, queue: 0 }));
    const first = client.complete(call, { purpose: 'generate' });
    const second = await client.complete(call, { purpose: 'generate' }).catch((e: unknown) => e);
    expect((second as LlmError).code).toBe('BUSY');
    await first;
  });

  it('requests per minute: past the limit a call waits, and its caller can give up', async () => {
    llm.script(['{}']);
    const client = new LlmClient(config('openai', { requestsPerMinute: 1 }));
    await client.complete(call, { purpose: 'generate' });
    const before = llm.requests.length;
    const started = Date.now();
    const waited = await client
      .complete(call, { purpose: 'generate', signal: AbortSignal.timeout(300) })
      .catch((e: unknown) => e);
    expect(waited).toBeInstanceOf(Error);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(llm.requests.length).toBe(before); // never sent
  });

  it('each call has its own timeout', async () => {
    llm.script([{ text: '{}', delayMs: 2000 }]);
    const client = new LlmClient(config('anthropic', { requestTimeoutMs: 200 }));
    const err = await client.complete(call, { purpose: 'generate' }).catch((e: unknown) => e);
    expect((err as LlmError).code).toBe('LLM_FAILED');
    expect((err as LlmError).message).toMatch(/did not answer within/);
  });
});
