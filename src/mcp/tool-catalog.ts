/**
 * The tools a server offers and the checks a call's arguments pass before a tool runs. Loaded by
 * server.ts on a connection's first tools/list or tools/call (or right after `initialized`), not
 * before it answers `initialize`: the tool modules bring the engines, the services and their
 * libraries, most of the modules the server loads at all (docs/calc-engine.md, "MCP start").
 */
import type { Server, ServerContext } from '@modelcontextprotocol/server';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { findUnsafeValue, schemaViolationError, unsafeValueViolation } from '../calc/index.js';
import { CalcService } from '../service/calc-service.js';
import { CardRunner } from '../service/card-runner.js';
import { SpecGenerator } from '../service/generate.js';
import {
  findInputLimitViolation,
  findWriteLimitViolation,
  violationDetails,
  type InputLimits,
  type InputLimitViolation,
} from '../service/input-limits.js';
import { authoringTools } from './authoring-tools.js';
import { modelTools, shallowInputSchema } from './calc-tools.js';
import { cardTools, clientShowsCards } from './card-tools.js';
import { clientCapabilitiesOf } from './client-capabilities.js';
import { conformanceTools } from './conformance-tools.js';
import { errorResult, textError, type ToolResult } from './results.js';
import type { McpServerOptions } from './server-options.js';
import { sheetTools } from './sheet-tools.js';
import { simulateTool } from './simulate-tool.js';
import { solveTool } from './solve-tool.js';
import { generateTool } from './generate-tool.js';
import type { ToolDefinition } from './tool.js';

export { errorResult, textError };

/**
 * Arguments are checked in JSON Schema 2020-12, the dialect MCP gives a tool schema without
 * `$schema` (2025-11-25 on) and the one our spec schemas are written in.
 */
const ajv = new Ajv2020({ strict: false, allErrors: false });
const validators = new WeakMap<ToolDefinition, ValidateFunction>();

function validatorFor(tool: ToolDefinition): ValidateFunction {
  let v = validators.get(tool);
  if (!v) {
    v = ajv.compile(tool.argsSchema ?? shallowInputSchema(tool.inputSchema));
    validators.set(tool, v);
  }
  return v;
}

export interface ToolSet {
  list: ToolDefinition[];
  byName: Map<string, ToolDefinition>;
}

/** The tools for a client; the card tools depend on whether it shows cards. */
export function toolSetsFor(server: Server, options: McpServerOptions): (ctx?: ServerContext) => ToolSet {
  const tools: ToolDefinition[] = [];
  if (options.groups.has('calc'))
    tools.push(
      ...modelTools(options.calc),
      ...authoringTools(options.calc, options.guidanceTopics),
      ...sheetTools(),
      simulateTool(options.calc),
      solveTool(options.calc),
      generateTool(options.calc, options.generator ?? new SpecGenerator(undefined, options.guidanceTopics)),
    );
  tools.push(...(options.extraTools ?? []));
  if (options.conformanceFixtures) tools.push(...conformanceTools());
  const toolSets = new Map<boolean, ToolSet>();
  let ownRunner: CardRunner | undefined;
  return (ctx) => {
    const ui = clientShowsCards(clientCapabilitiesOf(server, ctx));
    let set = toolSets.get(ui);
    if (!set) {
      const list = options.groups.has('calc')
        ? [
            ...tools,
            ...cardTools({
              ...(options.calc instanceof CalcService ? { calc: options.calc } : {}),
              runner: options.cards?.runner ?? (ownRunner ??= new CardRunner()),
              ui,
              ...(options.cards?.shareLinks ? { shareLinks: options.cards.shareLinks } : {}),
            }),
          ]
        : tools;
      set = { list, byName: new Map(list.map((t) => [t.name, t])) };
      toolSets.set(ui, set);
    }
    return set;
  };
}

/**
 * Why a call's arguments are refused before its tool runs, or undefined: a prototype key or
 * unbounded nesting, the input limits (the REST ones, issue 47), then the tool's schema.
 */
export function refusedArguments(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  limits: InputLimits,
): ToolResult | undefined {
  // before any tool walks them: no argument may hold `__proto__` or nest without bound
  const unsafe = findUnsafeValue(args);
  if (unsafe) return errorResult(schemaViolationError([unsafeValueViolation('arguments', unsafe)]));
  // keys, nesting and a write's size, before the tool starts any work (the REST limits, issue 47)
  // (the write's size first: counting one object's keys is cheaper than walking every value)
  const over =
    (WRITE_ARGUMENTS.has(tool.name)
      ? findWriteLimitViolation(args[WRITE_ARGUMENTS.get(tool.name)!], limits, `${tool.name}'s write`)
      : undefined) ?? findInputLimitViolation(args, limits, 'the arguments');
  if (over) return inputLimitResult(over);
  const validate = validatorFor(tool);
  if (!validate(args)) {
    const problems = (validate.errors ?? [])
      .map((e) => `${e.instancePath || '(arguments)'} ${e.message ?? ''}`.trim())
      .join('; ');
    return textError(`Invalid arguments for ${tool.name}: ${problems}`);
  }
  return undefined;
}

/** The argument holding the addresses or operations a write tool applies as one cycle. */
const WRITE_ARGUMENTS = new Map([
  ['mutate', 'mutations'],
  ['patch_model', 'patch'],
  ['dry_run', 'mutations'],
]);

/** An input-limit refusal as a tool error: the code and details the REST answer carries. */
function inputLimitResult(v: InputLimitViolation): ToolResult {
  const shape = { error: v.message, code: 'INPUT_LIMIT', ...violationDetails(v) };
  return {
    content: [{ type: 'text', text: JSON.stringify(shape) }],
    structuredContent: shape,
    isError: true,
  };
}
