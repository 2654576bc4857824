/**
 * Keeps one model fresh: a WebSocket on its change feed calls `reload` after every frame; when the
 * socket cannot open or drops, the page falls back to polling every few seconds.
 */
import { useEffect, useRef, useState } from 'react';
import type { SandboxApi } from './api';

export const POLL_MS = 2000;

export type LiveMode = 'connecting' | 'live' | 'polling';

export function useLiveModel(api: SandboxApi, id: string, reload: () => void): LiveMode {
  const [mode, setMode] = useState<LiveMode>('connecting');
  const reloadRef = useRef(reload);
  reloadRef.current = reload;

  useEffect(() => {
    let closed = false;
    let timer: ReturnType<typeof setInterval> | undefined;
    const poll = (): void => {
      if (closed || timer !== undefined) return;
      setMode('polling');
      timer = setInterval(() => reloadRef.current(), POLL_MS);
    };
    let socket: WebSocket | undefined;
    try {
      socket = new WebSocket(api.subscribeUrl(id));
    } catch {
      poll();
    }
    if (socket) {
      socket.onmessage = (event: MessageEvent) => {
        let kind: unknown;
        try {
          kind = (JSON.parse(String(event.data)) as { kind?: unknown }).kind;
        } catch {
          return;
        }
        if (kind === 'subscribed') setMode('live');
        // the change may have landed between the first read and the subscription: read again
        reloadRef.current();
      };
      socket.onclose = () => poll();
      socket.onerror = () => poll();
    }
    return () => {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      if (socket) {
        socket.onclose = null;
        socket.onerror = null;
        socket.onmessage = null;
        socket.close();
      }
    };
  }, [api, id]);

  return mode;
}
