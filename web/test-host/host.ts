// A small MCP Apps host for the browser tests (test/card/browser.test.ts): an SDK Client over Streamable HTTP to the real
// server, the card read with resources/read and put in a sandboxed iframe, and ext-apps' AppBridge
// between them (tools/call from the card goes through the bridge to the Client). What the card asks
// of its host (model context, display mode, links) is recorded on window.host for the test.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

interface HostRecord {
  contexts: unknown[];
  displayModes: string[];
  links: string[];
  theme: 'light' | 'dark';
  open(tool: string, args: Record<string, unknown>): Promise<unknown>;
  setTheme(theme: 'light' | 'dark'): Promise<void>;
  setLocale(locale: string): Promise<void>;
}

const params = new URLSearchParams(location.search);
const mcpUrl = params.get('mcp')!;
let bridge: AppBridge | undefined;
let client: Client | undefined;

const record: HostRecord = {
  contexts: [],
  displayModes: [],
  links: [],
  theme: 'light',
  async open(tool, args) {
    client ??= await connect();
    const result = await client.callTool({ name: tool, arguments: args });
    const resource = await client.readResource({ uri: 'ui://valem/model-card.html' });
    const html = (resource.contents[0] as { text: string }).text;
    const holder = document.getElementById('frame')!;
    holder.replaceChildren();
    const iframe = document.createElement('iframe');
    iframe.setAttribute('sandbox', 'allow-scripts');
    iframe.title = 'Model card';
    holder.appendChild(iframe);
    bridge = new AppBridge(
      client,
      { name: 'card-test-host', version: '1.0.0' },
      { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} },
      {
        hostContext: {
          theme: record.theme,
          displayMode: 'inline',
          availableDisplayModes: ['inline', 'fullscreen'],
          // a test may open the host in another language (?locale=de-DE)
          locale: params.get('locale') ?? 'en-US',
        },
      },
    );
    bridge.onupdatemodelcontext = (p) => {
      record.contexts.push(p);
      return Promise.resolve({});
    };
    bridge.onrequestdisplaymode = ({ mode }) => {
      record.displayModes.push(mode);
      return Promise.resolve({ mode });
    };
    bridge.onopenlink = ({ url }) => {
      record.links.push(url);
      return Promise.resolve({});
    };
    const b = bridge;
    const initialized = new Promise<void>((resolve) => (b.oninitialized = () => resolve()));
    // listen before the card loads: it asks to initialize as soon as its script runs, which can be
    // before the frame's load event, and a message sent to no listener is lost (the open then hangs)
    await b.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
    iframe.srcdoc = html;
    await initialized;
    await b.sendToolInput({ arguments: args });
    await b.sendToolResult(result);
    return result;
  },
  async setTheme(theme) {
    record.theme = theme;
    await bridge?.sendHostContextChange({ theme });
  },
  async setLocale(locale) {
    await bridge?.sendHostContextChange({ locale });
  },
};

async function connect(): Promise<Client> {
  const c = new Client(
    { name: 'card-test-host', version: '1.0.0' },
    {
      capabilities: {
        extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
      },
    },
  );
  await c.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  return c;
}

(window as unknown as { host: HostRecord }).host = record;
document.body.dataset.ready = 'true';
