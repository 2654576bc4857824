/**
 * Resources: the authoring guides (docs/guides), both JSON Schemas, the bundled examples and each
 * model's live state, with change subscriptions on state.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MODEL_SPEC_SCHEMA, SPEC_EVOLUTION_SCHEMA } from '../calc/index.js';
import type { CalcModelApi } from '../service/calc-api.js';
import { stateModelId } from './state-uri.js';

export { stateModelId };

const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

export const GUIDES = [
  { name: 'model-spec-format', title: 'ModelSpec authoring guide' },
  { name: 'jsonata-gotchas', title: 'JSONata pitfalls' },
  { name: 'spec-evolution', title: 'Authoring a SpecEvolution' },
  { name: 'view-system', title: 'The view system' },
] as const;

export interface ResourceContent {
  uri: string;
  mimeType: string;
  text: string;
}

export interface StaticResource {
  uri: string;
  name: string;
  title: string;
  mimeType: string;
  description: string;
}

export const STATIC_RESOURCES: StaticResource[] = [
  ...GUIDES.map((g) => ({
    uri: `valem://guide/${g.name}`,
    name: g.name,
    title: g.title,
    mimeType: 'text/markdown',
    description: `${g.title} (markdown)`,
  })),
  {
    uri: 'valem://schema/model-spec',
    name: 'model-spec-schema',
    title: 'ModelSpec JSON Schema',
    mimeType: 'application/json',
    description: 'The full ModelSpec JSON Schema',
  },
  {
    uri: 'valem://schema/spec-evolution',
    name: 'spec-evolution-schema',
    title: 'SpecEvolution JSON Schema',
    mimeType: 'application/json',
    description: 'The SpecEvolution JSON Schema',
  },
];

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: 'valem://examples/{name}',
    name: 'example',
    title: 'Bundled example spec',
    mimeType: 'application/json',
    description: 'A working example ModelSpec (e.g. insurance-quote, car-loan-calculator)',
  },
  {
    uriTemplate: 'valem://state/{modelId}',
    name: 'model-state',
    title: 'Live model state',
    mimeType: 'application/json',
    description: "A model's merged state; subscribe to be told of every committed change",
  },
];

/** Names of the bundled examples (examples/calc/*.json). */
export function exampleNames(): string[] {
  try {
    return readdirSync(`${packageRoot}examples/calc`)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -5))
      .sort();
  } catch {
    return [];
  }
}

/** Reads a resource; undefined when the URI names nothing (the caller answers -32002). */
export async function readResource(uri: string, service: CalcModelApi): Promise<ResourceContent | undefined> {
  const guide = /^valem:\/\/guide\/([a-z-]+)$/.exec(uri);
  if (guide && GUIDES.some((g) => g.name === guide[1])) {
    return {
      uri,
      mimeType: 'text/markdown',
      text: readFileSync(`${packageRoot}docs/guides/${guide[1]}.md`, 'utf8'),
    };
  }
  if (uri === 'valem://schema/model-spec')
    return { uri, mimeType: 'application/json', text: JSON.stringify(MODEL_SPEC_SCHEMA, null, 2) };
  if (uri === 'valem://schema/spec-evolution')
    return { uri, mimeType: 'application/json', text: JSON.stringify(SPEC_EVOLUTION_SCHEMA, null, 2) };
  const example = /^valem:\/\/examples\/([A-Za-z0-9_-]+)$/.exec(uri);
  if (example && exampleNames().includes(example[1]!)) {
    return {
      uri,
      mimeType: 'application/json',
      text: readFileSync(`${packageRoot}examples/calc/${example[1]}.json`, 'utf8'),
    };
  }
  const state = /^valem:\/\/state\/(.+)$/.exec(uri);
  if (state) {
    try {
      return {
        uri,
        mimeType: 'application/json',
        text: JSON.stringify(await service.getState(decodeURIComponent(state[1]!)), null, 2),
      };
    } catch {
      return undefined;
    }
  }
  return undefined;
}
