/**
 * Resumable Streamable HTTP: each session keeps the newest events it sent on its SSE streams, so a
 * client that lost a stream reconnects with `Last-Event-ID` and gets what it missed (the SDK's
 * transport writes a priming event with an id, and the retry hint, on each POST stream of a
 * 2025-11-25 client, and replays through this store). Bounded per session by count and by bytes;
 * the oldest events go first, and an id that has gone is answered as unknown.
 */
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

export interface EventStoreLimits {
  /** Events kept per session; 0 turns resumption off (no store, no priming events). */
  maxEvents: number;
  /** Bytes of event text kept per session (the newest event is kept whatever its size). */
  maxBytes: number;
}

interface StoredEvent {
  streamId: string;
  message: JSONRPCMessage;
  bytes: number;
}

/** One session's events, oldest first. Event ids are opaque to clients: a counter here. */
export class SessionEventStore implements EventStore {
  private readonly events = new Map<string, StoredEvent>();
  private bytes = 0;
  private next = 1;

  constructor(private readonly limits: EventStoreLimits) {}

  /** Events held now (tests and the operator's figures). */
  get size(): number {
    return this.events.size;
  }

  get heldBytes(): number {
    return this.bytes;
  }

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = String(this.next++);
    const bytes = Buffer.byteLength(JSON.stringify(message));
    this.events.set(id, { streamId, message, bytes });
    this.bytes += bytes;
    for (const [oldest, event] of this.events) {
      if (this.events.size <= 1) break;
      if (this.events.size <= this.limits.maxEvents && this.bytes <= this.limits.maxBytes) break;
      this.events.delete(oldest);
      this.bytes -= event.bytes;
    }
    return Promise.resolve(id);
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return Promise.resolve(this.events.get(eventId)?.streamId);
  }

  /** Sends every event of `lastEventId`'s stream stored after it, in order; priming events stay out. */
  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.events.get(lastEventId);
    if (!last) return '';
    let after = false;
    const due: [string, JSONRPCMessage][] = [];
    for (const [id, event] of this.events) {
      if (id === lastEventId) after = true;
      else if (after && event.streamId === last.streamId && 'jsonrpc' in event.message)
        due.push([id, event.message]);
    }
    for (const [id, message] of due) await send(id, message);
    return last.streamId;
  }
}
