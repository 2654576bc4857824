// The synth guides served as MCP resources cannot drift from the engine: the component tables are
// the registry's own rendering, and every model in either guide validates.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { synthGuidePath, synthResources, SYNTH_GUIDES } from '../../src/mcp/synth-resources.js';
import { componentsJson, componentsMarkdown, validateModelText } from '../../src/synth/index.js';

/** Table rows as trimmed cells (prettier may pad columns; `\|` stays part of a cell). */
function tableRows(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|[-| ]+\|$/.test(l))
    .map((l) =>
      l
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
}

const guide = (file: string): string => readFileSync(synthGuidePath(file), 'utf8');

describe('synth guides', () => {
  it('the format reference lists every component exactly as the registry renders it', () => {
    const text = guide('synth-model-format.md');
    const section = /<!-- components:begin -->([\s\S]*)<!-- components:end -->/.exec(text)?.[1];
    expect(section, 'components markers').toBeDefined();
    // regenerate with: modelworks synth components --markdown (tables under "### Generators"/"### Filters")
    expect(tableRows(section!)).toEqual(tableRows(componentsMarkdown()));
    const names = (JSON.parse(componentsJson()) as { components: { name: string }[] }).components.map(
      (c) => c.name,
    );
    for (const name of names) expect(section).toMatch(new RegExp(`\\| ${name} +\\|`));
  });

  it('every model in the guides validates', () => {
    let models = 0;
    for (const g of SYNTH_GUIDES) {
      for (const m of guide(g.file).matchAll(/```(sgm|xml|json)\n([\s\S]*?)```/g)) {
        models++;
        const result = validateModelText(m[2]!);
        expect(result, `${g.file}:\n${m[2]}`).toMatchObject({ valid: true });
      }
    }
    expect(models).toBeGreaterThanOrEqual(9);
  });

  it('is served under synth://guide/… as markdown, and nothing else is', () => {
    const provider = synthResources();
    expect(provider.resources.map((r) => r.uri)).toEqual([
      'synth://guide/model-format',
      'synth://guide/customization',
    ]);
    for (const r of provider.resources) {
      const content = provider.read(r.uri)!;
      expect(content.mimeType).toBe('text/markdown');
      expect(content.text).toMatch(/^# Synth /);
    }
    expect(provider.read('synth://guide/nope')).toBeUndefined();
  });
});
