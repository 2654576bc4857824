/**
 * 2026-07-28's `subscriptions/listen`: the serving entry (the SDK's serveStdio or createMcpHandler)
 * answers it and delivers on the stream; what it cannot know is when one of our resources changed.
 * These helpers read which resources a listen asks for, so the surface can watch exactly those and
 * say so. Nothing is kept per client: a watch lives as long as its listen stream (HTTP) or its
 * connection (stdio).
 */

/** The resource URIs a `subscriptions/listen` request asks to hear about; [] for any other message. */
export function listenedResourceUris(message: unknown): string[] {
  if (typeof message !== 'object' || message === null) return [];
  const m = message as { method?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } };
  if (m.method !== 'subscriptions/listen') return [];
  const uris = m.params?.notifications?.resourceSubscriptions;
  return Array.isArray(uris) ? uris.filter((u): u is string => typeof u === 'string') : [];
}
