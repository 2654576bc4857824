/**
 * The calc authoring tools: guidance for writing a spec, and checking and trying a spec before it
 * is a model. Pure: they never touch the registry.
 */
import type { CalcAuthoringApi } from '../service/calc-api.js';
import { domainGuidance } from '../service/guidance/catalog.js';
import type { GuidanceTopic } from '../service/guidance/topics.js';
import { okResult } from './results.js';
import { input, output, READ, SPEC_REFERENCE, type ToolDefinition } from './tool.js';

const ANY_OBJECT = output({});
const str = (s: unknown): string => (typeof s === 'string' ? s : '');

/** Authoring tools: pure, never touch the registry. */
export function authoringTools(
  service: CalcAuthoringApi,
  topics: readonly GuidanceTopic[],
): ToolDefinition[] {
  return [guidanceTool(topics), ...checkingTools(service), ...tryingTools(service)];
}

/** get_domain_guidance: the topic menu is its enum. */
function guidanceTool(topics: readonly GuidanceTopic[]): ToolDefinition {
  return {
    name: 'get_domain_guidance',
    title: 'Get domain guidance',
    // the topic ids (the enum) name their shapes; a blurb per topic cost ~1.2 KB of every tools/list
    description:
      'Vetted recipes for common modelling shapes (loans, grouping, dates, bands, currencies, statuses, ranks, regulated charges, percentages, units, growth, weighted averages, eligibility, proration); call before authoring.',
    inputSchema: input({ topics: { type: 'array', items: { enum: topics.map((t) => t.id) }, minItems: 1 } }, [
      'topics',
    ]),
    outputSchema: output(
      { topics: { type: 'array', items: { type: 'string' } }, guidance: { type: 'string' } },
      ['guidance'],
    ),
    annotations: READ,
    run: (a) =>
      Promise.resolve(
        okResult(domainGuidance(topics, Array.isArray(a.topics) ? (a.topics as string[]) : [])),
      ),
  };
}

/** Checking a spec before it is a model: validate it, evaluate an expression against a state. */
function checkingTools(service: CalcAuthoringApi): ToolDefinition[] {
  return [
    {
      name: 'validate_spec',
      title: 'Validate spec',
      description:
        'Check a ModelSpec without creating it (embedded tests included): {valid, errors[], warnings[]}, each finding with a location and a message.',
      inputSchema: input({ spec: SPEC_REFERENCE }, ['spec']),
      outputSchema: output(
        { valid: { type: 'boolean' }, errors: { type: 'array' }, warnings: { type: 'array' } },
        ['valid', 'errors', 'warnings'],
      ),
      annotations: READ,
      run: async (a) => okResult(await service.validateSpec(a.spec)),
    },
    {
      name: 'eval_expression',
      title: 'Evaluate expression',
      description:
        'Evaluate one JSONata expression against a sample input. Pass library and constants when it calls library functions or reads $const.',
      inputSchema: input(
        {
          expr: { type: 'string' },
          input: { description: 'Input document (default {})' },
          library: { description: 'A library definition string or {define|layers}' },
          constants: { type: 'object' },
        },
        ['expr'],
      ),
      outputSchema: output(
        {
          ok: { type: 'boolean' },
          undefined: { type: 'boolean' },
          result: {},
          libraryExports: { type: 'array' },
          message: { type: 'string' },
        },
        ['ok'],
      ),
      annotations: READ,
      run: async (a) =>
        okResult(
          await service.evalExpression(
            str(a.expr),
            a.input,
            a.library,
            a.constants as Record<string, unknown> | undefined,
          ),
        ),
    },
  ];
}

/** Trying a spec out: run its embedded tests, dry-run mutations on a throwaway instance. */
function tryingTools(service: CalcAuthoringApi): ToolDefinition[] {
  return [
    {
      name: 'test_spec',
      title: 'Test spec',
      description:
        "Run a spec's embedded tests, or the given ad-hoc cases ({given, expect} keyed by canonical address), each on a fresh throwaway runtime.",
      inputSchema: input({ spec: SPEC_REFERENCE, tests: { type: 'array', items: { type: 'object' } } }, [
        'spec',
      ]),
      outputSchema: output(
        {
          total: { type: 'integer' },
          passed: { type: 'integer' },
          failed: { type: 'integer' },
          results: { type: 'array' },
        },
        ['total', 'passed', 'failed', 'results'],
      ),
      annotations: READ,
      run: async (a) => okResult(await service.testSpec(a.spec, a.tests)),
    },
    {
      name: 'dry_run',
      title: 'Dry run',
      description:
        'Compile a candidate spec in an isolated runtime, apply optional mutations as one cycle, and return the merged state. Nothing is registered.',
      inputSchema: input({ spec: SPEC_REFERENCE, mutations: { type: 'object' } }, ['spec']),
      outputSchema: ANY_OBJECT,
      annotations: READ,
      run: async (a) =>
        okResult(
          await service.dryRun(a.spec, a.mutations),
          'dry_run returned a large state; test narrower cases with test_spec',
        ),
    },
  ];
}
