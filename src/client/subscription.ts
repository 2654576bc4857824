/**
 * A reconnecting, resuming subscription to one model's changes over the server's WebSocket
 * (`/models/{id}/subscribe`). Only the WebSocket API every platform shares is used (browsers'
 * and `ws`'s): `on*` handlers, `close()`, string frames.
 */
import type { JsonValue } from '../calc/index.js';
import type { ModelEvent } from '../service/calc-api.js';

/** The part of the WebSocket API the subscription uses. */
export interface SocketLike {
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  close(code?: number, reason?: string): void;
}

export type SocketConstructor = new (url: string) => SocketLike;

/**
 * After a reconnect: the model as it is now. `missed` says whether changes committed while the
 * socket was down (the revision moved further than the events received account for).
 */
export interface ResumedEvent {
  kind: 'resumed';
  modelId: string;
  revision: number;
  state: JsonValue;
  missed: boolean;
}

export type SubscriptionEvent = ModelEvent | ResumedEvent;

export interface SubscriptionHandlers {
  onEvent(event: SubscriptionEvent): void;
  /** The server has registered the subscription (again, after a reconnect). */
  onOpen?(): void;
  /** The socket dropped; `willRetry` false once the subscription has ended for good. */
  onClose?(info: { code: number; reason: string; willRetry: boolean }): void;
  onError?(error: Error): void;
  /** Only mutation frames touching these address prefixes. */
  paths?: string[];
  /** Reconnect delays in ms: the first, doubled up to the cap (default 250 → 8000). */
  backoff?: { initialMs?: number; maxMs?: number };
}

export interface Subscription {
  /** Settles once the server has registered the first socket. */
  readonly ready: Promise<void>;
  /** Ends the subscription for good (no reconnect). */
  close(): void;
}

interface OpenOptions {
  url: string;
  modelId: string;
  Socket: SocketConstructor;
  readState: () => Promise<{ state: JsonValue; revision: number }>;
  handlers: SubscriptionHandlers;
}

/** A normal close the server makes when the model is deleted: nothing to come back to. */
const FINAL_CODES = new Set([1000]);

export function openSubscription(options: OpenOptions): Subscription {
  const { handlers } = options;
  const initialMs = handlers.backoff?.initialMs ?? 250;
  const maxMs = handlers.backoff?.maxMs ?? 8000;
  let delay = initialMs;
  let closed = false;
  let socket: SocketLike | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The revision last read, and how many change frames came after it. */
  let base: number | undefined;
  let seen = 0;
  let connections = 0;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const fail = (err: unknown): void =>
    handlers.onError?.(err instanceof Error ? err : new Error(String(err)));

  const resume = async (): Promise<void> => {
    try {
      const { state, revision } = await options.readState();
      const missed = base === undefined ? false : revision !== base + seen;
      base = revision;
      seen = 0;
      handlers.onEvent({ kind: 'resumed', modelId: options.modelId, revision, state, missed });
    } catch (err) {
      fail(err);
    }
  };

  const connect = (): void => {
    if (closed) return;
    const ws = new options.Socket(options.url);
    socket = ws;
    let deleted = false;
    ws.onmessage = (message) => {
      if (typeof message.data !== 'string') return;
      let frame: SubscriptionEvent | { kind: 'subscribed' };
      try {
        frame = JSON.parse(message.data) as SubscriptionEvent | { kind: 'subscribed' };
      } catch {
        return;
      }
      if (frame.kind === 'subscribed') {
        delay = initialMs;
        connections += 1;
        handlers.onOpen?.();
        markReady();
        if (connections === 1) {
          // the base revision for the next resume; read once the listener is on
          void options
            .readState()
            .then((r) => {
              base ??= r.revision - seen;
            })
            .catch(() => {});
        } else void resume();
        return;
      }
      if (frame.kind === 'deleted') deleted = true;
      seen += 1;
      handlers.onEvent(frame);
    };
    ws.onerror = () => {
      // the close that follows decides what happens next
    };
    ws.onclose = (event) => {
      if (socket === ws) socket = undefined;
      const willRetry = !closed && !(deleted && FINAL_CODES.has(event.code));
      handlers.onClose?.({ code: event.code, reason: event.reason, willRetry });
      if (!willRetry) {
        markReady();
        return;
      }
      timer = setTimeout(connect, delay);
      delay = Math.min(delay * 2, maxMs);
    };
  };

  connect();
  return {
    ready,
    close: () => {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      socket?.close(1000, 'closed by the client');
      socket = undefined;
      markReady();
    },
  };
}
