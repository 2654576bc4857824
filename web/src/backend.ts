/**
 * How the card talks to the server. Inside a chat host: the MCP Apps `App` (tools/call through the
 * host, ui/update-model-context, display modes, open-link). On a share page: the share routes'
 * JSON endpoints on the page's own origin.
 */
import type { App } from '@modelcontextprotocol/ext-apps';

export interface ToolAnswer {
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
  isError?: boolean;
}

export interface Backend {
  call(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
  /** Tells the assistant what is on screen (no-op outside a chat). */
  updateContext(text: string, data: Record<string, unknown>): Promise<void>;
  openLink?(url: string): Promise<void>;
  /** Present when the host offers full screen. */
  toggleFullscreen?(): Promise<'inline' | 'fullscreen'>;
}

export function hostBackend(app: App): Backend {
  let mode: 'inline' | 'fullscreen' = 'inline';
  const modes = app.getHostContext()?.availableDisplayModes ?? [];
  return {
    // the SDK types structuredContent as unknown; the card's tools answer objects there
    call: async (name, args) => (await app.callServerTool({ name, arguments: args })) as ToolAnswer,
    updateContext: async (text, data) => {
      await app.updateModelContext({ content: [{ type: 'text', text }], structuredContent: data });
    },
    openLink: async (url) => {
      await app.openLink({ url });
    },
    ...(modes.includes('fullscreen')
      ? {
          toggleFullscreen: async () => {
            const next = mode === 'fullscreen' ? 'inline' : 'fullscreen';
            const r = await app.requestDisplayMode({ mode: next });
            mode = r.mode === 'fullscreen' ? 'fullscreen' : 'inline';
            return mode;
          },
        }
      : {}),
  };
}

/** The share page's backend: POST {api}/{tool} with the arguments, answered like a tool result. */
export function shareBackend(api: string): Backend {
  return {
    call: async (name, args) => {
      const res = await fetch(`${api}/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(args),
      });
      return (await res.json()) as ToolAnswer;
    },
    updateContext: () => Promise.resolve(),
    openLink: (url) => {
      window.open(url, '_blank', 'noopener');
      return Promise.resolve();
    },
  };
}
