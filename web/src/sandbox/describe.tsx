/**
 * The sandbox's "Describe a model" box (issue 44): a description in plain language goes to
 * POST /models/generate/stream with `create: true`; the server's provider drafts, repairs and tests
 * a spec while the box shows each progress frame, and the created model (in the session's
 * namespace) is opened. Without a provider on the server the box shows the server's words (503).
 */
import { useCallback, useId, useState, type Dispatch, type FormEvent, type SetStateAction } from 'react';
import { TOKEN_KEY } from './api';

type Frame = {
  phase: string;
  attempt: number;
  errors?: string[];
  failCount?: number;
  provider?: string;
  model?: string;
};

/** A progress frame in words. */
export function frameText(f: Frame): string {
  switch (f.phase) {
    case 'llm_requesting':
      return `Attempt ${f.attempt}: asking ${f.provider ?? 'the model'}…`;
    case 'validating':
      return `Attempt ${f.attempt}: checking the spec`;
    case 'validation_failed':
      return `Attempt ${f.attempt}: ${f.errors?.[0] ?? 'problems found'}`;
    case 'test_running':
      return `Attempt ${f.attempt}: running its tests`;
    case 'test_failed':
      return `Attempt ${f.attempt}: ${f.failCount ?? 1} test(s) failed, repairing`;
    case 'retrying':
      return `Attempt ${f.attempt}`;
    default:
      return `Attempt ${f.attempt}: ${f.phase}`;
  }
}

function token(): string {
  try {
    return window.sessionStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

/** The server's words for a refused request (problem details), else its status. */
async function refusal(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { detail?: unknown; message?: unknown };
    if (typeof body.detail === 'string') return body.detail;
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: the status says enough
  }
  return `The server answered ${res.status}`;
}

/** Reads `event:`/`data:` frames off the response body as they arrive. */
async function readEvents(res: Response, on: (event: string, data: unknown) => void): Promise<void> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1];
      on(event, data === undefined ? null : (JSON.parse(data) as unknown));
    }
  }
}

/** A model the box created: listed and opened at once, before the sandbox's next refresh. */
export function useOpenCreated(
  setModels: Dispatch<SetStateAction<string[] | null>>,
  setSelected: (id: string) => void,
): (id: string) => void {
  return useCallback(
    (id: string) => {
      setModels((old) => (old && !old.includes(id) ? [...old, id] : old));
      setSelected(id);
    },
    [setModels, setSelected],
  );
}

/** The streamed generation: progress lines, the error, and the model opened when created. */
function useGenerate(onCreated: (id: string) => void) {
  const [lines, setLines] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const start = (body: Record<string, unknown>): void => {
    setBusy(true);
    setError(null);
    setLines([]);
    void fetch('/models/generate/stream', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-session-token': token(),
        accept: 'text/event-stream',
      },
      body: JSON.stringify(body),
    })
      .then(async (res) => {
        if (!res.ok) return setError(await refusal(res));
        await readEvents(res, (event, data) => {
          const d = (data ?? {}) as Record<string, unknown>;
          if (event === 'progress') setLines((old) => [...old, frameText(d as unknown as Frame)]);
          else if (event === 'error')
            setError(typeof d.message === 'string' ? d.message : 'The generation failed');
          else if (event === 'done') {
            const created = d.created as { id?: unknown } | null | undefined;
            const createError = d.createError as { message?: unknown } | undefined;
            if (created && typeof created.id === 'string') {
              setLines((old) => [...old, `Created ${created.id}`]);
              onCreated(created.id);
            } else
              setError(
                typeof createError?.message === 'string' ? createError.message : 'The model was not created',
              );
          }
        });
      })
      .catch((err: unknown) => setError(err instanceof Error ? err.message : String(err)))
      .finally(() => setBusy(false));
  };
  return { lines, busy, error, start };
}

export function DescribeModel({ onCreated }: { onCreated: (id: string) => void }) {
  const [description, setDescription] = useState('');
  const [name, setName] = useState('');
  const { lines, busy, error, start } = useGenerate(onCreated);
  const ids = useId();

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (busy || description.trim() === '') return;
    start({ description, includeView: true, create: true, ...(name.trim() ? { modelId: name.trim() } : {}) });
  };

  return (
    <section className="describe" aria-label="Describe a model">
      <h2>Describe a model</h2>
      <form onSubmit={submit}>
        <label htmlFor={`${ids}-text`}>What should it compute?</label>
        <textarea
          id={`${ids}-text`}
          rows={4}
          maxLength={5000}
          value={description}
          placeholder="A car loan with a deposit that can't exceed the price…"
          onChange={(e) => setDescription(e.target.value)}
        />
        <label htmlFor={`${ids}-name`}>Name (optional)</label>
        <input id={`${ids}-name`} value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit" disabled={busy || description.trim() === ''}>
          {busy ? 'Generating…' : 'Generate'}
        </button>
      </form>
      {lines.length > 0 && (
        <ol className="describe-progress" role="log" aria-label="Generation progress">
          {lines.map((l, i) => (
            <li key={i}>{l}</li>
          ))}
        </ol>
      )}
      {error && (
        <p className="callout error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
