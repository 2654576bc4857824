// A loopback language-model provider for tests: a node:http server speaking Anthropic's Messages
// API (POST /v1/messages) and OpenAI's Chat Completions (POST /v1/chat/completions) with scripted
// answers, reached through the official client libraries by base URL. It records every request
// (headers and body) so a test can check what the clients sent.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer: text (JSON or not), optionally truncated, an HTTP failure, or a delay. */
export interface ScriptedAnswer {
  text?: string;
  truncated?: boolean;
  status?: number;
  delayMs?: number;
}

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface LoopbackLlm {
  /** Base URL for Anthropic's client (it appends /v1/messages). */
  anthropicUrl: string;
  /** Base URL for OpenAI's client (it appends /chat/completions). */
  openaiUrl: string;
  requests: RecordedRequest[];
  /** Replaces the script; answers are used in order, the last one repeats. */
  script(answers: (ScriptedAnswer | string)[]): void;
  close(): Promise<void>;
}

const TOKENS_PER_CHAR = 0.25;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function promptChars(body: Record<string, unknown>): number {
  return JSON.stringify(body.messages ?? '').length + JSON.stringify(body.system ?? '').length;
}

function anthropicAnswer(body: Record<string, unknown>, a: ScriptedAnswer): Record<string, unknown> {
  const text = a.text ?? '';
  const forced = body.tool_choice as { type?: string; name?: string } | undefined;
  const input = parsed(text);
  const asTool = forced?.type === 'tool' && input !== null && typeof input === 'object' && !a.truncated;
  return {
    id: `msg_${Math.random().toString(36).slice(2)}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content: asTool
      ? [{ type: 'tool_use', id: 'toolu_1', name: forced.name, input }]
      : [{ type: 'text', text }],
    stop_reason: a.truncated ? 'max_tokens' : asTool ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: Math.ceil(promptChars(body) * TOKENS_PER_CHAR),
      output_tokens: Math.ceil(text.length * TOKENS_PER_CHAR),
    },
  };
}

function openaiAnswer(body: Record<string, unknown>, a: ScriptedAnswer): Record<string, unknown> {
  const text = a.text ?? '';
  const prompt = Math.ceil(promptChars(body) * TOKENS_PER_CHAR);
  const completion = Math.ceil(text.length * TOKENS_PER_CHAR);
  return {
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text },
        finish_reason: a.truncated ? 'length' : 'stop',
      },
    ],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

export async function startLoopbackLlm(initial: (ScriptedAnswer | string)[] = []): Promise<LoopbackLlm> {
  let answers: ScriptedAnswer[] = [];
  let next = 0;
  const requests: RecordedRequest[] = [];
  const script = (list: (ScriptedAnswer | string)[]): void => {
    answers = list.map((a) => (typeof a === 'string' ? { text: a } : a));
    next = 0;
  };
  script(initial);
  const server: Server = createServer((req, res) => {
    void readBody(req).then(async (text) => {
      const body = (parsed(text) ?? {}) as Record<string, unknown>;
      const path = (req.url ?? '').split('?')[0] ?? '';
      requests.push({ path, headers: req.headers, body });
      const answer = answers[Math.min(next, answers.length - 1)] ?? { text: '' };
      next++;
      if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
      if (answer.status) {
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'scripted_error', message: 'scripted failure' } }));
        return;
      }
      const out =
        path === '/v1/messages'
          ? anthropicAnswer(body, answer)
          : path === '/v1/chat/completions'
            ? openaiAnswer(body, answer)
            : undefined;
      if (!out) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such route"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const root = `http://127.0.0.1:${port}`;
  return {
    anthropicUrl: root,
    openaiUrl: `${root}/v1`,
    requests,
    script,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
