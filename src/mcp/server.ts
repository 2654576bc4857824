/**
 * One MCP server on the official SDK's low-level Server: tools listed with our own JSON Schemas,
 * results shaped by results.ts, resources with state subscriptions, logging with a readiness line.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type CallToolRequest,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Ajv, type ValidateFunction } from 'ajv';
import { z } from 'zod';
import type { CalcApi, CalcModelApi } from '../service/calc-api.js';
import type { GuidanceTopic } from '../service/guidance/topics.js';
import { readPackageVersion } from '../version.js';
import { authoringTools, modelTools, shallowInputSchema } from './calc-tools.js';
import { readResource, RESOURCE_TEMPLATES, STATIC_RESOURCES, stateModelId } from './resources.js';
import { errorResult, textError } from './results.js';
import { sheetTools } from './sheet-tools.js';
import type { ToolDefinition } from './tool.js';

/** JSON-RPC error for an unknown resource (what MCP clients expect). */
export const RESOURCE_NOT_FOUND = -32002;

export interface McpServerOptions {
  /** The embedded CalcService, or a REST client in remote mode. */
  calc: CalcApi;
  guidanceTopics: readonly GuidanceTopic[];
  /** Which tool groups to offer. */
  groups: ReadonlySet<'calc' | 'synth'>;
  /** Extra tools (e.g. synth) registered by their own modules. */
  extraTools?: ToolDefinition[];
  /** One line for the readiness log, e.g. "embedded mode, memory store". */
  modeLine: string;
}

const INSTRUCTIONS = `Modelworks hosts live reactive models. Typical flow: read valem://guide/model-spec-format and call get_domain_guidance for your topic; draft a ModelSpec; validate_spec and test_spec until clean; create_model; then mutate with {"$.path": value} writes and read results with get_state (use paths/depth to keep results small) or get_field. explain shows how a value was computed. Use snapshot before evolve_spec; get_audit/verify_audit give the tamper-evident trail. Addresses are canonical JSON Paths ($.a.b[0].c); expressions are plain JSONata.`;

/**
 * tools/call with only the method checked up front. The SDK's Server validates tools/call itself and
 * answers a malformed one (no name, say) with -32602 Invalid params, but only if the registered
 * schema lets the request through: the strict CallToolRequestSchema throws first, as -32603.
 */
const ToolsCallMethod = z.looseObject({ method: z.literal('tools/call') });

const ajv = new Ajv({ strict: false, allErrors: false });
const validators = new WeakMap<ToolDefinition, ValidateFunction>();

function validatorFor(tool: ToolDefinition): ValidateFunction {
  let v = validators.get(tool);
  if (!v) {
    v = ajv.compile(shallowInputSchema(tool.inputSchema));
    validators.set(tool, v);
  }
  return v;
}

/** Builds a server for one connection; all connections share the service. */
export function createMcpServer(options: McpServerOptions): Server {
  const server = new Server(
    { name: 'modelworks', title: 'Modelworks', version: readPackageVersion() },
    { capabilities: { tools: {}, resources: { subscribe: true }, logging: {} }, instructions: INSTRUCTIONS },
  );
  const tools: ToolDefinition[] = [];
  if (options.groups.has('calc'))
    tools.push(
      ...modelTools(options.calc),
      ...authoringTools(options.calc, options.guidanceTopics),
      ...sheetTools(),
    );
  tools.push(...(options.extraTools ?? []));
  const byName = new Map(tools.map((t) => [t.name, t]));

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema as { type: 'object' },
      ...(t.outputSchema ? { outputSchema: t.outputSchema as { type: 'object' } } : {}),
      annotations: { title: t.title, ...t.annotations },
    })),
  }));

  server.setRequestHandler(ToolsCallMethod, async (raw, extra) => {
    const request = raw as unknown as CallToolRequest; // validated by the SDK's tools/call wrapper
    const tool = byName.get(request.params.name);
    if (!tool) return textError(`Unknown tool: '${request.params.name}'`);
    const args = request.params.arguments ?? {};
    const validate = validatorFor(tool);
    if (!validate(args)) {
      const problems = (validate.errors ?? [])
        .map((e) => `${e.instancePath || '(arguments)'} ${e.message ?? ''}`.trim())
        .join('; ');
      return textError(`Invalid arguments for ${tool.name}: ${problems}`);
    }
    try {
      return await tool.run(args, { signal: extra.signal });
    } catch (err) {
      return errorResult(err);
    }
  });

  if (options.groups.has('calc')) registerResources(server, options.calc);

  let announced = false;
  const announce = (): void => {
    if (announced) return;
    announced = true;
    // levels are per session (logging/setLevel stores them under the session id)
    void server
      .sendLoggingMessage(
        {
          level: 'info',
          logger: 'modelworks',
          data: `modelworks ready: ${options.modeLine}; ${tools.length} tools`,
        },
        server.transport?.sessionId,
      )
      .catch(() => {});
  };
  readinessAnnouncers.set(server, announce);
  server.oninitialized = () => {
    // A session transport (Streamable HTTP) can push a notification only on the client's GET event
    // stream, which opens after `initialized`; http.ts calls announceReady when it does.
    if (server.transport?.sessionId === undefined) announce();
  };
  return server;
}

const readinessAnnouncers = new WeakMap<Server, () => void>();

/** Sends the one-line readiness log of a server's session, unless it has gone out already. */
export function announceReady(server: Server): void {
  readinessAnnouncers.get(server)?.();
}

function registerResources(server: Server, calc: CalcModelApi): void {
  const subscriptions = new Map<string, () => void>();
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: STATIC_RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: RESOURCE_TEMPLATES,
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const content = await readResource(request.params.uri, calc);
    if (!content)
      throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${request.params.uri}`, {
        uri: request.params.uri,
      });
    return { contents: [content] };
  });
  server.setRequestHandler(SubscribeRequestSchema, (request) => {
    const uri = request.params.uri;
    const id = stateModelId(uri);
    // subscribing to anything else, or twice, is accepted silently
    if (id !== undefined && !subscriptions.has(uri)) {
      subscriptions.set(
        uri,
        calc.subscribe(id, () => {
          void server.sendResourceUpdated({ uri }).catch(() => {});
        }),
      );
    }
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions.get(request.params.uri)?.();
    subscriptions.delete(request.params.uri);
    return {};
  });
  const previousOnClose = server.onclose;
  server.onclose = () => {
    for (const off of subscriptions.values()) off();
    subscriptions.clear();
    previousOnClose?.();
  };
}
