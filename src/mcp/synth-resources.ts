/**
 * The synth reference resources: the model format reference and the customization guide, our own
 * Markdown under docs/guides (shipped with the package), checked against the component registry by
 * test/synth-mcp/resources.test.ts so they cannot drift from what the engine accepts.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ResourceProvider } from './resource-provider.js';

const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

export const SYNTH_GUIDES = [
  {
    uri: 'synth://guide/model-format',
    file: 'synth-model-format.md',
    name: 'synth-model-format',
    title: 'Synth model format reference',
    description:
      'How to write a synth model (XML, JSON or compact), seeds, inputs, and every component with its parameters (markdown)',
  },
  {
    uri: 'synth://guide/customization',
    file: 'synth-customization.md',
    name: 'synth-customization',
    title: 'Synth customization guide',
    description:
      'Recipes for shaping data: mixtures, truncation, correlated columns, derived columns, categorical labels (markdown)',
  },
] as const;

/** The path of a guide's Markdown file inside the package. */
export function synthGuidePath(file: string): string {
  return `${packageRoot}docs/guides/${file}`;
}

export function synthResources(): ResourceProvider {
  return {
    resources: SYNTH_GUIDES.map((g) => ({
      uri: g.uri,
      name: g.name,
      title: g.title,
      mimeType: 'text/markdown',
      description: g.description,
    })),
    read(uri) {
      const guide = SYNTH_GUIDES.find((g) => g.uri === uri);
      if (!guide) return undefined;
      return { uri, mimeType: 'text/markdown', text: readFileSync(synthGuidePath(guide.file), 'utf8') };
    },
  };
}
