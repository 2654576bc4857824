/**
 * fetch adapter for the synth service port: one GET per round with a timeout, redirects followed
 * by hand (at most 5) and only to URLs the allowlist accepts, bodies capped at 8 MiB.
 */
import type { ServicePort, ServiceRequest } from '../synth/index.js';

const MAX_REDIRECTS = 5;
const MAX_BODY = 8 * 1024 * 1024;

async function readCapped(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY) {
      await reader.cancel();
      throw new Error(`response larger than ${MAX_BODY} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export const fetchServicePort: ServicePort = {
  async fetch(request: ServiceRequest): Promise<string> {
    let url = request.url;
    for (let hop = 0; ; hop++) {
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'GET',
          headers: { ...request.headers, 'x-modelworks-round': String(request.round) },
          redirect: 'manual',
          signal: AbortSignal.timeout(request.timeoutMs),
        });
      } catch (err) {
        const e = err as Error & { cause?: { code?: unknown } };
        // fetch's own text says little ("fetch failed"); the cause's code says what happened
        const code = typeof e.cause?.code === 'string' ? e.cause.code : undefined;
        throw new Error(
          e.name === 'TimeoutError'
            ? `no answer from ${url} within ${request.timeoutMs} ms`
            : `cannot reach ${url}${code === undefined ? '' : ` (${code})`}`,
        );
      }
      if (res.status >= 300 && res.status < 400 && res.headers.has('location')) {
        await res.body?.cancel();
        const to = new URL(res.headers.get('location')!, url).href;
        if (!request.allowRedirect(to))
          throw new Error(`redirect from ${url} to ${to} refused: not on the service URL allowlist`);
        if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects from ${request.url}`);
        url = to;
        continue;
      }
      if (!res.ok) {
        await res.body?.cancel();
        throw new Error(`${url} answered HTTP ${res.status}`);
      }
      return readCapped(res);
    }
  },
};
